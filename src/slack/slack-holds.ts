import type { ChatHolds, ChatPace, HoldTarget } from "../notifier/chat.js";
import type { BackoffStore } from "../store/index.js";
import { SLACK_METHODS } from "./slack-poster.js";

const PREFIX = "slack-hold:";

/** The store key of a hold: `slack-hold:channel:C1`, `slack-hold:method:chat.update`. */
export function holdKey(target: HoldTarget): string {
  return "channel" in target
    ? `${PREFIX}channel:${target.channel}`
    : `${PREFIX}method:${SLACK_METHODS[target.call]}`;
}

/**
 * Slack's rate limits as it answered them: a 429 holds what it names until exactly now + Retry-After
 * (no jitter, no doubling), and is not a failure. Kept in the store's backoff table under keys of their
 * own (failures 0), apart from the failure backoff's keys and counts, so that every replica sees them.
 */
export class SlackHolds implements ChatHolds {
  constructor(private readonly store: BackoffStore) {}

  /** The end of the hold on `target` in force at `now`, or null. */
  async until(target: HoldTarget, now: Date): Promise<Date | null> {
    const hold = await this.store.getBackoff(holdKey(target));
    return hold && hold.nextAttemptAt > now ? hold.nextAttemptAt : null;
  }

  /** Holds `target` until `now + retryAfterSeconds`, or later if a longer hold is already in force. */
  async hold(target: HoldTarget, retryAfterSeconds: number, now: Date): Promise<Date> {
    const key = holdKey(target);
    const until = new Date(now.getTime() + Math.max(0, retryAfterSeconds) * 1000);
    const previous = await this.store.getBackoff(key);
    if (previous && previous.nextAttemptAt > until) return previous.nextAttemptAt;
    await this.store.putBackoff({ key, failures: 0, nextAttemptAt: until, lastError: "ratelimited" });
    return until;
  }
}

/** Slack's pace for one channel's posts: about one a second, short bursts pass. */
export interface PostPace {
  /** Between two posts once the burst is spent, ms. */
  intervalMs: number;
  /** Posts that may go at once after a quiet while. */
  burst: number;
}

/** `chat.postMessage`'s documented limit: one a second per channel, with short bursts (3 here). */
export const SLACK_POST_PACE: PostPace = { intervalMs: 1_000, burst: 3 };

/**
 * A channel's posts at Slack's pace, so that a long backlog drains at about a post a second instead of
 * running into 429s: the generic cell rate algorithm, whose whole state is one time (when the channel's
 * posts would be caught up, "theoretical arrival time"), kept in the backoff table under
 * `slack-pace:channel:<id>` so that the pace holds whichever replica holds the channel's lease. A post
 * may go when that time is at most (burst - 1) intervals ahead of now. A 429 still holds the channel
 * (SlackHolds): the pace is a courtesy, Slack's answer the rule.
 */
export class SlackPace implements ChatPace {
  constructor(
    private readonly store: BackoffStore,
    private readonly pace: PostPace = SLACK_POST_PACE,
  ) {}

  private key(channel: string): string {
    return `slack-pace:channel:${channel}`;
  }

  /** When the channel's posts are caught up (now or earlier: it may burst). */
  async caughtUp(channel: string): Promise<Date | null> {
    return (await this.store.getBackoff(this.key(channel)))?.nextAttemptAt ?? null;
  }

  /** When the channel may post next after `caughtUp`, or null when it may post at `now`. */
  nextPostAt(caughtUp: Date | null, now: Date): Date | null {
    if (!caughtUp) return null;
    const at = caughtUp.getTime() - (this.pace.burst - 1) * this.pace.intervalMs;
    return at > now.getTime() ? new Date(at) : null;
  }

  /** Records a post at `now`; returns the channel's new caught-up time. */
  async posted(channel: string, caughtUp: Date | null, now: Date): Promise<Date> {
    const next = new Date(Math.max(caughtUp?.getTime() ?? 0, now.getTime()) + this.pace.intervalMs);
    await this.store.putBackoff({
      key: this.key(channel),
      failures: 0,
      nextAttemptAt: next,
      lastError: "paced",
    });
    return next;
  }
}
