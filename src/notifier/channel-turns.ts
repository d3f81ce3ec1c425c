import type { Store } from "../store/index.js";
import { type PostPace, SlackPace } from "./slack-holds.js";
import type { DigestPoster } from "./slack-poster.js";

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

/** A digest poster whose posts wait for their channel's turn. */
export function pacedDigestPoster(
  poster: DigestPoster,
  turn: (channel: string) => Promise<void>,
): DigestPoster {
  return {
    async post(message) {
      await turn(message.channel);
      return poster.post(message);
    },
    find: (channel, key, oldest) => poster.find(channel, key, oldest),
  };
}
