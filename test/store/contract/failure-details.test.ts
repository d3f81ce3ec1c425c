import { beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../../src/store/index.js";
import { at, MINUTE_MS, r, SECOND, storeContract } from "./harness.js";

storeContract("failure details", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  const note = (owner: string, now = at(0), eventId = 77) => ({
    eventId,
    repository: r("acme/widgets"),
    owner,
    now,
    until: new Date(now.getTime() + MINUTE_MS),
    dueAt: new Date(now.getTime() + 10 * SECOND),
  });
  const details = { checks: [{ name: "ci/test", title: "3 tests failed" }], more: 1 };

  describe("reading a removal's details, once", () => {
    it("notes a reading once: a second note keeps the first's due time", async () => {
      await store.noteFailureDetails(note("a"));
      await store.noteFailureDetails(note("b", at(30 * SECOND)));
      const record = await store.getFailureDetails(77);
      expect(record).toEqual({
        eventId: 77,
        repository: r("acme/widgets"),
        status: "reading",
        dueAt: at(10 * SECOND),
        details: null,
      });
      expect(await store.getFailureDetails(79)).toBeNull();
    });

    it("records what was read, or that nothing could be, once: of two records, one counts", async () => {
      await store.noteFailureDetails(note("a"));
      const recorded = await Promise.all([
        store.recordFailureDetails(77, r("acme/widgets"), details, at(SECOND)),
        store.recordFailureDetails(77, r("acme/widgets"), null, at(SECOND)),
      ]);
      expect(recorded.filter(Boolean)).toHaveLength(1);
      const record = await store.getFailureDetails(77);
      expect(record?.status).toBe(recorded[0] ? "read" : "none");
      expect(await store.recordFailureDetails(77, r("acme/widgets"), details, at(2 * SECOND))).toBe(false);
      // Noted again afterwards (another replica's late note): what was recorded stays.
      await store.noteFailureDetails(note("b", at(3 * SECOND)));
      expect((await store.getFailureDetails(77))?.status).toBe(record?.status);

      await store.noteFailureDetails(note("a", at(0), 78));
      expect(await store.recordFailureDetails(78, r("acme/widgets"), null, at(SECOND))).toBe(true);
      expect(await store.getFailureDetails(78)).toMatchObject({ status: "none", details: null });
    });

    it("records a reading never noted (its replica died first): its record made then", async () => {
      expect(await store.recordFailureDetails(80, r("acme/widgets"), details, at(SECOND))).toBe(true);
      expect(await store.getFailureDetails(80)).toMatchObject({ eventId: 80, status: "read", details });
    });
  });

  describe("messages sent without them", () => {
    const send = async (
      channelId: string,
      eventId: number,
      showsDetails: boolean | undefined,
      sentAt: Date,
    ) => {
      await store.addNotification({
        channelId,
        eventId,
        repository: r("acme/widgets"),
        pullRequest: 42,
        eventType: "left",
        payload: { id: eventId, kind: "left" },
        claimedAt: sentAt,
      });
      await store.markNotificationSent({
        channelId,
        eventId,
        message: { ts: `ts-${channelId}-${eventId}`, threadTs: "parent" },
        at: sentAt,
        ...(showsDetails === undefined ? {} : { showsDetails }),
      });
    };

    it("are listed to edit once their details are read, by channel, until marked shown", async () => {
      await store.noteFailureDetails(note("a"));
      await send("C1", 77, false, at(SECOND));
      await send("dm:T1:U1", 77, false, at(2 * SECOND));
      await send("C2", 77, true, at(SECOND));
      // Another event's message, recorded by an earlier version (no word on details): never listed.
      await send("C1", 80, undefined, at(SECOND));
      expect(await store.listDetailsEdits()).toEqual([]);
      await store.recordFailureDetails(77, r("acme/widgets"), { checks: [], more: 2 }, at(3 * SECOND));
      const edits = await store.listDetailsEdits();
      expect(edits.map((e) => [e.channelId, e.eventId, e.messageTs])).toEqual([
        ["C1", 77, "ts-C1-77"],
        ["dm:T1:U1", 77, "ts-dm:T1:U1-77"],
      ]);
      expect(edits[0]).toMatchObject({
        pullRequest: 42,
        payload: { id: 77, kind: "left" },
        details: { checks: [], more: 2 },
      });
      expect(edits[0]?.repository.fullName).toBe("acme/widgets");
      expect((await store.listDetailsEdits("dm:T1:U1")).map((e) => e.channelId)).toEqual(["dm:T1:U1"]);
      await store.markDetailsShown("C1", 77);
      expect((await store.listDetailsEdits()).map((e) => e.channelId)).toEqual(["dm:T1:U1"]);
    });

    it("whose details could not be read are never listed", async () => {
      await store.noteFailureDetails(note("a"));
      await send("C1", 77, false, at(SECOND));
      await store.recordFailureDetails(77, r("acme/widgets"), null, at(2 * SECOND));
      expect(await store.listDetailsEdits()).toEqual([]);
    });
  });
});
