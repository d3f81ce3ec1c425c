import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Periodic } from "../src/periodic.js";

describe("Periodic, a background pass every so often", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("runs a pass every interval after the last ended, and reports a failed pass without stopping", async () => {
    const errors: unknown[] = [];
    let passes = 0;
    const periodic = new Periodic(
      async () => {
        passes += 1;
        if (passes === 2) throw new Error("store down");
      },
      1_000,
      (error) => errors.push(error),
    );
    periodic.start();
    periodic.start(); // a second start changes nothing
    await vi.advanceTimersByTimeAsync(999);
    expect(passes).toBe(0);
    await vi.advanceTimersByTimeAsync(2_001);
    expect(passes).toBe(3);
    expect(errors.map((e) => (e as Error).message)).toEqual(["store down"]);
    await periodic.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(passes).toBe(3);
  });

  it("waits for a pass under way when stopped", async () => {
    let release!: () => void;
    let ended = false;
    const periodic = new Periodic(
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }).then(() => {
          ended = true;
        }),
      100,
      () => {},
    );
    periodic.start();
    await vi.advanceTimersByTimeAsync(100);
    let stopped = false;
    const stopping = periodic.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(ended).toBe(true);
  });
});
