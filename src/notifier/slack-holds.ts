import type { Store } from "../store/index.js";

/** What a Slack 429 holds: one channel's posts, or one workspace-wide method. */
export type HoldTarget = { channel: string } | { method: string };

const PREFIX = "slack-hold:";

/** The store key of a hold: `slack-hold:channel:C1`, `slack-hold:method:chat.update`. */
export function holdKey(target: HoldTarget): string {
  return "channel" in target ? `${PREFIX}channel:${target.channel}` : `${PREFIX}method:${target.method}`;
}

/**
 * Slack's rate limits as it answered them: a 429 holds what it names until exactly now + Retry-After
 * (no jitter, no doubling), and is not a failure. Kept in the store's backoff table under keys of their
 * own (failures 0), apart from the failure backoff's keys and counts, so that every replica sees them.
 */
export class SlackHolds {
  constructor(private readonly store: Store) {}

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
