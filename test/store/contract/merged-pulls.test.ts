import { beforeEach, describe, expect, it } from "vitest";
import type { MergedPull } from "../../../src/core/merged-pulls.js";
import type { Store } from "../../../src/store/index.js";
import { at, DAY, r, SECOND, storeContract, T0 } from "./harness.js";

storeContract("merged-pulls", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  const ships = r("acme/Ships");
  const merge = (number: number, extra: Partial<MergedPull> = {}): MergedPull => ({
    repository: ships,
    number,
    branch: "main",
    mergedAt: T0,
    by: "dana",
    sha: "d".repeat(40),
    title: "Hotfix",
    ...extra,
  });
  const watch = (decideAt = at(30 * SECOND)) => ({
    deliveryId: "d1",
    receivedAt: T0,
    decideAt,
    giveUpAt: at(3600 * SECOND),
  });
  const claim = (owner: string, now = at(30 * SECOND), limit = 10) =>
    store.claimMergedPulls({ owner, now, leaseMs: 60 * SECOND, limit });

  describe("merged pull requests to judge", () => {
    it("records a merge once: a redelivery changes nothing", async () => {
      expect(await store.recordMergedPull(merge(7), watch())).toBe(true);
      expect(
        await store.recordMergedPull(merge(7, { by: "eve" }), { ...watch(at(SECOND)), deliveryId: "d2" }),
      ).toBe(false);
      expect(await claim("a", at(SECOND))).toEqual([]);
      const [claimed] = await claim("a");
      expect(claimed).toEqual({ merge: merge(7), receivedAt: T0, giveUpAt: at(3600 * SECOND) });
    });

    it("keeps the queue's word on a merge, before or after the merge is recorded, case-insensitively", async () => {
      expect(await store.queueMergeNoted(ships, 7)).toBe(false);
      await store.noteQueueMerge(r("ACME/ships"), 7, T0);
      expect(await store.queueMergeNoted(ships, 7)).toBe(true);
      // A row made by the queue's word alone is never claimed; once the merge comes, it is.
      expect(await claim("a")).toEqual([]);
      expect(await store.recordMergedPull(merge(7), watch())).toBe(true);
      expect(await store.queueMergeNoted(ships, 7)).toBe(true);
      expect((await claim("a")).map((m) => m.merge.number)).toEqual([7]);
      await store.recordMergedPull(merge(8), watch());
      await store.noteQueueMerge(ships, 8, at(SECOND));
      await store.noteQueueMerge(ships, 8, at(2 * SECOND));
      expect(await store.queueMergeNoted(ships, 8)).toBe(true);
      expect(await store.queueMergeNoted(ships, 9)).toBe(false);
    });

    it("claims each due merge for one replica at a time; a lapsed claim is taken over", async () => {
      for (const n of [1, 2, 3, 4]) await store.recordMergedPull(merge(n), watch());
      const claims = await Promise.all(["a", "b"].map((owner) => claim(owner, at(30 * SECOND), 3)));
      const numbers = claims.flatMap((c) => c.map((m) => m.merge.number));
      expect(numbers.sort()).toEqual([1, 2, 3, 4]);
      expect(await claim("c", at(31 * SECOND))).toEqual([]);
      expect((await claim("c", at(91 * SECOND))).map((m) => m.merge.number).sort()).toEqual([1, 2, 3, 4]);
    });

    it("deferred: judged again later; judged: never claimed again, and only by its claim's holder", async () => {
      await store.recordMergedPull(merge(5), watch());
      await claim("a");
      expect(await store.deferMergedPull(ships, 5, "b", at(45 * SECOND))).toBe(false);
      expect(await store.deferMergedPull(ships, 5, "a", at(45 * SECOND))).toBe(true);
      expect(await claim("b", at(44 * SECOND))).toEqual([]);
      expect(await claim("b", at(45 * SECOND))).toHaveLength(1);
      expect(await store.judgeMergedPull(ships, 5, "a", "outside", at(46 * SECOND))).toBe(false);
      expect(await store.getMergedPullJudgement(ships, 5)).toBeNull();
      expect(await store.judgeMergedPull(ships, 5, "b", "outside", at(46 * SECOND))).toBe(true);
      expect(await store.getMergedPullJudgement(r("acme/ships"), 5)).toEqual({
        judgement: "outside",
        at: at(46 * SECOND),
      });
      expect(await claim("c", at(DAY))).toEqual([]);
      expect(await store.judgeMergedPull(ships, 5, "b", "queue", at(47 * SECOND))).toBe(false);
      expect(await store.recordMergedPull(merge(5), watch())).toBe(false);
    });

    it("forgets rows 30 days after they were first noted", async () => {
      await store.recordMergedPull(merge(1), watch());
      await store.noteQueueMerge(ships, 2, at(DAY));
      await store.recordMergedPull(merge(3), { ...watch(at(31 * DAY)), receivedAt: at(31 * DAY) });
      expect(await store.queueMergeNoted(ships, 2)).toBe(true);
      await claim("a", at(31 * DAY));
      expect((await claim("b", at(32 * DAY))).map((m) => m.merge.number)).toEqual([3]);
    });
  });
});
