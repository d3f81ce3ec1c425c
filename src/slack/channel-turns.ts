import { DeliveryError, DeliveryErrorCode, RATE_LIMITED_TRIES } from "../notifier/chat.js";
import type { Store } from "../store/index.js";
import { type PostPace, SlackPace } from "./slack-holds.js";

/** The longest a top-level post (a digest, a health alert) waits for its channel's turn before it goes anyway. */
const MAX_TURN_WAIT_MS = 5_000;

/**
 * Waits for a channel's turn at Slack's pace, shared with the notifier's posts in the store (every
 * replica): a top-level post that is not a notice (a weekly digest, a health alert) waits its turn, a few
 * seconds at most, rather than meet Slack's 429 behind a burst of notices. `pace` false: no wait.
 */
export function channelTurns(deps: {
  store: Store;
  pace: PostPace | false;
  now: () => Date;
}): (channel: string) => Promise<void> {
  const pace = deps.pace ? new SlackPace(deps.store, deps.pace) : null;
  return async (channel) => {
    if (!pace) return;
    const caughtUp = await pace.caughtUp(channel);
    const next = pace.nextPostAt(caughtUp, deps.now());
    if (next) {
      const wait = Math.min(MAX_TURN_WAIT_MS, next.getTime() - deps.now().getTime());
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    // Read again after the wait: the notifier may have taken turns meanwhile, which this one follows.
    await pace.posted(channel, next ? await pace.caughtUp(channel) : caughtUp, deps.now());
  };
}

/** A poster of top-level messages (whatever their shape) with their key, found again by it. */
export interface KeyedPoster<M extends { channel: string }> {
  post(message: M): Promise<string>;
  find(channel: string, key: string, oldest: Date): Promise<string | null>;
}

/**
 * A poster (a digest's, an alert's) whose posts wait for their channel's turn; one Slack refused with a
 * 429 (the pace is a courtesy, Slack's answer the rule: a late answer can bunch posts up) goes again
 * after the Retry-After, taking a turn again, up to RATE_LIMITED_TRIES times. A 429 leaves nothing
 * posted, so nothing in doubt.
 */
export function pacedKeyedPoster<M extends { channel: string }>(
  poster: KeyedPoster<M>,
  turn: (channel: string) => Promise<void>,
): KeyedPoster<M> {
  return {
    async post(message) {
      for (let tries = 1; ; tries++) {
        await turn(message.channel);
        try {
          return await poster.post(message);
        } catch (error) {
          const limited = error instanceof DeliveryError && error.code === DeliveryErrorCode.RateLimited;
          if (!limited || tries >= RATE_LIMITED_TRIES) throw error;
          await new Promise((resolve) => setTimeout(resolve, (error.retryAfterSeconds ?? 1) * 1_000));
        }
      }
    },
    find: (channel, key, oldest) => poster.find(channel, key, oldest),
  };
}
