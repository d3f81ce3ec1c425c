import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { WEBHOOK_LULL_MS, WebhookArrivals } from "../../src/github/webhook-jobs.js";

let now: number;
let arrivals: WebhookArrivals;

beforeEach(() => {
  vi.useFakeTimers();
  now = 1_000;
  arrivals = new WebhookArrivals(() => now);
});
afterEach(() => vi.useRealTimers());

/** Moves the clock of `now` and of the timers together. */
async function pass(ms: number): Promise<void> {
  now += ms;
  await vi.advanceTimersByTimeAsync(ms);
}

/** Whether the promise settled yet. */
function tracked(promise: Promise<void>): () => boolean {
  let settled = false;
  void promise.then(() => (settled = true));
  return () => settled;
}

describe("webhook arrivals: jobs let a burst of webhooks be answered first", () => {
  it("is quiet at once when no webhook ever arrived", async () => {
    const quiet = tracked(arrivals.quiet(2_000));
    await vi.advanceTimersByTimeAsync(0);
    expect(quiet()).toBe(true);
  });

  it("waits while a webhook is being received, then for a lull after the last one", async () => {
    const answered = arrivals.begin();
    const quiet = tracked(arrivals.quiet(2_000));
    await pass(500);
    expect(quiet()).toBe(false);
    answered();
    answered(); // twice counts once
    // Another arrives and is answered within the lull: still a burst.
    await pass(WEBHOOK_LULL_MS / 2);
    arrivals.begin()();
    await pass(WEBHOOK_LULL_MS / 2);
    expect(quiet()).toBe(false);
    await pass(WEBHOOK_LULL_MS);
    expect(quiet()).toBe(true);
    expect(arrivals.lull).toBe(true);
  });

  it("never waits longer than asked, however long the stream of webhooks lasts", async () => {
    arrivals.begin();
    const quiet = tracked(arrivals.quiet(2_000));
    await pass(1_950);
    expect(quiet()).toBe(false);
    await pass(100);
    expect(quiet()).toBe(true);
    expect(arrivals.lull).toBe(false);
  });

  it("keeps one timer for all the waiting jobs, each resolved at its own deadline, all at the lull", async () => {
    const answered = arrivals.begin();
    const first = tracked(arrivals.quiet(2_000));
    await pass(500);
    const second = tracked(arrivals.quiet(2_000));
    const short = tracked(arrivals.quiet(WEBHOOK_LULL_MS / 5));
    expect(vi.getTimerCount()).toBe(1);
    await pass(WEBHOOK_LULL_MS / 5);
    expect([first(), second(), short()]).toEqual([false, false, true]);
    await pass(1_500);
    expect([first(), second()]).toEqual([true, false]);
    expect(vi.getTimerCount()).toBe(1);
    answered();
    await pass(WEBHOOK_LULL_MS);
    expect(second()).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});
