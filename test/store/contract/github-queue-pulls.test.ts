import { beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../../src/store/index.js";
import { at, DAY, HOUR, r, SECOND, storeContract, T0 } from "./harness.js";

storeContract("github-queue-pulls", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  describe("pull requests in GitHub's merge queue", () => {
    const ships = r("acme/Ships");
    it("remembers an entry and its latest merge group, per pull request, case-insensitively", async () => {
      expect(await store.getQueuePull(ships, 7)).toBeNull();
      // A merge group of a pull request never seen entering is not remembered.
      await store.rememberMergeGroup(ships, 7, "a".repeat(40));
      expect(await store.getQueuePull(ships, 7)).toBeNull();
      const entry = { repository: ships, number: 7, baseRef: "main", enteredAt: T0, deliveryId: "d1" };
      await store.rememberQueueEntry(entry);
      expect(await store.getQueuePull(r("ACME/ships"), 7)).toEqual({
        repository: ships,
        number: 7,
        baseRef: "main",
        enteredAt: T0,
        groupSha: null,
        removedBy: null,
        leftAt: null,
      });
      await store.rememberMergeGroup(r("acme/ships"), 7, "b".repeat(40));
      expect((await store.getQueuePull(ships, 7))?.groupSha).toBe("b".repeat(40));
      expect(await store.getQueuePull(ships, 8)).toBeNull();
      // Who asked Yardmaster to dequeue it, when.
      await store.rememberRemoval(ships, 7, { login: "alice", at: at(SECOND) });
      await store.rememberRemoval(ships, 8, { login: "alice", at: at(SECOND) });
      expect((await store.getQueuePull(ships, 7))?.removedBy).toEqual({ login: "alice", at: at(SECOND) });
      expect(await store.getQueuePull(ships, 8)).toBeNull();
      // The same entry redelivered (later) changes nothing.
      await store.rememberQueueEntry({ ...entry, enteredAt: at(HOUR) });
      expect(await store.getQueuePull(ships, 7)).toMatchObject({ enteredAt: T0, groupSha: "b".repeat(40) });
      // The queue removed it (not by merging): its entry is over.
      await store.rememberQueueLeave(r("ACME/ships"), 7, at(2 * SECOND));
      await store.rememberQueueLeave(ships, 8, at(2 * SECOND));
      expect((await store.getQueuePull(ships, 7))?.leftAt).toEqual(at(2 * SECOND));
      expect(await store.getQueuePull(ships, 8)).toBeNull();
      // Entering again starts over: the old group, and the old leave, say nothing of the new entry.
      await store.rememberQueueEntry({ ...entry, baseRef: "release", enteredAt: at(HOUR), deliveryId: "d2" });
      expect(await store.getQueuePull(ships, 7)).toMatchObject({
        baseRef: "release",
        groupSha: null,
        removedBy: null,
        leftAt: null,
      });
    });

    it("forgets entries older than 30 days, when a later one is remembered", async () => {
      const entry = { repository: ships, baseRef: "main" };
      await store.rememberQueueEntry({ ...entry, number: 1, enteredAt: at(DAY - 1), deliveryId: "d1" });
      await store.rememberQueueEntry({ ...entry, number: 2, enteredAt: at(DAY), deliveryId: "d2" });
      await store.rememberQueueEntry({ ...entry, number: 3, enteredAt: at(31 * DAY), deliveryId: "d3" });
      expect(await store.getQueuePull(ships, 1)).toBeNull();
      expect(await store.getQueuePull(ships, 2)).not.toBeNull();
    });
  });
});
