/**
 * Faults the Web API plays on demand. Each one applies to the next `count` calls of a method
 * (`"*"` matches every method), in the order they were set, then is gone.
 */

export type FaultOutcome =
  | { kind: "rate_limit"; retryAfterSeconds: number }
  | { kind: "error"; error: string }
  | { kind: "delay"; ms: number }
  /**
   * The call is carried out at once, and its answer sent `ms` later (a caller killed meanwhile never
   * hears it). `taken` runs as soon as it took effect, before any answer (a test stops its caller there).
   */
  | { kind: "answer_delay"; ms: number; taken?: () => void };

interface PendingFault {
  method: string;
  remaining: number;
  outcome: FaultOutcome;
}

export class SlackFaults {
  private pending: PendingFault[] = [];

  /** HTTP 429, `Retry-After: <retryAfterSeconds>`, `{"ok": false, "error": "ratelimited"}`. */
  rateLimit(method: string, options: { count?: number; retryAfterSeconds?: number } = {}): void {
    this.add(method, options.count ?? 1, {
      kind: "rate_limit",
      retryAfterSeconds: options.retryAfterSeconds ?? 1,
    });
  }

  /** HTTP 200, `{"ok": false, "error": error}`. */
  fail(method: string, error: string, count = 1): void {
    this.add(method, count, { kind: "error", error });
  }

  /** The answer comes `ms` later (combines with a rate limit or failure set for the same call). */
  delay(method: string, ms: number, count = 1): void {
    this.add(method, count, { kind: "delay", ms });
  }

  /**
   * The call takes effect at once (a message is posted), but its answer comes `ms` later; `taken` is
   * called as soon as it took effect.
   */
  delayAnswer(method: string, ms: number, count = 1, taken?: () => void): void {
    this.add(method, count, { kind: "answer_delay", ms, ...(taken ? { taken } : {}) });
  }

  clear(): void {
    this.pending = [];
  }

  /** Faults not used up yet. */
  remaining(): Array<{ method: string; remaining: number; outcome: FaultOutcome }> {
    return this.pending.map((fault) => ({ ...fault, outcome: { ...fault.outcome } }));
  }

  /** Stand-in internal: uses up the faults that apply to one call of `method`. */
  take(method: string): {
    delayMs: number;
    answerDelayMs?: number;
    taken?: () => void;
    outcome?: Exclude<FaultOutcome, { kind: "delay" | "answer_delay" }>;
  } {
    let delayMs = 0;
    let answerDelayMs = 0;
    let taken: (() => void) | undefined;
    let outcome: Exclude<FaultOutcome, { kind: "delay" | "answer_delay" }> | undefined;
    for (const fault of this.pending) {
      if (fault.method !== method && fault.method !== "*") continue;
      if (fault.outcome.kind === "delay") {
        if (delayMs > 0) continue;
        delayMs = fault.outcome.ms;
      } else if (fault.outcome.kind === "answer_delay") {
        if (answerDelayMs > 0) continue;
        answerDelayMs = fault.outcome.ms;
        taken = fault.outcome.taken;
      } else {
        if (outcome) continue;
        outcome = fault.outcome;
      }
      fault.remaining -= 1;
    }
    this.pending = this.pending.filter((fault) => fault.remaining > 0);
    const answer = answerDelayMs > 0 ? { answerDelayMs, ...(taken ? { taken } : {}) } : {};
    return outcome ? { delayMs, ...answer, outcome } : { delayMs, ...answer };
  }

  private add(method: string, count: number, outcome: FaultOutcome): void {
    if (!(count > 0)) throw new Error(`Slack stand-in: fault count must be positive, got ${count}`);
    this.pending.push({ method, remaining: count, outcome });
  }
}
