import { describe, expect, it } from "vitest";
import { Backoffs, nextDelayMs } from "../../src/notifier/backoff.js";
import { openStore } from "../../src/store/index.js";

describe("backoff", () => {
  const policy = { baseMs: 1_000, maxMs: 8_000 };

  it("doubles up to the maximum, with at most 20% jitter below", () => {
    expect([1, 2, 3, 4, 5, 9].map((n) => nextDelayMs(n, policy, () => 1))).toEqual([
      1_000, 2_000, 4_000, 8_000, 8_000, 8_000,
    ]);
    expect(nextDelayMs(1, policy, () => 0)).toBe(800);
  });

  it("holds a key until its next attempt, honours a minimum wait, and clears on success", async () => {
    const store = await openStore({ kind: "sqlite", path: ":memory:" });
    const backoffs = new Backoffs(store, policy);
    const t0 = new Date("2026-01-01T00:00:00Z");
    const first = await backoffs.fail("repo:acme/widgets", "403", t0);
    expect(first.failures).toBe(1);
    expect(await backoffs.active("repo:acme/widgets", new Date(t0.getTime() + 500))).not.toBeNull();
    expect(await backoffs.active("repo:acme/widgets", new Date(t0.getTime() + 1_001))).toBeNull();
    const second = await backoffs.fail("repo:acme/widgets", "403", t0, 30_000);
    expect(second).toMatchObject({ failures: 2, nextAttemptAt: new Date(t0.getTime() + 30_000) });
    await backoffs.succeed("repo:acme/widgets");
    expect(await store.getBackoff("repo:acme/widgets")).toBeNull();
    await store.close();
  });
});
