/**
 * Long work cut into turns of the event loop. SQLite's driver is synchronous: a loop of `await`s on its
 * queries never gives the event loop back (each promise is already settled), so a backlog's thousands
 * of writes would run as one task, and nothing else (a /healthz request, a timer, a Slack answer) would
 * run until they end. Such a loop awaits `Turns.next()` between two steps: once a turn has run
 * TURN_BUDGET_MS, it lets the event loop run what waits (setImmediate), then goes on.
 */

/** How long one turn of a long loop runs before it gives the event loop back. */
export const TURN_BUDGET_MS = 20;

/** Lets the event loop run what waits (timers, I/O), then resolves. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

const WITHIN_BUDGET = Promise.resolve();

export class Turns {
  private startedAt = performance.now();

  constructor(private readonly budgetMs = TURN_BUDGET_MS) {}

  /**
   * Resolves at once while this turn is within its budget (the same settled promise, nothing made);
   * otherwise after the event loop has run.
   */
  next(): Promise<void> {
    if (performance.now() - this.startedAt < this.budgetMs) return WITHIN_BUDGET;
    return yieldToEventLoop().then(() => {
      this.startedAt = performance.now();
    });
  }
}
