import { beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../../src/store/index.js";
import { at, SECOND, storeContract } from "./harness.js";

storeContract("durable work", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  const LEASE = 30 * SECOND;
  const claim = (owner: string, ms: number, limit = 10, kind = "job") =>
    store.claimWork({ kind, owner, now: at(ms), leaseMs: LEASE, limit });
  const keys = (work: { claimed: { key: string }[] }) => work.claimed.map((item) => item.key);
  const schedule = (key: string, ms: number, extra: Partial<Parameters<Store["scheduleWork"]>[0]> = {}) =>
    store.scheduleWork({ kind: "job", key, dueAt: at(ms), ...extra });

  describe("scheduling and claiming", () => {
    it("claims only what is due, the earliest first, and says when the next is due", async () => {
      await schedule("late", 5_000, { payload: { n: 1 } });
      await schedule("soon", 1_000);
      await schedule("now", 0);
      await store.scheduleWork({ kind: "other", key: "now", dueAt: at(0) });
      const first = await claim("a", 1_000);
      expect(keys(first)).toEqual(["now", "soon"]);
      expect(first.nextDueAt).toEqual(at(5_000));
      const late = await claim("a", 5_000);
      expect(late.claimed[0]).toMatchObject({ key: "late", payload: { n: 1 }, claimedBy: "a", attempts: 0 });
      expect(late.claimed[0]?.claimedUntil).toEqual(at(5_000 + LEASE));
    });

    it("claims at most the limit, and then says nothing of the next", async () => {
      for (const key of ["a", "b", "c"]) await schedule(key, 0);
      const two = await claim("x", 0, 2);
      expect(two.claimed).toHaveLength(2);
      expect(two.nextDueAt).toBeNull();
      expect(keys(await claim("y", 0, 2))).toHaveLength(1);
    });

    it("claims one item by its key when it is due and free, for a replica running it at once", async () => {
      await schedule("mine", 0);
      await schedule("other", 0);
      await schedule("later", 5_000);
      const one = (owner: string, key: string) =>
        store.claimWork({ kind: "job", owner, now: at(0), leaseMs: LEASE, limit: 1, key });
      const [a, b] = await Promise.all([one("a", "mine"), one("b", "mine")]);
      expect([...keys(a), ...keys(b)]).toEqual(["mine"]);
      expect(keys(await one("a", "later"))).toEqual([]);
      expect(keys(await claim("c", 0))).toEqual(["other"]);
    });

    it("keeps the earlier time and merges the payload when asked sooner; `absent` makes one only once", async () => {
      await schedule("k", 10_000, { payload: { a: 1, b: 1 } });
      await schedule("k", 20_000, { when: "earlier", payload: { b: 2 } });
      const item = await schedule("k", 5_000, { when: "earlier", payload: { c: 3 } });
      expect(item).toMatchObject({ dueAt: at(5_000), payload: { a: 1, b: 2, c: 3 } });
      expect(await schedule("k", 0, { when: "absent" })).toBeNull();
      expect(await schedule("none", 0, { when: "earlier", existingOnly: true })).toBeNull();
      expect(keys(await claim("a", 0))).toEqual([]);
    });
  });

  describe("an item made claimed", () => {
    it("is its maker's until the claim lapses, then any replica's; one kept is not claimed again", async () => {
      const made = await schedule("k", 0, { when: "absent", claim: { owner: "a", until: at(LEASE) } });
      expect(made).toMatchObject({ key: "k", claimedBy: "a", claimedUntil: at(LEASE), dueAt: at(LEASE) });
      expect(await schedule("k", 0, { when: "absent", claim: { owner: "b", until: at(LEASE) } })).toBeNull();
      const before = await claim("b", LEASE - 1);
      expect(keys(before)).toEqual([]);
      expect(before.nextDueAt).toEqual(at(LEASE));
      expect(await store.renewWork("job", "k", "a", at(2 * LEASE))).toBe(true);
      expect(keys(await claim("b", LEASE))).toEqual([]);
      expect(keys(await claim("b", 2 * LEASE))).toEqual(["k"]);
      expect(await store.renewWork("job", "k", "a", at(3 * LEASE))).toBe(false);
      expect(await store.completeWork("b", [{ kind: "job", key: "k", next: null }])).toEqual([true]);
      expect(keys(await claim("c", 10 * LEASE))).toEqual([]);
    });
  });

  describe("two replicas", () => {
    it("never claims an item twice, however the claims interleave", async () => {
      const all = Array.from({ length: 40 }, (_, i) => `item-${String(i).padStart(2, "0")}`);
      for (const key of all) await schedule(key, 0);
      const claims = await Promise.all(["a", "b", "a", "b", "a", "b"].map((owner) => claim(owner, 0, 8)));
      const claimed = claims.flatMap(keys);
      expect(new Set(claimed).size).toBe(claimed.length);
      const rest = keys(await claim("c", 0, 100));
      expect([...claimed, ...rest].sort()).toEqual(all);
    });

    it("takes over an item whose claim lapsed (its replica stopped renewing), and the old owner loses it", async () => {
      await schedule("k", 0);
      expect(keys(await claim("a", 0))).toEqual(["k"]);
      expect(await store.renewWork("job", "k", "a", at(10_000 + LEASE))).toBe(true);
      // Renewed: not claimable before the renewed end, by anyone.
      expect(keys(await claim("b", LEASE + 1_000))).toEqual([]);
      // Then "a" stops renewing (killed): once the claim has lapsed, "b" takes it over.
      const taken = await claim("b", 10_000 + LEASE);
      expect(keys(taken)).toEqual(["k"]);
      expect(await store.renewWork("job", "k", "a", at(20_000 + LEASE))).toBe(false);
      expect(await store.completeWork("a", [{ kind: "job", key: "k", next: null }])).toEqual([false]);
      expect(await store.failWork("job", "k", "a", { error: "x", retryAt: at(0) })).toBeNull();
      expect(await store.completeWork("b", [{ kind: "job", key: "k", next: null }])).toEqual([true]);
      expect(keys(await claim("c", 100_000))).toEqual([]);
    });
  });

  describe("completion", () => {
    it("schedules the next run with the payload merged, or removes a done item", async () => {
      await schedule("again", 0, { payload: { a: 1 } });
      await schedule("once", 0);
      await claim("a", 0);
      expect(
        await store.completeWork("a", [
          { kind: "job", key: "again", next: { dueAt: at(60_000), payload: { b: 2 } } },
        ]),
      ).toEqual([true]);
      expect(await store.completeWork("a", [{ kind: "job", key: "once", next: null }])).toEqual([true]);
      expect(keys(await claim("a", 59_000))).toEqual([]);
      const next = await claim("a", 60_000);
      expect(next.claimed[0]).toMatchObject({ key: "again", payload: { a: 1, b: 2 } });
    });

    it("runs again after this run when asked for while it ran (a done item is kept for it)", async () => {
      await schedule("k", 0);
      await claim("a", 0);
      await schedule("k", 2_000, { when: "earlier", existingOnly: true });
      // Not while it runs.
      expect(keys(await claim("b", 2_000))).toEqual([]);
      expect(await store.completeWork("a", [{ kind: "job", key: "k", next: null }])).toEqual([true]);
      expect(keys(await claim("b", 2_000))).toEqual(["k"]);
      await store.completeWork("b", [{ kind: "job", key: "k", next: { dueAt: at(600_000) } }]);
      await claim("b", 600_000);
      await schedule("k", 601_000, { when: "earlier", existingOnly: true });
      await store.completeWork("b", [{ kind: "job", key: "k", next: { dueAt: at(900_000) } }]);
      expect(keys(await claim("c", 601_000))).toEqual(["k"]);
    });

    it("completes many runs in one call, each as it would alone, and says which were still the owner's", async () => {
      for (const key of ["later", "sooner", "done", "asked", "lost"])
        await schedule(key, 0, { payload: { v: 1 } });
      await claim("a", 0, 10);
      await schedule("sooner", 3_000, { when: "earlier", existingOnly: true });
      await schedule("asked", 4_000, { when: "earlier", existingOnly: true });
      await schedule("lost", 0, { payload: { v: 9 } });
      const mine = await store.completeWork("a", [
        { kind: "job", key: "later", next: { dueAt: at(60_000), payload: { w: 2 } } },
        { kind: "job", key: "sooner", next: { dueAt: at(60_000) } },
        { kind: "job", key: "done", next: null },
        { kind: "job", key: "asked", next: null },
        { kind: "job", key: "lost", next: { dueAt: at(60_000), payload: { w: 3 } } },
      ]);
      expect(mine).toEqual([true, true, true, true, false]);
      // "lost" was replaced while it ran (its claim dropped): due at once, as replaced, with its own payload.
      expect((await claim("b", 0)).claimed.map((i) => [i.key, i.payload])).toEqual([["lost", { v: 9 }]]);
      expect(keys(await claim("b", 4_000))).toEqual(["asked", "sooner"]);
      await store.completeWork("b", [
        { kind: "job", key: "asked", next: null },
        { kind: "job", key: "sooner", next: null },
        { kind: "job", key: "lost", next: null },
      ]);
      const later = await claim("c", 60_000);
      expect(later.claimed.map((i) => [i.key, i.payload])).toEqual([["later", { v: 1, w: 2 }]]);
    });

    it("drops a run's claim when the item is replaced: the run can neither renew nor complete it", async () => {
      await schedule("k", 0, { payload: { v: 1 } });
      await claim("a", 0);
      await schedule("k", 5_000, { payload: { v: 2 } });
      expect(await store.renewWork("job", "k", "a", at(LEASE * 2))).toBe(false);
      expect(await store.completeWork("a", [{ kind: "job", key: "k", next: null }])).toEqual([false]);
      expect((await claim("b", 5_000)).claimed[0]).toMatchObject({ key: "k", payload: { v: 2 } });
    });
  });

  describe("failures", () => {
    it("counts failures in a row, keeps the error, retries at the time given, and forgets them on success", async () => {
      await schedule("k", 0);
      await claim("a", 0);
      expect(await store.failWork("job", "k", "a", { error: "boom", retryAt: at(2_000) })).toBe(1);
      expect(keys(await claim("a", 1_999))).toEqual([]);
      const retried = await claim("a", 2_000);
      expect(retried.claimed[0]).toMatchObject({ attempts: 1, lastError: "boom" });
      expect(await store.failWork("job", "k", "a", { error: "boom again", retryAt: at(6_000) })).toBe(2);
      const third = await claim("a", 6_000);
      expect(third.claimed[0]).toMatchObject({ attempts: 2, lastError: "boom again" });
      await store.completeWork("a", [{ kind: "job", key: "k", next: { dueAt: at(10_000) } }]);
      expect((await claim("a", 10_000)).claimed[0]).toMatchObject({ attempts: 0, lastError: null });
    });

    it("keeps a failed run's backoff even when the item was asked for again while it ran", async () => {
      await schedule("k", 0);
      await claim("a", 0);
      await schedule("k", 500, { when: "earlier" });
      expect(await store.failWork("job", "k", "a", { error: "store down", retryAt: at(5_000) })).toBe(1);
      expect(keys(await claim("a", 4_999))).toEqual([]);
      expect(keys(await claim("a", 5_000))).toEqual(["k"]);
    });

    it("keeps an item that always fails, and it never holds back the others", async () => {
      await schedule("bad", 0);
      let retryAt = 0;
      for (let attempt = 1; attempt <= 6; attempt += 1) {
        for (const key of ["good-1", "good-2"]) await schedule(key, retryAt);
        const pass = await claim("a", retryAt, 2);
        // The failing item is one of the due ones, not in front of them all.
        expect(keys(pass).filter((key) => key.startsWith("good")).length).toBeGreaterThanOrEqual(1);
        const rest = await claim("a", retryAt, 10);
        const ran = [...keys(pass), ...keys(rest)];
        expect(ran.sort()).toEqual(["bad", "good-1", "good-2"]);
        for (const key of ["good-1", "good-2"])
          await store.completeWork("a", [{ kind: "job", key: key, next: null }]);
        retryAt += 1_000 * 2 ** attempt;
        expect(await store.failWork("job", "bad", "a", { error: "always", retryAt: at(retryAt) })).toBe(
          attempt,
        );
      }
      const kept = await claim("b", retryAt);
      expect(kept.claimed[0]).toMatchObject({ key: "bad", attempts: 6, lastError: "always" });
    });
  });
});
