import { beforeEach, describe, expect, it } from "vitest";
import { askPace, EMPTY_PACE, type WritePaceState } from "../../../src/github/write-pace.js";
import type { Store } from "../../../src/store/index.js";
import { at, r, SECOND, storeContract } from "./harness.js";

storeContract("shared-github-writes", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  describe("the GitHub App's write pace, shared by replicas", () => {
    const LIMITS = { intervalMs: SECOND, content: [{ limit: 80, windowMs: 60 * SECOND }] };
    const edit = { rank: 0, content: false, count: 1 };
    const ask = (replica: string, ms: number, app = "1") =>
      store.updateGitHubWritePace(app, (state) =>
        askPace(state, { replica, now: at(ms).getTime(), kinds: [edit] }, LIMITS),
      );

    it("starts from nothing, and keeps what each change leaves for the next, per app", async () => {
      const seen = await store.updateGitHubWritePace("1", (state) => ({ state, result: state }));
      expect(seen).toEqual(EMPTY_PACE);
      const kept: WritePaceState = {
        lastStartAt: at(0).getTime(),
        blockedUntil: at(30 * SECOND).getTime(),
        contentStarts: [at(-SECOND).getTime(), at(0).getTime()],
        waiting: { b: { kinds: [{ rank: 2, content: true, count: 3 }], until: at(5 * SECOND).getTime() } },
      };
      await store.updateGitHubWritePace("1", () => ({ state: kept, result: undefined }));
      expect(await store.updateGitHubWritePace("1", (state) => ({ state, result: state }))).toEqual(kept);
      expect(await store.updateGitHubWritePace("2", (state) => ({ state, result: state }))).toEqual(
        EMPTY_PACE,
      );
    });

    it("gives one start to one of several replicas asking at the same instant", async () => {
      const answers = await Promise.all(["a", "b", "c", "d", "e", "f"].map((replica) => ask(replica, 0)));
      expect(answers.filter((a) => "go" in a)).toHaveLength(1);
      expect(answers.filter((a) => "askAt" in a)).toEqual(Array(5).fill({ askAt: at(SECOND).getTime() }));
    });

    it("never gives two replicas asking over and over starts closer than the interval", async () => {
      const starts: number[] = [];
      for (let round = 0; round < 20; round++) {
        const ms = round * 250;
        const answers = await Promise.all(["a", "b"].map((replica) => ask(replica, ms)));
        for (const answer of answers) if ("go" in answer) starts.push(ms);
      }
      expect(starts).toEqual([0, 1_000, 2_000, 3_000, 4_000]);
    });
  });

  describe("summary comments, one per issue across replicas", () => {
    const widgets = r("acme/widgets");

    it("is known to every replica once recorded, per issue", async () => {
      expect(await store.getSummaryComment(widgets, 7)).toBeNull();
      await store.recordSummaryComment(r("ACME/Widgets"), 7, 4_000_000_001, at(3 * SECOND));
      expect(await store.getSummaryComment(widgets, 7)).toBe(4_000_000_001);
      expect(await store.getSummaryComment(widgets, 8)).toBeNull();
      await store.recordSummaryComment(widgets, 7, 4_000_000_002, at(4 * SECOND));
      expect(await store.getSummaryComment(widgets, 7)).toBe(4_000_000_002);
    });

    it("forgets a recorded comment only if it is still the one recorded", async () => {
      await store.recordSummaryComment(widgets, 7, 11, at(0));
      await store.forgetSummaryComment(widgets, 7, 10);
      expect(await store.getSummaryComment(widgets, 7)).toBe(11);
      await store.forgetSummaryComment(widgets, 7, 11);
      expect(await store.getSummaryComment(widgets, 7)).toBeNull();
    });
  });
});
