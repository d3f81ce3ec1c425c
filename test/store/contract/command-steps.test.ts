import { beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../../src/store/index.js";
import { at, DAY, SECOND, storeContract } from "./harness.js";

storeContract("command-steps", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  describe("a command's steps", () => {
    it("keeps what a step made, per run and step; the first record stays", async () => {
      expect(await store.commandStep("d-1", "relay.comment")).toBeNull();
      const made = { id: 2_000_000_001, url: "https://github.example/o/r/pull/1#issuecomment-1", note: "é" };
      expect(await store.recordCommandStep("d-1", "relay.comment", made, at(0))).toBe(true);
      expect(await store.commandStep("d-1", "relay.comment")).toEqual({ result: made });
      expect(await store.recordCommandStep("d-1", "relay.comment", { id: 2 }, at(SECOND))).toBe(false);
      expect(await store.commandStep("d-1", "relay.comment")).toEqual({ result: made });
      // Another step of the run, and the same step of another run, are their own.
      expect(await store.commandStep("d-1", "summary")).toBeNull();
      expect(await store.commandStep("d-2", "relay.comment")).toBeNull();
      expect(await store.recordCommandStep("d-1", "summary", null, at(SECOND))).toBe(true);
      expect(await store.commandStep("d-1", "summary")).toEqual({ result: null });
    });

    it("records a step once when two replicas record it at the same time", async () => {
      const results = await Promise.all([
        store.recordCommandStep("d-race", "relay.comment", { by: "a" }, at(0)),
        store.recordCommandStep("d-race", "relay.comment", { by: "b" }, at(0)),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      const kept = await store.commandStep("d-race", "relay.comment");
      expect([{ result: { by: "a" } }, { result: { by: "b" } }]).toContainEqual(kept);
    });

    it("keeps a step begun apart from done, once; a step forgotten is neither", async () => {
      expect(await store.commandStepBegun("d-1", "queue.pause")).toBe(false);
      await store.beginCommandStep("d-1", "queue.pause", at(0));
      await store.beginCommandStep("d-1", "queue.pause", at(SECOND));
      expect(await store.commandStepBegun("d-1", "queue.pause")).toBe(true);
      // Begun is not done: the step has no result yet.
      expect(await store.commandStep("d-1", "queue.pause")).toBeNull();
      expect(await store.commandStepBegun("d-2", "queue.pause")).toBe(false);
      expect(await store.recordCommandStep("d-1", "queue.pause", { reason: "deploy" }, at(SECOND))).toBe(
        true,
      );
      expect(await store.commandStep("d-1", "queue.pause")).toEqual({ result: { reason: "deploy" } });
      await store.forgetCommandStep("d-1", "queue.pause");
      expect(await store.commandStep("d-1", "queue.pause")).toBeNull();
      expect(await store.commandStepBegun("d-1", "queue.pause")).toBe(false);
      // Forgotten, it is recorded again.
      expect(await store.recordCommandStep("d-1", "queue.pause", 2, at(2 * SECOND))).toBe(true);
    });

    it("forgets steps begun more than 7 days before", async () => {
      await store.beginCommandStep("old", "queue.pause", at(0));
      await store.beginCommandStep("recent", "queue.pause", at(3 * DAY));
      await store.beginCommandStep("new", "queue.pause", at(8 * DAY)); // prunes
      expect(await store.commandStepBegun("old", "queue.pause")).toBe(false);
      expect(await store.commandStepBegun("recent", "queue.pause")).toBe(true);
    });

    it("forgets steps done more than 7 days before", async () => {
      await store.recordCommandStep("old", "summary", 1, at(0));
      await store.recordCommandStep("recent", "summary", 2, at(3 * DAY));
      await store.recordCommandStep("new", "summary", 3, at(8 * DAY)); // prunes
      expect(await store.commandStep("old", "summary")).toBeNull();
      expect(await store.commandStep("recent", "summary")).toEqual({ result: 2 });
    });
  });
});
