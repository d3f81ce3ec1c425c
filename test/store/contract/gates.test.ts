import { beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../../src/store/index.js";
import { at, HOUR, MINUTE_MS as MINUTE, r, SECOND, storeContract } from "./harness.js";

const SHA_A = "a".repeat(40);
const SHA_B = "b".repeat(40);
const GATE = "yardmaster/gate";

storeContract("gates", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  describe("a branch's pause", () => {
    it("is kept per repository (case-insensitively) and branch; a new reason keeps its id, author and start", async () => {
      expect(await store.getGatePause(r("acme/ships"), "main")).toBeNull();
      const first = await store.putGatePause({
        repository: r("acme/ships"),
        branch: "main",
        reason: "deploy",
        by: "alice",
        pausedAt: at(SECOND),
      });
      expect(first).toMatchObject({ branch: "main", reason: "deploy", by: "alice", pausedAt: at(SECOND) });
      const again = await store.putGatePause({
        repository: r("ACME/Ships"),
        branch: "main",
        reason: "deploy, longer",
        by: "bob",
        pausedAt: at(HOUR),
      });
      expect(first.updated).toBe(false);
      expect(again).toEqual({ ...first, reason: "deploy, longer", updated: true });
      expect(await store.getGatePause(r("acme/ships"), "release/2.0")).toBeNull();
    });

    it("put by two callers at once is one pause, and one of them is the update", async () => {
      const put = (reason: string) =>
        store.putGatePause({ repository: r("acme/ships"), branch: "main", reason, by: "a", pausedAt: at(0) });
      const [one, two] = await Promise.all([put("one"), put("two")]);
      expect([one.updated, two.updated].sort()).toEqual([false, true]);
      expect(one.pauseId).toBe(two.pauseId);
    });

    it("is listed, every branch's of one repository, by branch", async () => {
      const put = (repository: string, branch: string, minutes: number) =>
        store.putGatePause({
          repository: r(repository),
          branch,
          reason: `${branch} held`,
          by: "carol",
          pausedAt: at(minutes * MINUTE),
        });
      expect(await store.listGatePauses(r("acme/ships"))).toEqual([]);
      await put("acme/ships", "release/2.0", 5);
      await put("acme/ships", "main", 10);
      await put("acme/other", "main", 1);
      const listed = await store.listGatePauses(r("ACME/ships"));
      expect(listed.map((p) => [p.branch, p.reason, p.by, p.pausedAt])).toEqual([
        ["main", "main held", "carol", at(10 * MINUTE)],
        ["release/2.0", "release/2.0 held", "carol", at(5 * MINUTE)],
      ]);
      await store.takeGatePause(r("acme/ships"), "main");
      expect((await store.listGatePauses(r("acme/ships"))).map((p) => p.branch)).toEqual(["release/2.0"]);
    });

    it("is taken by one caller only", async () => {
      await store.putGatePause({
        repository: r("acme/ships"),
        branch: "main",
        reason: "x",
        by: "a",
        pausedAt: at(0),
      });
      const [one, two] = await Promise.all([
        store.takeGatePause(r("acme/ships"), "main"),
        store.takeGatePause(r("acme/ships"), "main"),
      ]);
      expect([one, two].filter((p) => p !== null)).toHaveLength(1);
      expect(await store.getGatePause(r("acme/ships"), "main")).toBeNull();
    });
  });

  describe("gate checks", () => {
    const check = (headSha: string, pullNumber: number, owner = "replica-1") => ({
      repository: r("acme/ships"),
      headSha,
      name: GATE,
      branch: "main",
      kind: "group" as const,
      pullNumber,
      owner,
      at: at(SECOND),
    });

    it("are recorded once per repository, commit and name: the first record is kept", async () => {
      const made = await Promise.all([
        store.recordGateCheck(check(SHA_A, 1)),
        store.recordGateCheck({ ...check(SHA_A, 1, "replica-2"), pullNumber: 9 }),
      ]);
      expect(new Set(made.map((m) => m.pullNumber)).size).toBe(1);
      expect(made[0]).toMatchObject({ headSha: SHA_A, state: "claimed", checkRunId: null, branch: "main" });
      const again = await store.recordGateCheck({ ...check(SHA_A, 7), repository: r("ACME/ships") });
      expect(again.pullNumber).toBe(made[0]?.pullNumber);
      await store.gateCheckReported(r("acme/ships"), SHA_A, GATE, 9_000_000_003, "queued", at(SECOND));
      expect(await store.getGateCheck(r("ACME/ships"), SHA_A.toUpperCase(), GATE)).toMatchObject({
        checkRunId: 9_000_000_003,
        state: "queued",
      });
      expect(await store.getGateCheck(r("acme/ships"), SHA_B, GATE)).toBeNull();
    });

    it("held ones are listed oldest first, and held until completed", async () => {
      await store.recordGateCheck(check(SHA_B, 2));
      await store.recordGateCheck(check(SHA_A, 3));
      await store.gateCheckReported(r("acme/ships"), SHA_B, GATE, 9_000_000_001, "queued", at(SECOND));
      await store.gateCheckReported(r("acme/ships"), SHA_A, GATE, 9_000_000_002, "queued", at(SECOND));
      const pending = await store.pendingGateChecks(r("acme/ships"), "main");
      expect(pending.map((p) => [p.pullNumber, p.checkRunId])).toEqual([
        [2, 9_000_000_001],
        [3, 9_000_000_002],
      ]);
      await store.gateCompleted(r("acme/ships"), SHA_B, GATE, at(HOUR));
      expect((await store.pendingGateChecks(r("acme/ships"), "main")).map((p) => p.pullNumber)).toEqual([3]);
      expect(await store.getGateCheck(r("acme/ships"), SHA_B, GATE)).toMatchObject({ state: "success" });
      expect(await store.pendingGateChecks(r("acme/ships"), "release/2.0")).toEqual([]);
    });

    it("held gates of branches no longer paused are listed; old finished rows are deleted", async () => {
      const on = (branch: string, headSha: string, n: number) => ({ ...check(headSha, n), branch });
      await store.putGatePause({
        repository: r("acme/ships"),
        branch: "main",
        reason: "x",
        by: "a",
        pausedAt: at(0),
      });
      await store.recordGateCheck(on("main", SHA_A, 1));
      await store.recordGateCheck(on("release", SHA_B, 2));
      await store.gateCheckReported(r("acme/ships"), SHA_A, GATE, 51, "queued", at(SECOND));
      await store.gateCheckReported(r("acme/ships"), SHA_B, GATE, 52, "queued", at(SECOND));
      expect((await store.unpausedHeldGates(10)).map((g) => [g.branch, g.checkRunId])).toEqual([
        ["release", 52],
      ]);
      await store.recordGateCheck({ ...check("c".repeat(40), 3), kind: "pull" });
      await store.recordGateCheck(check("d".repeat(40), 4));
      await store.gateCheckReported(r("acme/ships"), "d".repeat(40), GATE, 54, "success", at(SECOND));
      expect(await store.deleteOldGateChecks(at(0))).toBe(0);
      // The pull request's and the completed ones go; the held ones stay.
      expect(await store.deleteOldGateChecks(at(HOUR))).toBe(2);
      expect((await store.unpausedHeldGates(10)).map((g) => g.checkRunId)).toEqual([52]);
      expect((await store.pendingGateChecks(r("acme/ships"), "main")).map((g) => g.checkRunId)).toEqual([51]);
    });
  });

  describe("entries a pause held", () => {
    it("remember a pull request GitHub timed out during the pause, held or not, at the head it had", async () => {
      const hold = (pullNumber: number, pullHeadSha: string) => ({
        repository: r("acme/ships"),
        branch: "main",
        pauseId: "p1",
        pullNumber,
        pullHeadSha,
        at: at(SECOND),
      });
      await store.holdGateEntry(hold(13, ""));
      await store.holdGateEntry(hold(14, ""));
      await store.holdTimedOutEntry(hold(15, SHA_B));
      await store.holdTimedOutEntry(hold(14, SHA_A));
      await store.holdTimedOutEntry(hold(14, SHA_A));
      const holds = await store.takeGateHolds(r("acme/ships"), "main", "p1");
      expect(holds.map((x) => [x.pullNumber, x.timedOut, x.pullHeadSha])).toEqual([
        [13, false, ""],
        [14, true, SHA_A],
        [15, true, SHA_B],
      ]);
    });

    it("keep their first order, remember the ones GitHub timed out, and are taken once", async () => {
      const hold = (pullNumber: number, pauseId = "p1") => ({
        repository: r("acme/ships"),
        branch: "main",
        pauseId,
        pullNumber,
        pullHeadSha: SHA_A,
        at: at(SECOND),
      });
      await store.holdGateEntry(hold(13));
      await store.holdGateEntry(hold(14));
      await store.holdGateEntry(hold(13));
      await store.holdGateEntry(hold(15, "p2"));
      expect(await store.markGateTimedOut(r("acme/ships"), "main", "p1", 14)).toBe(true);
      expect(await store.markGateTimedOut(r("acme/ships"), "main", "p1", 99)).toBe(false);
      const holds = await store.takeGateHolds(r("acme/ships"), "main", "p1");
      expect(holds.map((x) => [x.pullNumber, x.timedOut])).toEqual([
        [13, false],
        [14, true],
      ]);
      expect(await store.takeGateHolds(r("acme/ships"), "main", "p1")).toEqual([]);
      expect((await store.takeGateHolds(r("acme/ships"), "main", "p2")).map((x) => x.pullNumber)).toEqual([
        15,
      ]);
    });
  });
});
