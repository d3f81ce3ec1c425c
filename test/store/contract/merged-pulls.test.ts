import { beforeEach, describe, expect, it } from "vitest";
import type { MergedPull } from "../../../src/core/merged-pulls.js";
import { MERGED_PULL_KIND, type Store } from "../../../src/store/index.js";
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
  /** The merges whose judgement is due at `now` (their work items, claimed by `owner`). */
  const claim = async (owner: string, now = at(30 * SECOND), limit = 10) => {
    const work = await store.claimWork({ kind: MERGED_PULL_KIND, owner, now, leaseMs: 60 * SECOND, limit });
    const found = await Promise.all(
      work.claimed.map(({ payload }) =>
        store.getWatchedMerge(r(payload.repository as string), payload.number as number),
      ),
    );
    return found.filter((m) => m !== null);
  };

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

    it("makes each merge's judgement a work item due at its time, claimed by one replica at a time", async () => {
      for (const n of [1, 2, 3, 4]) await store.recordMergedPull(merge(n), watch());
      const claims = await Promise.all(["a", "b"].map((owner) => claim(owner, at(30 * SECOND), 3)));
      const numbers = claims.flatMap((c) => c.map((m) => m.merge.number));
      expect(numbers.sort()).toEqual([1, 2, 3, 4]);
      expect(await claim("c", at(31 * SECOND))).toEqual([]);
      expect((await claim("c", at(91 * SECOND))).map((m) => m.merge.number).sort()).toEqual([1, 2, 3, 4]);
    });

    it("judged once: never to judge again, whoever judged it", async () => {
      await store.recordMergedPull(merge(5), watch());
      expect(await store.getMergedPullJudgement(ships, 5)).toBeNull();
      const judged = await Promise.all([
        store.judgeMergedPull(ships, 5, "outside", at(46 * SECOND)),
        store.judgeMergedPull(ships, 5, "queue", at(46 * SECOND)),
      ]);
      expect(judged.filter(Boolean)).toHaveLength(1);
      expect(await store.getMergedPullJudgement(r("acme/ships"), 5)).toEqual({
        judgement: judged[0] ? "outside" : "queue",
        at: at(46 * SECOND),
      });
      expect(await store.getWatchedMerge(ships, 5)).toBeNull();
      expect(await store.judgeMergedPull(ships, 5, "queue", at(47 * SECOND))).toBe(false);
      expect(await store.recordMergedPull(merge(5), watch())).toBe(false);
    });

    it("forgets rows 30 days after they were first noted", async () => {
      await store.recordMergedPull(merge(1), watch());
      await store.noteQueueMerge(ships, 2, at(DAY));
      await store.recordMergedPull(merge(3), { ...watch(at(31 * DAY)), receivedAt: at(31 * DAY) });
      expect(await store.queueMergeNoted(ships, 2)).toBe(true);
      await claim("a", at(31 * DAY));
      expect(await store.getWatchedMerge(ships, 1)).toBeNull();
      expect((await store.getWatchedMerge(ships, 3))?.merge.number).toBe(3);
    });
  });
});
