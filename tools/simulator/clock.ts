// Clocks of the simulator. Every timestamp the simulator produces comes from its clock.
// - manual: time stands still until `advance(ms)`; advancing runs every due engine step in time order,
//   each at its exact due time, so a test is deterministic.
// - real: time follows the wall clock (plus any `advance` offset); a timer runs the due steps.

/** What a clock drives: the engine tells when its next step is due and runs the steps due by a time. */
export interface ClockDriver {
  nextDueAt(): number | null;
  runDue(at: number): void;
}

export type ClockKind = "manual" | "real";

export interface Clock {
  readonly kind: ClockKind;
  /** Current time, epoch milliseconds. */
  now(): number;
  /** Current time, ISO 8601. */
  nowIso(): string;
  /** Moves time forward by `ms` (>= 0), running every engine step that falls due on the way. */
  advance(ms: number): void;
  /** Runs the steps already due (e.g. after a change to the queues). */
  sync(): void;
  /** Attaches the engine the clock drives (done once by the simulator). */
  attach(driver: ClockDriver): void;
}

const MAX_STEPS_PER_ADVANCE = 1_000_000;

abstract class BaseClock implements Clock {
  abstract readonly kind: ClockKind;
  private driver: ClockDriver | null = null;
  private running = false;

  protected abstract current(): number;
  protected abstract shift(ms: number): void;

  now(): number {
    return this.current();
  }

  nowIso(): string {
    return new Date(this.current()).toISOString();
  }

  attach(driver: ClockDriver): void {
    this.driver = driver;
  }

  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`cannot advance the clock by ${ms} ms`);
    const target = this.current() + ms;
    this.runUntil(target);
    const rest = target - this.current();
    if (rest > 0) this.shift(rest);
    this.sync();
  }

  sync(): void {
    this.runUntil(this.current());
  }

  private runUntil(target: number): void {
    const driver = this.driver;
    if (driver === null || this.running) return;
    this.running = true;
    try {
      for (let i = 0; i < MAX_STEPS_PER_ADVANCE; i++) {
        const due = driver.nextDueAt();
        if (due === null || due > target) break;
        const now = this.current();
        if (due > now) this.shift(due - now);
        driver.runDue(this.current());
      }
      driver.runDue(this.current());
    } finally {
      this.running = false;
    }
  }
}

export class ManualClock extends BaseClock {
  readonly kind = "manual" as const;
  private time: number;

  constructor(start: number = Math.floor(Date.now() / 1000) * 1000) {
    super();
    this.time = start;
  }

  protected current(): number {
    return this.time;
  }

  protected shift(ms: number): void {
    this.time += ms;
  }
}

export class RealClock extends BaseClock {
  readonly kind = "real" as const;
  private offset = 0;
  private timer: NodeJS.Timeout | null = null;

  protected current(): number {
    return Date.now() + this.offset;
  }

  protected shift(ms: number): void {
    this.offset += ms;
  }

  /** Runs the due steps every `intervalMs` until `stop()`. */
  start(intervalMs = 1000, onError?: (error: unknown) => void): void {
    this.stop();
    this.timer = setInterval(() => {
      try {
        this.sync();
      } catch (error) {
        onError?.(error);
      }
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }
}
