import { beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../../src/store/index.js";
import { at, MINUTE_MS, r, SECOND, storeContract } from "./harness.js";

storeContract("failure details", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  const claim = (owner: string, now = at(0)) => ({
    eventId: 77,
    repository: r("acme/widgets"),
    owner,
    now,
    until: new Date(now.getTime() + MINUTE_MS),
    dueAt: at(10 * SECOND),
  });

  describe("reading a removal's details, once", () => {
    it("one claim of two wins; a live claim is not taken; a lapsed one is, its due time kept", async () => {
      const claimed = await Promise.all([
        store.claimFailureDetails(claim("a")),
        store.claimFailureDetails(claim("b")),
      ]);
      expect(claimed.filter(Boolean)).toHaveLength(1);
      const holder = claimed[0] ? "a" : "b";
      const other = holder === "a" ? "b" : "a";
      expect(await store.claimFailureDetails(claim(other, at(30 * SECOND)))).toBe(false);
      expect(await store.claimFailureDetails(claim(other, at(MINUTE_MS + SECOND)))).toBe(true);
      const record = await store.getFailureDetails(77);
      expect(record).toMatchObject({
        eventId: 77,
        status: "reading",
        claimedBy: other,
        dueAt: at(10 * SECOND),
        details: null,
      });
      expect(record?.repository.fullName).toBe("acme/widgets");
      // The replica that lost its claim records nothing.
      expect(
        await store.recordFailureDetails(77, holder, { checks: [], more: 0 }, at(MINUTE_MS + 2 * SECOND)),
      ).toBe(false);
    });

    it("records what was read, or that nothing could be; once recorded, never claimed or recorded again", async () => {
      expect(await store.claimFailureDetails(claim("a"))).toBe(true);
      const details = { checks: [{ name: "ci/test", title: "3 tests failed" }], more: 1 };
      expect(await store.recordFailureDetails(77, "a", details, at(SECOND))).toBe(true);
      expect(await store.getFailureDetails(77)).toMatchObject({ status: "read", details });
      expect(await store.claimFailureDetails(claim("b", at(2 * MINUTE_MS)))).toBe(false);
      expect(await store.recordFailureDetails(77, "a", null, at(2 * SECOND))).toBe(false);

      expect(await store.claimFailureDetails({ ...claim("a"), eventId: 78 })).toBe(true);
      expect(await store.recordFailureDetails(78, "a", null, at(SECOND))).toBe(true);
      expect(await store.getFailureDetails(78)).toMatchObject({ status: "none", details: null });
      expect(await store.getFailureDetails(79)).toBeNull();
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
      await store.claimFailureDetails(claim("a"));
      await send("C1", 77, false, at(SECOND));
      await send("dm:T1:U1", 77, false, at(2 * SECOND));
      await send("C2", 77, true, at(SECOND));
      // Another event's message, recorded by an earlier version (no word on details): never listed.
      await send("C1", 80, undefined, at(SECOND));
      expect(await store.listDetailsEdits()).toEqual([]);
      await store.recordFailureDetails(77, "a", { checks: [], more: 2 }, at(3 * SECOND));
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
      await store.claimFailureDetails(claim("a"));
      await send("C1", 77, false, at(SECOND));
      await store.recordFailureDetails(77, "a", null, at(2 * SECOND));
      expect(await store.listDetailsEdits()).toEqual([]);
    });
  });
});
