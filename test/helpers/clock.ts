/**
 * Where the clocks the tests control start: `TEST_NOW`, an ISO 8601 instant with its zone
 * (`TEST_NOW=2026-12-31T23:59:00Z npm run test:clocks`), else the real time, to the second, when asked.
 * The end-to-end world's clock (the merge-queue simulator's, which Yardmaster's notifier, timed pauses,
 * digests, stats and answers run on) starts there; a test that needs "now" without a world asks here.
 * Unset, each run starts at a different hour: the suite must pass at any of them, and TEST_NOW replays
 * the ones that matter (22:30 UTC, the last minute of a year, a daylight-saving change day).
 */
export function testNow(env: NodeJS.ProcessEnv = process.env): Date {
  const given = env.TEST_NOW?.trim();
  if (!given) return new Date(Math.floor(Date.now() / 1000) * 1000);
  // An instant, not a local time: the zone (Z or ±hh:mm) is required, so a run means the same anywhere.
  const at = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(given)
    ? Date.parse(given)
    : NaN;
  if (Number.isNaN(at))
    throw new Error(
      `TEST_NOW must be an ISO 8601 instant with its time zone, for example 2026-12-31T23:59:00Z; got "${given}"`,
    );
  return new Date(at);
}

/**
 * Moves this process's system clock (`Date`, `Date.now()`) to `to`, from where it goes on at the real
 * pace; timers are untouched. For tests of code that reads the system clock itself (unit tests, under
 * TEST_NOW: test/setup-clock.ts): as if the machine's clock said `to`. Returns the undo.
 */
export function shiftSystemClock(to: Date): () => void {
  const RealDate = globalThis.Date;
  const offset = to.getTime() - RealDate.now();
  class ShiftedDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(RealDate.now() + offset);
      else super(...(args as [number]));
    }
    static override now(): number {
      return RealDate.now() + offset;
    }
    // Dates made before the shift, or by Node itself, are dates still.
    static override [Symbol.hasInstance](value: unknown): boolean {
      return value instanceof RealDate;
    }
  }
  globalThis.Date = ShiftedDate as DateConstructor;
  return () => {
    globalThis.Date = RealDate;
  };
}
