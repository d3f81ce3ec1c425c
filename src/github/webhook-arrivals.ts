/** How long without a webhook arriving counts as the end of a burst. */
export const WEBHOOK_LULL_MS = 50;

/** A job waiting for a lull (webhook-jobs.ts): resolved at the lull, or at its deadline at the latest. */
interface Waiter {
  deadline: number;
  resolve: () => void;
}

/**
 * The webhooks this process is receiving: a request counts from its arrival until its answer is sent.
 * Jobs wait for a lull (none being received, none arrived for `WEBHOOK_LULL_MS`), each at most its own
 * `maxMs`. One timer checks on all the waiting jobs, every `WEBHOOK_LULL_MS` or at the soonest deadline.
 */
export class WebhookArrivals {
  private receiving = 0;
  private lastArrival = Number.NEGATIVE_INFINITY;
  private readonly waiting = new Set<Waiter>();
  /** The one timer of the waiting jobs, and when (on `now`) it fires; null when none waits. */
  private timer: { handle: ReturnType<typeof setTimeout>; at: number } | null = null;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** A webhook arrived; the function returned says it was answered (once, however often it is called). */
  begin(): () => void {
    this.receiving += 1;
    this.lastArrival = this.now();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.receiving -= 1;
    };
  }

  /** Whether no webhook is being received and none arrived within `WEBHOOK_LULL_MS`. */
  get lull(): boolean {
    return this.receiving === 0 && this.now() - this.lastArrival >= WEBHOOK_LULL_MS;
  }

  /** Resolves at the next lull, or after `maxMs`. */
  quiet(maxMs: number): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.add({ deadline: this.now() + maxMs, resolve });
      this.check();
    });
  }

  /**
   * Resolves every waiting job at a lull, and those whose deadline passed; then sets the timer to look
   * again within `WEBHOOK_LULL_MS`, or at the soonest deadline if that comes first.
   */
  private check(): void {
    const now = this.now();
    const lull = this.lull;
    for (const waiter of this.waiting) {
      if (!lull && waiter.deadline > now) continue;
      this.waiting.delete(waiter);
      waiter.resolve();
    }
    if (this.waiting.size === 0) {
      this.stopTimer();
      return;
    }
    const soonest = Math.min(...[...this.waiting].map((w) => w.deadline));
    const at = Math.min(soonest, now + WEBHOOK_LULL_MS);
    if (this.timer && this.timer.at <= at) return;
    this.stopTimer();
    const handle = setTimeout(() => {
      this.timer = null;
      this.check();
    }, at - now);
    handle.unref();
    this.timer = { handle, at };
  }

  private stopTimer(): void {
    if (this.timer) clearTimeout(this.timer.handle);
    this.timer = null;
  }
}
