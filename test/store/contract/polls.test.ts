import { beforeEach, describe, expect, it } from "vitest";
import { POLL_KIND, type Store } from "../../../src/store/index.js";
import { at, DAY, HOUR, r, SECOND, storeContract } from "./harness.js";

// A repository's reads are durable work of kind `poll` (work-items.test.ts: its claims, takeover and
// backoff); here, what the store keeps of them: made and removed with the subscriptions, the schedule and
// the cursor read back from the item, the doorbell's watch's two queries.
storeContract("polls", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  const subscribe = (repo: string, channelId = "C1") =>
    store.putSubscription({
      channelId,
      teamId: "T1",
      repository: r(repo),
      branchGlob: null,
      groups: ["queue"],
      createdBy: "U1",
      createdAt: at(0),
    });
  const claim = (owner: string, ms: number, limit = 10) =>
    store.claimWork({ kind: POLL_KIND, owner, now: at(ms), leaseMs: 10 * SECOND, limit });
  /** Ends `owner`'s read of `repo` with its next one at `nextMs` and `payload`. */
  const finish = (repo: string, owner: string, nextMs: number, payload: Record<string, unknown> = {}) =>
    store.completeWork(owner, [
      {
        kind: POLL_KIND,
        key: r(repo).key,
        next: {
          dueAt: at(nextMs),
          payload: { cadence: "interval", lastReadAt: at(0).toISOString(), ...payload },
        },
      },
    ]);

  describe("poll schedule", () => {
    it("makes a newly subscribed repository due at once, and forgets it with its last subscription", async () => {
      expect((await claim("a", 0)).claimed).toEqual([]);
      await subscribe("Acme/Widgets");
      await subscribe("acme/widgets", "C2");
      const [poll, ...others] = (await claim("a", 0)).claimed;
      expect(others).toEqual([]);
      expect(poll).toMatchObject({
        key: r("acme/widgets").key,
        payload: { repository: "Acme/Widgets", cadence: "new" },
        claimedBy: "a",
      });
      expect(await store.getPollSchedule(r("ACME/widgets"))).toMatchObject({
        repository: r("Acme/Widgets"),
        cadence: "new",
        claimedBy: "a",
        claimedUntil: at(10 * SECOND),
        nextPollAt: at(10 * SECOND),
        lastReadAt: null,
        failures: 0,
      });
      await store.deleteSubscription("C1", r("acme/widgets"));
      expect(await store.getPollSchedule(r("acme/widgets"))).not.toBeNull();
      await store.deleteSubscription("C2", r("ACME/widgets"));
      expect(await store.getPollSchedule(r("acme/widgets"))).toBeNull();
      expect((await claim("b", HOUR)).claimed).toEqual([]);
    });

    it("reads the schedule back from the item: the doorbell, the activity, the last read, the failures", async () => {
      await subscribe("acme/widgets");
      await claim("a", 0);
      await finish("acme/widgets", "a", 15 * SECOND, {
        rungAt: at(-1).toISOString(),
        recheckAt: at(5 * SECOND).toISOString(),
        activeUntil: at(HOUR).toISOString(),
      });
      expect(await store.getPollSchedule(r("acme/widgets"))).toMatchObject({
        cadence: "interval",
        nextPollAt: at(15 * SECOND),
        doorbellAt: at(-1),
        recheckAt: at(5 * SECOND),
        activeUntil: at(HOUR),
        lastReadAt: at(0),
        claimedBy: null,
      });
      await claim("a", 15 * SECOND);
      await store.failWork(POLL_KIND, r("acme/widgets").key, "a", { error: "503", retryAt: at(HOUR) });
      expect(await store.getPollSchedule(r("acme/widgets"))).toMatchObject({
        cadence: "retry",
        failures: 1,
        lastError: "503",
        nextPollAt: at(HOUR),
      });
    });

    it("lists the repositories waiting the idle period, and brings the named ones forward to the interval", async () => {
      for (const repo of ["acme/a", "acme/b", "other/c", "acme/d"]) await subscribe(repo);
      expect((await claim("a", 0)).claimed).toHaveLength(4);
      await finish("acme/a", "a", HOUR, { cadence: "idle" });
      await finish("acme/b", "a", 10 * SECOND, { cadence: "idle" });
      await finish("other/c", "a", HOUR, { cadence: "idle" });
      await finish("acme/d", "a", HOUR);
      expect((await store.listIdlePolls()).map((p) => p.fullName)).toEqual(["acme/a", "acme/b", "other/c"]);

      // acme/b is due sooner than the interval's read: left as it is; acme/d is not idle.
      const named = [r("ACME/a"), r("acme/b"), r("acme/d")];
      expect(await store.hastenIdlePolls(named, at(30 * SECOND))).toBe(1);
      expect(await store.getPollSchedule(r("acme/a"))).toMatchObject({
        cadence: "interval",
        nextPollAt: at(30 * SECOND),
      });
      expect(await store.getPollSchedule(r("acme/b"))).toMatchObject({
        cadence: "idle",
        nextPollAt: at(10 * SECOND),
      });
      expect(await store.getPollSchedule(r("acme/d"))).toMatchObject({
        cadence: "interval",
        nextPollAt: at(HOUR),
      });
      expect((await store.listIdlePolls()).map((p) => p.fullName)).toEqual(["acme/b", "other/c"]);
      expect(await store.hastenIdlePolls([], at(0))).toBe(0);
      expect(await store.hastenIdlePolls(named, at(30 * SECOND))).toBe(0);
      // Brought forward, it is claimed then (with acme/b, due sooner).
      expect((await claim("b", 30 * SECOND)).claimed.map((i) => i.key)).toEqual(
        [r("acme/a").key, r("acme/b").key].sort(),
      );
    });
  });

  describe("poll cursors", () => {
    it("keeps a subscribed repository's cursor with its reads: Dates and event ids, case-insensitively", async () => {
      expect(await store.getPollCursor(r("acme/widgets"))).toBeNull();
      const cursor = {
        repository: r("Acme/Widgets"),
        receivedFrom: at(-DAY),
        seenEventIds: [101, 102, 9_007_199_254_740_991],
        updatedAt: at(0),
      };
      // Nobody subscribed: there are no reads to keep it with.
      await store.putPollCursor(cursor);
      expect(await store.getPollCursor(r("acme/widgets"))).toBeNull();
      await subscribe("Acme/Widgets");
      expect(await store.getPollCursor(r("acme/widgets"))).toBeNull();
      await store.putPollCursor(cursor);
      const got = await store.getPollCursor(r("acme/widgets"));
      expect(got).toEqual(cursor);
      expect(got?.receivedFrom).toBeInstanceOf(Date);
      expect(got?.updatedAt).toBeInstanceOf(Date);

      // A read's completion moves it (its payload's cursor).
      await claim("a", 0);
      const next = { receivedFrom: at(5 * SECOND), seenEventIds: [], updatedAt: at(HOUR) };
      await finish("acme/widgets", "a", HOUR, {
        cursor: {
          receivedFrom: next.receivedFrom.toISOString(),
          seenEventIds: [],
          updatedAt: next.updatedAt.toISOString(),
        },
      });
      expect(await store.getPollCursor(r("ACME/WIDGETS"))).toMatchObject(next);
      expect(await store.getPollCursor(r("acme/gadgets"))).toBeNull();
    });
  });
});
