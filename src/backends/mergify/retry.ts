/**
 * Exponential backoff with full jitter, Retry-After, and an overall time budget. Pure.
 * Hand-written: no declared dependency retries plain fetch calls with Retry-After (an HTTP-date too)
 * inside a budget; Octokit's and Bolt's retries serve only their own clients.
 */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  retries: number;
  minDelayMs: number;
  maxDelayMs: number;
  /** No retry is scheduled that would end after this much time since the first attempt began. */
  maxElapsedMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retries: 3,
  minDelayMs: 200,
  maxDelayMs: 5_000,
  maxElapsedMs: 20_000,
};

export function resolveRetryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy = { ...DEFAULT_RETRY_POLICY };
  for (const key of Object.keys(policy) as (keyof RetryPolicy)[]) {
    const value = overrides[key];
    if (value !== undefined) {
      if (!Number.isFinite(value) || value < 0) throw new RangeError(`retry.${key} must be a number >= 0`);
      policy[key] = value;
    }
  }
  policy.maxDelayMs = Math.max(policy.maxDelayMs, policy.minDelayMs);
  return policy;
}

/** Full jitter: uniform in [0, min(maxDelay, minDelay * 2^retryIndex)). */
export function backoffDelayMs(retryIndex: number, policy: RetryPolicy, random: () => number = Math.random) {
  const ceiling = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** retryIndex);
  return Math.floor(random() * ceiling);
}

/**
 * `Retry-After` in milliseconds from now: delay-seconds (`"120"`) or an HTTP-date. Dates in the past give 0;
 * an absent or unreadable header gives undefined.
 */
export function parseRetryAfterMs(value: string | null | undefined, now: number = Date.now()) {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // Every HTTP-date form begins with the day name; this keeps Date.parse's guesses ("-5") out.
  const date = /^[A-Za-z]{3}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

export type RetryDecision =
  | { retry: true; delayMs: number }
  | { retry: false; reason: "exhausted" | "budget"; retryAfterMs?: number };

export interface RetryContext {
  /** Retries already made (0 after the first attempt). */
  retriesDone: number;
  elapsedMs: number;
  /** From the failed answer's Retry-After, if any. */
  retryAfterMs?: number | undefined;
  random?: () => number;
}

/** Whether to try again after a retryable failure, and after how long. */
export function planRetry(policy: RetryPolicy, context: RetryContext): RetryDecision {
  const { retryAfterMs } = context;
  const stop = (reason: "exhausted" | "budget"): RetryDecision =>
    retryAfterMs === undefined ? { retry: false, reason } : { retry: false, reason, retryAfterMs };
  if (context.retriesDone >= policy.retries) return stop("exhausted");
  const remaining = policy.maxElapsedMs - context.elapsedMs;
  if (retryAfterMs !== undefined && retryAfterMs > remaining) return stop("budget");
  // Retry-After is honoured as given (never earlier); only the overall budget can refuse it.
  const delayMs =
    retryAfterMs !== undefined ? retryAfterMs : backoffDelayMs(context.retriesDone, policy, context.random);
  if (delayMs > remaining) return stop("budget");
  return { retry: true, delayMs };
}
