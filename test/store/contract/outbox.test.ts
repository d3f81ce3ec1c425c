import { beforeEach, describe, expect, it } from "vitest";
import type { NotificationClaim, Store, ThreadRecord } from "../../../src/store/index.js";
import { at, HOUR, r, SECOND, storeContract } from "./harness.js";

storeContract("outbox", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  describe("notification outbox", () => {
    const claim: NotificationClaim = {
      channelId: "C1",
      eventId: 4242,
      repository: r("acme/widgets"),
      pullRequest: 42,
      eventType: "action.queue.enter",
      payload: {
        event: { id: 4242, type: "action.queue.enter" },
        title: 'Fix <it> & "quote"',
        tags: [1, "two"],
      },
      claimedAt: at(0),
    };

    it("goes added -> pending -> sent", async () => {
      expect(await store.addNotification(claim)).toBe("added");
      expect(await store.addNotification({ ...claim, claimedAt: at(SECOND) })).toBe("pending");
      const pending = await store.listPendingNotifications(at(HOUR), 10);
      expect(pending).toEqual([{ ...claim, attempts: 2, begunBy: null }]);
      expect(pending[0]?.claimedAt).toBeInstanceOf(Date);

      await store.markNotificationSent({
        channelId: "C1",
        eventId: 4242,
        message: { ts: "1700000000.000100", threadTs: null },
        at: at(2 * SECOND),
      });
      expect(await store.addNotification(claim)).toBe("sent");
      expect(await store.listPendingNotifications(at(HOUR), 10)).toEqual([]);
    });

    it("lists a channel's rows in their own order when they have one (GitHub's), else by their claim", async () => {
      const row = (eventId: number, claimedAt: Date, order?: { at: Date; seq: number }) => ({
        ...claim,
        eventId,
        claimedAt,
        ...(order ? { order } : {}),
      });
      // A pull request's checks were claimed before its entry, whose webhook came first; within one
      // millisecond, the receiving replica's count decides. Event ids (hashes) would say otherwise.
      const entered = row(-900, at(3 * SECOND), { at: at(SECOND), seq: 8 });
      const checks = row(-100, at(2 * SECOND), { at: at(SECOND), seq: 9 });
      const polledBefore = row(50, at(500));
      const polledAfter = row(40, at(2500));
      for (const n of [checks, polledAfter, entered, polledBefore]) await store.addNotification(n);
      const listed = await store.listPendingNotifications(at(HOUR), 10, "C1");
      expect(listed.map((n) => n.eventId)).toEqual([50, -900, -100, 40]);
      expect(listed[1]).toEqual({ ...entered, attempts: 1, begunBy: null });
    });

    it("records who began posting a pending row, and tells when it is no longer pending", async () => {
      await store.addNotification(claim);
      expect(await store.markNotificationBegun("C1", 4242, "replica-a")).toBe(true);
      expect(await store.markNotificationBegun("C1", 4242, "replica-b")).toBe(true);
      const [row] = await store.listPendingNotifications(at(HOUR), 10);
      expect(row).toMatchObject({ eventId: 4242, attempts: 1, begunBy: "replica-b" });
      await store.markNotificationSent({
        channelId: "C1",
        eventId: 4242,
        message: { ts: "1700000000.000100", threadTs: null },
        at: at(SECOND),
      });
      expect(await store.markNotificationBegun("C1", 4242, "replica-a")).toBe(false);
      expect(await store.markNotificationBegun("C2", 4242, "replica-a")).toBe(false);
      expect(await store.addNotification(claim)).toBe("sent");
    });

    it("counts attempts on each add of a pending row", async () => {
      await store.addNotification(claim);
      expect((await store.listPendingNotifications(at(HOUR), 10))[0]?.attempts).toBe(1);
      await store.addNotification(claim);
      await store.addNotification(claim);
      expect((await store.listPendingNotifications(at(HOUR), 10))[0]?.attempts).toBe(3);
    });

    it("keeps channels apart for one event", async () => {
      expect(await store.addNotification(claim)).toBe("added");
      expect(await store.addNotification({ ...claim, channelId: "C2" })).toBe("added");
      await store.markNotificationSent({
        channelId: "C2",
        eventId: 4242,
        message: { ts: "1.2", threadTs: "1.1" },
        at: at(SECOND),
      });
      expect(await store.addNotification(claim)).toBe("pending");
      expect(await store.addNotification({ ...claim, channelId: "C2" })).toBe("sent");
    });

    it("ignores marking an unknown notification sent", async () => {
      await store.markNotificationSent({
        channelId: "C1",
        eventId: 1,
        message: { ts: "1.1", threadTs: null },
        at: at(0),
      });
      expect(await store.addNotification({ ...claim, eventId: 1 })).toBe("added");
    });

    it("lists pending rows claimed before `olderThan`, oldest first, up to `limit`, of all channels or one", async () => {
      const pause = {
        ...claim,
        eventId: 7,
        pullRequest: null,
        eventType: "queue.pause.create",
        payload: null,
      };
      await store.addNotification({ ...claim, eventId: 3, claimedAt: at(2 * SECOND) });
      await store.addNotification({ ...pause, channelId: "C2", claimedAt: at(SECOND) });
      await store.addNotification({ ...claim, eventId: 5, claimedAt: at(3 * SECOND) });
      await store.addNotification({ ...claim, eventId: 6, claimedAt: at(0) });
      await store.markNotificationSent({
        channelId: "C1",
        eventId: 6,
        message: { ts: "1.1", threadTs: null },
        at: at(SECOND),
      });

      const ids = (rows: { eventId: number }[]) => rows.map((r) => r.eventId);
      expect(ids(await store.listPendingNotifications(at(3 * SECOND), 10))).toEqual([7, 3]);
      expect(ids(await store.listPendingNotifications(at(4 * SECOND), 10))).toEqual([7, 3, 5]);
      expect(ids(await store.listPendingNotifications(at(4 * SECOND), 2))).toEqual([7, 3]);
      expect(ids(await store.listPendingNotifications(at(4 * SECOND), 10, "C1"))).toEqual([3, 5]);
      expect(ids(await store.listPendingNotifications(at(4 * SECOND), 10, "C2"))).toEqual([7]);
      expect(await store.listPendingNotifications(at(SECOND), 10)).toEqual([]);
      const [first] = await store.listPendingNotifications(at(2 * SECOND), 10);
      expect(first).toEqual({
        ...pause,
        channelId: "C2",
        claimedAt: at(SECOND),
        attempts: 1,
        begunBy: null,
      });
    });

    it("counts pending rows per channel with their oldest claim", async () => {
      expect(await store.pendingNotificationStats()).toEqual([]);
      await store.addNotification({ ...claim, eventId: 1, claimedAt: at(2 * SECOND) });
      await store.addNotification({ ...claim, eventId: 2, claimedAt: at(SECOND) });
      await store.addNotification({ ...claim, eventId: 3, channelId: "C2", claimedAt: at(5 * SECOND) });
      await store.addNotification({ ...claim, eventId: 4, channelId: "C2", claimedAt: at(0) });
      await store.markNotificationSent({
        channelId: "C2",
        eventId: 4,
        message: { ts: "1.0", threadTs: null },
        at: at(6 * SECOND),
      });
      expect(await store.pendingNotificationStats()).toEqual([
        { channelId: "C1", pending: 2, oldestClaimedAt: at(SECOND) },
        { channelId: "C2", pending: 1, oldestClaimedAt: at(5 * SECOND) },
      ]);
    });

    it("lets exactly one of two concurrent claims win", async () => {
      const results = await Promise.all([store.addNotification(claim), store.addNotification(claim)]);
      expect(results.sort()).toEqual(["added", "pending"]);
    });
  });

  describe("threads, recorded with the notification that started or changed them", () => {
    const thread: ThreadRecord = {
      channelId: "C1",
      repository: r("Acme/Widgets"),
      pullRequest: 42,
      parentTs: "1700000000.000100",
      state: { status: "queued", queue: "default", checks: [{ name: "ci", ok: true }] },
      parentStale: false,
      updatedAt: at(0),
    };
    let nextEventId = 1;

    /** Claims a notification of the thread's pull request and marks it sent with the thread. */
    async function recordThread(t: ThreadRecord): Promise<void> {
      const eventId = nextEventId++;
      await store.addNotification({
        channelId: t.channelId,
        eventId,
        repository: t.repository,
        pullRequest: t.pullRequest,
        eventType: "action.queue.enter",
        payload: {},
        claimedAt: t.updatedAt,
      });
      await store.markNotificationSent({
        channelId: t.channelId,
        eventId,
        message: { ts: `${eventId}.0`, threadTs: null },
        thread: { parentTs: t.parentTs, state: t.state, parentStale: t.parentStale },
        at: t.updatedAt,
      });
    }

    it("round-trips and upserts, case-insensitively", async () => {
      expect(await store.getThread("C1", r("acme/widgets"), 42)).toBeNull();
      await recordThread(thread);
      const got = await store.getThread("C1", r("acme/widgets"), 42);
      expect(got).toEqual(thread);
      expect(got?.updatedAt).toBeInstanceOf(Date);

      const next = {
        ...thread,
        repository: r("acme/widgets"),
        state: { status: "merged" },
        updatedAt: at(HOUR),
      };
      await recordThread(next);
      expect(await store.getThread("C1", r("ACME/WIDGETS"), 42)).toEqual(next);
    });

    it("lists a repository's threads in channels with a prefix", async () => {
      await recordThread(thread);
      await recordThread({ ...thread, channelId: "dm:T1:U1", pullRequest: 7 });
      await recordThread({ ...thread, channelId: "dm:T1:U1", repository: r("acme/gadgets") });
      await recordThread({ ...thread, channelId: "dm:T1:U0", repository: r("ACME/widgets") });
      const listed = await store.listThreadsOfRepository(r("acme/WIDGETS"), "dm:");
      expect(listed.map((t) => `${t.channelId}#${t.pullRequest}`)).toEqual(["dm:T1:U0#42", "dm:T1:U1#7"]);
    });

    it("keeps pull requests and channels apart", async () => {
      await recordThread(thread);
      await recordThread({ ...thread, pullRequest: 43, parentTs: "2.0" });
      await recordThread({ ...thread, channelId: "C2", parentTs: "3.0" });
      expect((await store.getThread("C1", r("acme/widgets"), 42))?.parentTs).toBe(thread.parentTs);
      expect((await store.getThread("C1", r("acme/widgets"), 43))?.parentTs).toBe("2.0");
      expect((await store.getThread("C2", r("acme/widgets"), 42))?.parentTs).toBe("3.0");
      expect(await store.getThread("C2", r("acme/widgets"), 43)).toBeNull();
    });

    it("is keyed by the notification's own repository and pull request", async () => {
      await store.addNotification({
        channelId: "C1",
        eventId: 7,
        repository: r("acme/widgets"),
        pullRequest: 42,
        eventType: "action.queue.checks_start",
        payload: {},
        claimedAt: at(0),
      });
      await store.markNotificationSent({
        channelId: "C1",
        eventId: 7,
        message: { ts: "2.0", threadTs: "1.0" },
        thread: { parentTs: "1.0", state: { status: "checks" } },
        at: at(SECOND),
      });
      expect(await store.getThread("C1", r("acme/widgets"), 42)).toEqual({
        channelId: "C1",
        repository: r("acme/widgets"),
        pullRequest: 42,
        parentTs: "1.0",
        state: { status: "checks" },
        parentStale: false,
        updatedAt: at(SECOND),
      });
    });

    it("lists stale parents, per channel or all, and clears one only for the state it was edited to", async () => {
      await recordThread({ ...thread, parentStale: true, updatedAt: at(2 * SECOND) });
      await recordThread({ ...thread, pullRequest: 43, parentStale: false });
      await recordThread({ ...thread, channelId: "C2", parentStale: true, updatedAt: at(SECOND) });
      expect((await store.listStaleThreads()).map((t) => [t.channelId, t.pullRequest])).toEqual([
        ["C2", 42],
        ["C1", 42],
      ]);
      const [stale] = await store.listStaleThreads("C1");
      expect(stale).toMatchObject({ channelId: "C1", pullRequest: 42, parentStale: true });

      // Recorded again (a newer reply) before the edit of the older state is marked: still stale.
      await recordThread({ ...thread, parentStale: true, state: { status: "merged" }, updatedAt: at(HOUR) });
      await store.markThreadParentEdited({ ...thread, updatedAt: at(2 * SECOND) });
      expect(await store.listStaleThreads("C1")).toHaveLength(1);
      await store.markThreadParentEdited({ ...thread, repository: r("ACME/widgets"), updatedAt: at(HOUR) });
      expect(await store.listStaleThreads("C1")).toEqual([]);
      expect(await store.getThread("C1", r("acme/widgets"), 42)).toMatchObject({
        parentStale: false,
        state: { status: "merged" },
      });
      expect((await store.listStaleThreads()).map((t) => t.channelId)).toEqual(["C2"]);
    });

    it("records no thread for an unknown notification, nor for one without a pull request", async () => {
      const thread = { parentTs: "1.0", state: {} };
      await store.markNotificationSent({
        channelId: "C1",
        eventId: 1,
        message: { ts: "1.0", threadTs: null },
        thread,
        at: at(0),
      });
      await store.addNotification({
        channelId: "C1",
        eventId: 2,
        repository: r("acme/widgets"),
        pullRequest: null,
        eventType: "queue.pause.create",
        payload: {},
        claimedAt: at(0),
      });
      await store.markNotificationSent({
        channelId: "C1",
        eventId: 2,
        message: { ts: "2.0", threadTs: null },
        thread,
        at: at(0),
      });
      expect(await store.addNotification({ ...claimOf(2), pullRequest: null })).toBe("sent");
      expect(await store.addNotification(claimOf(1))).toBe("added");
      expect(await store.getThread("C1", r("acme/widgets"), 42)).toBeNull();
    });

    it("leaves the notification pending when its thread cannot be recorded", async () => {
      await store.addNotification(claimOf(3));
      const unwritable = { parentTs: "1.0", state: { n: 1n } }; // JSON cannot hold a BigInt
      await expect(
        store.markNotificationSent({
          channelId: "C1",
          eventId: 3,
          message: { ts: "1.0", threadTs: null },
          thread: unwritable,
          at: at(SECOND),
        }),
      ).rejects.toThrow(/BigInt/);
      expect((await store.listPendingNotifications(at(HOUR), 10)).map((n) => n.eventId)).toEqual([3]);
      expect(await store.getThread("C1", r("acme/widgets"), 42)).toBeNull();
    });

    function claimOf(eventId: number): NotificationClaim {
      return {
        channelId: "C1",
        eventId,
        repository: r("acme/widgets"),
        pullRequest: 42,
        eventType: "action.queue.enter",
        payload: {},
        claimedAt: at(0),
      };
    }
  });

  describe("backoff", () => {
    it("round-trips, replaces and clears", async () => {
      expect(await store.getBackoff("repo:acme/widgets")).toBeNull();
      const backoff = {
        key: "repo:acme/widgets",
        failures: 1,
        nextAttemptAt: at(30 * SECOND),
        lastError: "403",
      };
      await store.putBackoff(backoff);
      const got = await store.getBackoff("repo:acme/widgets");
      expect(got).toEqual(backoff);
      expect(got?.nextAttemptAt).toBeInstanceOf(Date);

      const worse = { ...backoff, failures: 2, nextAttemptAt: at(HOUR), lastError: "channel_not_found" };
      await store.putBackoff(worse);
      expect(await store.getBackoff("repo:acme/widgets")).toEqual(worse);

      await store.clearBackoff("repo:acme/widgets");
      expect(await store.getBackoff("repo:acme/widgets")).toBeNull();
      await store.clearBackoff("channel:C1");
    });
  });
});
