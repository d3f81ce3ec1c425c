import type { Backoff, BackoffStore } from "../store/index.js";

export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 15_000, maxMs: 15 * 60_000 };

/** Exponential, with up to 20% jitter so that replicas and repositories do not retry in step. */
export function nextDelayMs(
  failures: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const raw = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, failures - 1));
  return Math.round(raw * (0.8 + 0.2 * random()));
}

/**
 * Failure backoff per key ("repo:owner/name", "channel:C123", "slack"), kept in the store.
 * Hand-written: it is shared by replicas and outlives restarts, which in-process retry libraries are not.
 */
export class Backoffs {
  constructor(
    private readonly store: BackoffStore,
    private readonly policy: BackoffPolicy = DEFAULT_BACKOFF,
  ) {}

  /** The backoff in force at `now`, or null when the key may be tried. */
  async active(key: string, now: Date): Promise<Backoff | null> {
    const backoff = await this.store.getBackoff(key);
    return backoff && backoff.nextAttemptAt > now ? backoff : null;
  }

  async fail(key: string, error: string, now: Date, atLeastMs = 0): Promise<Backoff> {
    const previous = await this.store.getBackoff(key);
    const failures = (previous?.failures ?? 0) + 1;
    const delay = Math.max(atLeastMs, nextDelayMs(failures, this.policy));
    const backoff = { key, failures, nextAttemptAt: new Date(now.getTime() + delay), lastError: error };
    await this.store.putBackoff(backoff);
    return backoff;
  }

  async succeed(key: string): Promise<void> {
    if (await this.store.getBackoff(key)) await this.store.clearBackoff(key);
  }
}
