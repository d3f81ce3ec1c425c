import { beforeEach, describe, expect, it } from "vitest";
import type { Repo } from "../../../src/repo.js";
import type { Store } from "../../../src/store/index.js";
import { at, DAY, HOUR, r, SECOND, storeContract } from "./harness.js";

storeContract("polls", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  describe("poll schedule", () => {
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
    const claim = (owner: string, ms: number, limit = 10, leaseMs = 10 * SECOND) =>
      store.claimPolls({ owner, now: at(ms), leaseMs, limit });
    const names = (polls: { repository: Repo }[]) => polls.map((p) => p.repository.fullName).sort();
    const finish = (repo: string, owner: string, nextMs: number, extra: { activeUntil?: Date } = {}) =>
      store.finishPoll(r(repo), owner, {
        nextPollAt: at(nextMs),
        cadence: "interval",
        failures: 0,
        lastError: null,
        ...extra,
      });

    it("makes a newly subscribed repository due at once, and forgets it with its last subscription", async () => {
      expect(await claim("a", 0)).toEqual([]);
      await subscribe("Acme/Widgets");
      await subscribe("acme/widgets", "C2");
      const [poll, ...others] = await claim("a", 0);
      expect(others).toEqual([]);
      expect(poll).toMatchObject({
        repository: r("Acme/Widgets"),
        reason: "new",
        cadence: "new",
        claimedBy: "a",
        claimedUntil: at(10 * SECOND),
        failures: 0,
      });
      await store.deleteSubscription("C1", r("acme/widgets"));
      expect(await store.getPollSchedule(r("acme/widgets"))).not.toBeNull();
      await store.deleteSubscription("C2", r("ACME/widgets"));
      expect(await store.getPollSchedule(r("acme/widgets"))).toBeNull();
      expect(
        await store.ringDoorbell(r("acme/widgets"), { pollAt: at(1), recheckAt: at(2), activeUntil: at(3) }),
      ).toBeNull();
    });

    it("gives each due repository to one owner, until its claim ends or lapses", async () => {
      for (const repo of ["acme/a", "acme/b", "acme/c"]) await subscribe(repo);
      expect(names(await claim("a", 0, 2))).toHaveLength(2);
      expect(names(await claim("b", 0, 2))).toHaveLength(1);
      expect(await claim("b", 1)).toEqual([]);
      const held = await store.getPollSchedule(r("acme/a"));
      const owner = held?.claimedBy as string;
      // Another owner cannot finish or renew it.
      await finish("acme/a", owner === "a" ? "b" : "a", 0);
      expect(await store.renewPollClaim(r("acme/a"), owner === "a" ? "b" : "a", at(HOUR))).toBe(false);
      expect((await store.getPollSchedule(r("acme/a")))?.claimedBy).toBe(owner);
      // Its owner renews it; a lapsed claim (a killed replica) goes to whoever claims after it.
      expect(await store.renewPollClaim(r("acme/a"), owner, at(20 * SECOND))).toBe(true);
      expect(names(await claim("c", 15 * SECOND))).toEqual(["acme/b", "acme/c"]);
      expect(names(await claim("c", 20 * SECOND))).toEqual(["acme/a"]);
    });

    it("schedules the next read when the claim ends, and not before", async () => {
      await subscribe("acme/widgets");
      await claim("a", 0);
      await finish("acme/widgets", "a", 15 * SECOND);
      expect(await store.getPollSchedule(r("acme/widgets"))).toMatchObject({
        nextPollAt: at(15 * SECOND),
        cadence: "interval",
        claimedBy: null,
        claimedUntil: null,
      });
      expect(await claim("b", 15 * SECOND - 1)).toEqual([]);
      expect(await claim("b", 15 * SECOND)).toEqual([
        expect.objectContaining({ reason: "interval", claimedBy: "b" }),
      ]);
      await store.finishPoll(r("acme/widgets"), "b", {
        nextPollAt: at(HOUR),
        cadence: "retry",
        failures: 3,
        lastError: "merge queue answered 503",
      });
      expect(await store.getPollSchedule(r("acme/widgets"))).toMatchObject({
        cadence: "retry",
        failures: 3,
        lastError: "merge queue answered 503",
      });
    });

    it("reads a rung repository early, debounced, then once more, and puts it first", async () => {
      for (const repo of ["acme/a", "acme/b", "acme/widgets"]) await subscribe(repo);
      await claim("a", 0);
      for (const repo of ["acme/a", "acme/b", "acme/widgets"]) await finish(repo, "a", 5 * SECOND);
      const ring = (ms: number) =>
        store.ringDoorbell(r("ACME/widgets"), {
          pollAt: at(ms + 300),
          recheckAt: at(ms + 5 * SECOND),
          activeUntil: at(ms + 10 * 60 * SECOND),
        });
      expect(await ring(1000)).toMatchObject({ doorbellAt: at(1300), lastReadAt: at(0) });
      // A second event in the same burst: the first read still stands.
      expect(await ring(1100)).toMatchObject({ doorbellAt: at(1300), recheckAt: at(6100) });
      expect(await store.getPollSchedule(r("acme/widgets"))).toMatchObject({
        doorbellAt: at(1300),
        recheckAt: at(6100),
        activeUntil: at(1100 + 10 * 60 * SECOND),
      });
      expect(await claim("a", 1299)).toEqual([]);
      expect(await claim("a", 1300)).toEqual([expect.objectContaining({ reason: "doorbell" })]);
      await finish("acme/widgets", "a", 20 * SECOND);
      // At 6.1 s both the others' cadence and the recheck are due: the rung one comes first.
      const [first, ...rest] = await claim("a", 6100, 1);
      expect(first).toMatchObject({ repository: r("acme/widgets"), reason: "doorbell" });
      expect(rest).toEqual([]);
      await finish("acme/widgets", "a", 20 * SECOND);
      expect(await store.getPollSchedule(r("acme/widgets"))).toMatchObject({
        doorbellAt: null,
        recheckAt: null,
        nextPollAt: at(20 * SECOND),
      });
    });

    it("reads a rung repository at most once per minimum gap after its last read, across owners", async () => {
      await subscribe("acme/widgets");
      const gapClaim = (owner: string, ms: number) =>
        store.claimPolls({ owner, now: at(ms), leaseMs: 10 * SECOND, limit: 10, minGapMs: 2 * SECOND });
      expect(await gapClaim("a", 0)).toEqual([expect.objectContaining({ lastReadAt: at(0) })]);
      await finish("acme/widgets", "a", 15 * SECOND);
      const ring = (ms: number) =>
        store.ringDoorbell(r("acme/widgets"), {
          pollAt: at(ms + 300),
          recheckAt: at(ms + 5 * SECOND),
          activeUntil: at(ms + HOUR),
        });
      expect(await ring(200)).toMatchObject({ doorbellAt: at(500), lastReadAt: at(0) });
      // Its doorbell time has come, but the last read began less than the gap ago: not due, for anyone.
      expect(await gapClaim("b", 500)).toEqual([]);
      expect(await gapClaim("b", 1999)).toEqual([]);
      expect(await gapClaim("b", 2000)).toEqual([
        expect.objectContaining({ reason: "doorbell", claimedBy: "b", lastReadAt: at(2000) }),
      ]);
      await finish("acme/widgets", "b", 17 * SECOND);
      // The recheck (5.2 s) waits for the gap after the read at 2 s only if it comes sooner; here it does not.
      expect(await gapClaim("a", 5199)).toEqual([]);
      expect(await gapClaim("a", 5200)).toEqual([expect.objectContaining({ reason: "doorbell" })]);
      await finish("acme/widgets", "a", 20 * SECOND);
      // The cadence is not held back by the gap: it comes an interval after a read anyway.
      await ring(5300);
      expect(await gapClaim("b", 5600)).toEqual([]);
      expect(await gapClaim("b", 7200)).toEqual([expect.objectContaining({ reason: "doorbell" })]);
    });

    it("keeps a doorbell rung during a read for after it, and the latest activity", async () => {
      await subscribe("acme/widgets");
      await claim("a", 0);
      await store.ringDoorbell(r("acme/widgets"), {
        pollAt: at(300),
        recheckAt: at(5000),
        activeUntil: at(HOUR),
      });
      expect(await claim("b", 300)).toEqual([]); // still a's
      await finish("acme/widgets", "a", 15 * SECOND, { activeUntil: at(30 * 60 * SECOND) });
      expect(await store.getPollSchedule(r("acme/widgets"))).toMatchObject({ activeUntil: at(HOUR) });
      expect(await claim("b", 400)).toEqual([expect.objectContaining({ reason: "doorbell" })]);
      await finish("acme/widgets", "b", 15 * SECOND, { activeUntil: at(2 * HOUR) });
      expect(await store.getPollSchedule(r("acme/widgets"))).toMatchObject({ activeUntil: at(2 * HOUR) });
    });

    it("lists the repositories waiting the idle period, and brings the named ones forward to the interval", async () => {
      for (const repo of ["acme/a", "acme/b", "other/c", "acme/d"]) await subscribe(repo);
      expect(await claim("a", 0)).toHaveLength(4);
      const idle = (repo: string, nextMs: number) =>
        store.finishPoll(r(repo), "a", {
          nextPollAt: at(nextMs),
          cadence: "idle",
          failures: 0,
          lastError: null,
        });
      await idle("acme/a", HOUR);
      await idle("acme/b", 10 * SECOND);
      await idle("other/c", HOUR);
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
    });

    it("gives each repository to exactly one of several concurrent claims", async () => {
      for (let i = 0; i < 20; i++) await subscribe(`acme/repo-${i}`);
      const claims = await Promise.all(["a", "b", "c", "d"].map((owner) => claim(owner, 0, 8)));
      const all = claims.flatMap(names);
      expect(all).toHaveLength(20);
      expect(new Set(all).size).toBe(20);
    });
  });

  describe("poll cursors", () => {
    it("round-trips Dates and event ids, case-insensitively, and upserts", async () => {
      expect(await store.getPollCursor(r("acme/widgets"))).toBeNull();
      const cursor = {
        repository: r("Acme/Widgets"),
        receivedFrom: at(-DAY),
        seenEventIds: [101, 102, 9_007_199_254_740_991],
        updatedAt: at(0),
      };
      await store.putPollCursor(cursor);
      const got = await store.getPollCursor(r("acme/widgets"));
      expect(got).toEqual(cursor);
      expect(got?.receivedFrom).toBeInstanceOf(Date);
      expect(got?.updatedAt).toBeInstanceOf(Date);

      const next = {
        repository: r("acme/widgets"),
        receivedFrom: at(5 * SECOND),
        seenEventIds: [],
        updatedAt: at(HOUR),
      };
      await store.putPollCursor(next);
      expect(await store.getPollCursor(r("ACME/WIDGETS"))).toEqual(next);
      expect(await store.getPollCursor(r("acme/gadgets"))).toBeNull();
    });
  });
});
