import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../logger.js";
import {
  askPace,
  blockPace,
  GITHUB_WRITE_LIMITS,
  LocalWritePace,
  type PaceAnswer,
  type WaitingKind,
  type WriteLimits,
  type WritePaceKeeper,
} from "./write-pace.js";

/**
 * The app's writes to GitHub, one queue per process, kept within GitHub's guidance by one pace for the
 * whole app across every replica (write-pace.ts: every installation's writes are the app bot's, and
 * GitHub's secondary limits count per account) (docs.github.com: "Best practices for using the REST API",
 * "Rate limits for the REST API"):
 *
 * - one write at a time per process, each started at least `intervalMs` (1 s) after the one before,
 *   whichever replica made it;
 * - content-creating writes (a comment, a reaction) at most 80 in any minute and 500 in any hour
 *   (with a second a minute to spare); edits and deletions create nothing and are only paced by the
 *   second;
 * - on a secondary (or primary) rate-limit answer, 403 or 429: no write at all until its
 *   `retry-after` (exactly), else until `x-ratelimit-reset`, else a minute, on every replica; then the
 *   same write again;
 * - a write GitHub answered 5xx (or never answered) is tried again after 1 s, 4 s, 9 s (as Octokit's
 *   retry plugin would), without holding up the others meanwhile.
 *
 * What goes first is what a person waits for: the answer (the summary comment, a relayed command),
 * then 👀 for a command still running, then the final 👍/😕, on every replica. Octokit's own throttle and retries are off
 * for these requests (src/github/probot.ts, `request` below), so nothing is paced or retried twice.
 */

export { type ContentWindow, GITHUB_WRITE_LIMITS, scaleWriteLimits, type WriteLimits } from "./write-pace.js";

export interface WriteRetry {
  /** Further attempts of a write answered 5xx or not answered at all. Default 3. */
  retries: number;
  /** The wait before further attempt n (1-based). Default n² seconds. */
  backoffMs: (retry: number) => number;
  /** Rate-limit answers waited out for one write before it fails. Default 5. */
  limitWaits: number;
  /** The wait after a rate-limit answer that says neither retry-after nor x-ratelimit-reset. Default 60 s. */
  fallbackLimitWaitMs: number;
  /** One attempt's time limit. Default 30 s. */
  timeoutMs: number;
}

export const DEFAULT_WRITE_RETRY: WriteRetry = {
  retries: 3,
  backoffMs: (retry) => retry * retry * 1_000,
  limitWaits: 5,
  fallbackLimitWaitMs: 60_000,
  timeoutMs: 30_000,
};

/** In the order they go: the answer, then 👀, then the final reaction. */
export const WRITE_PRIORITIES = ["answer", "seen", "outcome"] as const;
export type WritePriority = (typeof WRITE_PRIORITIES)[number];

/** `comment` and `reaction` create content; `edit` and `delete` do not. */
export type WriteKind = "comment" | "edit" | "reaction" | "delete";

/** Octokit's per-request options for a scheduled write: no retries of its own, a time limit. */
export interface WriteRequestOptions {
  retries: 0;
  signal: AbortSignal;
}

export interface Write<T> {
  kind: WriteKind;
  priority: WritePriority;
  /** For the log, e.g. "summary comment on acme/widgets#42". */
  what: string;
  /** Makes the request; `request` goes into Octokit's parameters. `attempt` counts from 1. */
  send: (request: WriteRequestOptions, attempt: number) => Promise<T>;
  /** Aborted before it starts, the write is never sent and rejects with WriteCancelled. */
  signal?: AbortSignal;
}

export class WriteCancelled extends Error {
  override name = "WriteCancelled";
}

export interface GitHubWritesOptions {
  logger: Logger;
  limits?: WriteLimits;
  retry?: Partial<WriteRetry>;
  /** Where the app's pace is kept: default this process's memory; replicas share the store's. */
  pace?: WritePaceKeeper;
  /** Told of each rate-limit answer (403 or 429) GitHub gave a write: the metrics count them. */
  onRateLimited?: (status: number) => void;
}

export interface WriteStats {
  /** Writes GitHub accepted. */
  sent: number;
  /** Rate-limit answers met (each stopped every write for its wait). */
  rateLimited: number;
  /** Writes given up (their callers got the error). */
  failed: number;
  /** Writes cancelled before they went. */
  cancelled: number;
}

interface Job {
  write: Write<unknown>;
  seq: number;
  rank: number;
  notBefore: number;
  attempts: number;
  retries: number;
  limitWaits: number;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

const isContent = (kind: WriteKind) => kind === "comment" || kind === "reaction";

interface HttpLikeError {
  status?: number;
  message?: string;
  response?: { headers?: Record<string, string | number | undefined> };
}

export function errorStatus(error: unknown): number | undefined {
  const status = (error as HttpLikeError | undefined)?.status;
  return typeof status === "number" ? status : undefined;
}

/** A 5xx, or no answer at all (Octokit says 500 for a network failure or a timeout). */
export function isServerError(error: unknown): boolean {
  const status = errorStatus(error);
  return status === undefined || status >= 500;
}

/**
 * How long GitHub asks to wait after a 403 or 429 rate-limit answer, in ms; null when the answer is
 * not about a rate limit (a 403 for a missing permission).
 */
export function rateLimitWaitMs(error: unknown, now: number, fallbackMs: number): number | null {
  const status = errorStatus(error);
  if (status !== 403 && status !== 429) return null;
  const headers = (error as HttpLikeError).response?.headers ?? {};
  const header = (name: string) => {
    const value = headers[name];
    return value === undefined ? undefined : String(value);
  };
  const retryAfter = header("retry-after");
  if (retryAfter !== undefined) {
    if (/^\d+$/.test(retryAfter.trim())) return Number(retryAfter) * 1_000;
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const reset = header("x-ratelimit-reset");
  if (header("x-ratelimit-remaining") === "0" && reset !== undefined && /^\d+$/.test(reset)) {
    return Math.max(0, Number(reset) * 1_000 - now);
  }
  const message = (error as HttpLikeError).message ?? "";
  if (status === 429 || /secondary rate limit|abuse/i.test(message)) return fallbackMs;
  return null;
}

/** The kinds of `jobs` as the pace tells them apart, with how many of each. */
function kindsOf(jobs: readonly Job[]): WaitingKind[] {
  const kinds = new Map<string, WaitingKind>();
  for (const job of jobs) {
    const content = isContent(job.write.kind);
    const key = `${job.rank}:${content}`;
    const kind = kinds.get(key) ?? { rank: job.rank, content, count: 0 };
    kind.count += 1;
    kinds.set(key, kind);
  }
  return [...kinds.values()];
}

const kindKey = (kind: { rank: number; content: boolean }) => `${kind.rank}:${kind.content}`;

export class GitHubWrites {
  readonly limits: WriteLimits;
  private readonly retry: WriteRetry;
  private readonly logger: Logger;
  private readonly pace: WritePaceKeeper;
  private readonly queue: Job[] = [];
  private seq = 0;
  /** A write is under way (one at a time per process). */
  private inFlight = false;
  /** The pace is being asked. */
  private asking = false;
  /** The kinds the pace was last asked for, while waiting for the time it gave: none of them can go sooner. */
  private asked: Set<string> | null = null;
  /** The pace holds writes of this process as waiting (cleared when none are left). */
  private published = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly counts: WriteStats = { sent: 0, rateLimited: 0, failed: 0, cancelled: 0 };
  private readonly onRateLimited: ((status: number) => void) | undefined;

  constructor(options: GitHubWritesOptions) {
    this.limits = options.limits ?? GITHUB_WRITE_LIMITS;
    this.retry = { ...DEFAULT_WRITE_RETRY, ...options.retry };
    this.logger = options.logger;
    this.pace = options.pace ?? new LocalWritePace();
    this.onRateLimited = options.onRateLimited;
  }

  /** Queues a write; resolves with its result once sent, or rejects with why it could not be. */
  run<T>(write: Write<T>): Promise<T> {
    if (write.signal?.aborted) {
      this.counts.cancelled += 1;
      return Promise.reject(new WriteCancelled(`${write.what}: cancelled`));
    }
    return new Promise<T>((resolve, reject) => {
      const job: Job = {
        write: write as Write<unknown>,
        seq: this.seq++,
        rank: WRITE_PRIORITIES.indexOf(write.priority),
        notBefore: 0,
        attempts: 0,
        retries: 0,
        limitWaits: 0,
        resolve: resolve as (value: unknown) => void,
        reject,
      };
      this.queue.push(job);
      write.signal?.addEventListener("abort", () => this.pump(), { once: true });
      this.pump();
    });
  }

  /**
   * A read (a GET) within the pace's read side: it waits out a rate-limit answer any replica met (the
   * pace's block, kept in the store), and a rate-limit answer to it holds every replica's writes and reads
   * for its wait. It takes no write's slot (GitHub's second between requests is for writes); how many
   * reads go at once is the caller's bound. Rejects with GitHub's error, or when `signal` aborts the wait.
   */
  async read<T>(what: string, send: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const blockedUntil = await this.pace.update((state) => ({ state, result: state.blockedUntil }));
    const waitMs = blockedUntil - Date.now();
    if (waitMs > 0) await sleep(waitMs, undefined, signal ? { signal } : {});
    try {
      return await send();
    } catch (error) {
      const now = Date.now();
      const limitMs = rateLimitWaitMs(error, now, this.retry.fallbackLimitWaitMs);
      if (limitMs !== null) {
        this.counts.rateLimited += 1;
        this.onRateLimited?.(errorStatus(error) ?? 0);
        this.logger.warn(
          { what, waitMs: limitMs },
          "GitHub's rate limit on a read: no call until it has passed",
        );
        await this.pace
          .update((state) => blockPace(state, now + limitMs))
          .catch((err: unknown) =>
            this.logger.warn({ err }, "could not record GitHub's rate limit in the store"),
          );
      }
      throw error;
    }
  }

  /** Writes waiting (not the one in flight), by priority. */
  get pending(): Record<WritePriority, number> {
    const counts: Record<WritePriority, number> = { answer: 0, seen: 0, outcome: 0 };
    for (const job of this.queue) counts[job.write.priority] += 1;
    return counts;
  }

  get stats(): WriteStats {
    return { ...this.counts };
  }

  private dropCancelled(): void {
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const job = this.queue[i]!;
      if (job.write.signal?.aborted) {
        this.queue.splice(i, 1);
        this.counts.cancelled += 1;
        job.reject(new WriteCancelled(`${job.write.what}: cancelled`));
      }
    }
  }

  private wakeAt(at: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!Number.isFinite(at)) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.asked = null;
        this.pump();
      },
      Math.max(1, at - Date.now()),
    );
    this.timer.unref();
  }

  /**
   * Asks the pace for a start when writes are ready (their retry backoff passed), unless it already
   * said when the same kinds may go; tells it when none are left.
   */
  private pump(): void {
    this.dropCancelled();
    if (this.inFlight || this.asking) return;
    const now = Date.now();
    const ready = this.queue.filter((job) => job.notBefore <= now);
    const backoffEnds = Math.min(...this.queue.filter((job) => job.notBefore > now).map((j) => j.notBefore));
    const kinds = kindsOf(ready);
    if (kinds.length === 0) {
      if (this.published) this.ask([], backoffEnds);
      else this.wakeAt(backoffEnds);
      return;
    }
    if (this.timer && this.asked && kinds.every((k) => this.asked!.has(kindKey(k)))) return;
    this.ask(kinds, backoffEnds);
  }

  private ask(kinds: WaitingKind[], backoffEnds: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.asking = true;
    const { replica } = this.pace;
    // The time is read once the pace is held: a replica that waited for another's transaction must not
    // take a start as of before it waited.
    this.pace
      .update((state) => askPace(state, { replica, now: Date.now(), kinds }, this.limits))
      .then(
        (answer) => {
          this.asking = false;
          const waiting = kinds.reduce((sum, k) => sum + k.count, 0) - ("go" in answer ? 1 : 0);
          this.published = waiting > 0;
          this.answered(answer, kinds, backoffEnds);
        },
        (error: unknown) => {
          this.asking = false;
          this.logger.warn({ err: error }, "could not ask the store for the GitHub write pace; asking again");
          this.wakeAt(Date.now() + Math.max(1_000, this.limits.intervalMs));
        },
      );
  }

  private answered(answer: PaceAnswer, kinds: WaitingKind[], backoffEnds: number): void {
    this.dropCancelled();
    if ("go" in answer) {
      // The best write ready that the start allows (a start for content allows any write).
      const now = Date.now();
      let best: Job | undefined;
      for (const job of this.queue) {
        if (job.notBefore > now || (!answer.go.content && isContent(job.write.kind))) continue;
        if (!best || job.rank < best.rank || (job.rank === best.rank && job.seq < best.seq)) best = job;
      }
      if (best) this.start(best);
      else this.pump();
      return;
    }
    this.asked = new Set(kinds.map(kindKey));
    this.wakeAt(Math.min(answer.askAt, backoffEnds));
    // Writes of another kind may have come while the pace was asked.
    this.pump();
  }

  private start(job: Job): void {
    this.queue.splice(this.queue.indexOf(job), 1);
    this.inFlight = true;
    this.asked = null;
    job.attempts += 1;
    const request: WriteRequestOptions = { retries: 0, signal: AbortSignal.timeout(this.retry.timeoutMs) };
    let sent: Promise<unknown>;
    try {
      sent = job.write.send(request, job.attempts);
    } catch (error) {
      sent = Promise.reject(error);
    }
    sent
      .then(
        (value) => {
          this.counts.sent += 1;
          job.resolve(value);
        },
        (error: unknown) => this.failed(job, error),
      )
      .finally(() => {
        this.inFlight = false;
        this.pump();
      });
  }

  private async failed(job: Job, error: unknown): Promise<void> {
    const now = Date.now();
    const { what } = job.write;
    const status = errorStatus(error);
    const waitMs = rateLimitWaitMs(error, now, this.retry.fallbackLimitWaitMs);
    if (waitMs !== null) {
      this.counts.rateLimited += 1;
      this.onRateLimited?.(status ?? 0);
      // Every replica waits, not only this one; recorded before this write asks for a start again.
      await this.pace
        .update((state) => blockPace(state, now + waitMs))
        .catch((err: unknown) => {
          this.logger.warn({ err }, "could not record GitHub's rate limit in the store");
          job.notBefore = Math.max(job.notBefore, now + waitMs);
        });
      if (job.limitWaits < this.retry.limitWaits) {
        job.limitWaits += 1;
        this.logger.warn({ what, status, waitMs }, "GitHub's rate limit: no write until it has passed");
        this.queue.push(job);
        return;
      }
    } else if (isServerError(error) && job.retries < this.retry.retries) {
      job.retries += 1;
      const backoffMs = this.retry.backoffMs(job.retries);
      job.notBefore = now + backoffMs;
      this.logger.warn(
        { what, status, err: error, attempt: job.attempts, backoffMs },
        "GitHub write failed; trying again",
      );
      this.queue.push(job);
      return;
    }
    this.counts.failed += 1;
    job.reject(error);
  }
}
