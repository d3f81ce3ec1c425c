import { beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../../src/store/index.js";
import { at, DAY, HOUR, r, SECOND, storeContract, T0 } from "./harness.js";

storeContract("queue-requests", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  describe("who asked Yardmaster to queue a pull request", () => {
    const ships = r("acme/Ships");
    it("remembers the latest request per pull request, case-insensitively", async () => {
      expect(await store.getQueueRequest(ships, 7)).toBeNull();
      await store.rememberQueueRequest(ships, 7, { login: "carol", at: T0 });
      await store.rememberQueueRequest(ships, 8, { login: "dave", at: T0 });
      expect(await store.getQueueRequest(r("ACME/ships"), 7)).toEqual({ login: "carol", at: T0 });
      await store.rememberQueueRequest(ships, 7, { login: "alice", at: at(SECOND) });
      expect(await store.getQueueRequest(ships, 7)).toEqual({ login: "alice", at: at(SECOND) });
      expect(await store.getQueueRequest(ships, 8)).toEqual({ login: "dave", at: T0 });
      expect(await store.getQueueRequest(r("acme/other"), 7)).toBeNull();
    });

    it("forgets requests older than a day, when a later one is remembered", async () => {
      await store.rememberQueueRequest(ships, 1, { login: "carol", at: T0 });
      await store.rememberQueueRequest(ships, 2, { login: "carol", at: at(HOUR) });
      await store.rememberQueueRequest(ships, 3, { login: "carol", at: at(DAY + HOUR - 1) });
      expect(await store.getQueueRequest(ships, 1)).toBeNull();
      expect(await store.getQueueRequest(ships, 2)).not.toBeNull();
    });
  });
});
