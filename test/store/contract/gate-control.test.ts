import { beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../../src/store/index.js";
import { at, HOUR, MINUTE_MS as MINUTE, r, SECOND, storeContract } from "./harness.js";

const SHA_A = "a".repeat(40);
const SHA_B = "b".repeat(40);
const SHA_C = "c".repeat(40);
const GATE = "yardmaster/gate";

storeContract("gate control", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  const drain = (id: string, numbers: number[]) => ({
    id,
    by: "bob",
    startedAt: at(MINUTE),
    entries: numbers.map((number) => ({ number, enteredAt: at(number * SECOND).toISOString() })),
  });
  const put = (over: object = {}) =>
    store.putGatePause({
      repository: r("acme/ships"),
      branch: "main",
      reason: "deploy",
      by: "alice",
      pausedAt: at(0),
      ...over,
    });

  describe("a branch's pause", () => {
    it("keeps a drain and exemptions; a new pause replaces what the one in force said, not its id", async () => {
      const first = await put({ except: ["hotfix", "release"] });
      expect(first).toMatchObject({ drain: null, drainedAt: null, except: ["hotfix", "release"] });
      const drained = await put({
        reason: "release 1.2",
        by: "bob",
        pausedAt: at(HOUR),
        drain: drain("d1", [10, 11]),
      });
      expect(drained).toMatchObject({
        pauseId: first.pauseId,
        by: "alice",
        pausedAt: at(0),
        reason: "release 1.2",
        except: [],
        drain: drain("d1", [10, 11]),
        updated: true,
      });
      expect(await store.getGatePause(r("ACME/ships"), "main")).toMatchObject({
        drain: drain("d1", [10, 11]),
      });
      const paused = await put({ reason: "incident" });
      expect(paused).toMatchObject({ pauseId: first.pauseId, drain: null, except: [] });
    });

    it("is marked drained once, only while its drain is the one in force", async () => {
      await put({ drain: drain("d1", [10]) });
      expect(await store.listDrainingGatePauses()).toHaveLength(1);
      expect(await store.markGateDrained(r("acme/ships"), "main", "other", at(HOUR))).toBeNull();
      const marks = await Promise.all([
        store.markGateDrained(r("acme/ships"), "main", "d1", at(HOUR)),
        store.markGateDrained(r("acme/ships"), "main", "d1", at(HOUR)),
      ]);
      expect(marks.filter((m) => m !== null)).toHaveLength(1);
      expect(marks.find((m) => m !== null)?.drainedAt).toEqual(at(HOUR));
      expect(await store.listDrainingGatePauses()).toEqual([]);
      // A new drain drains anew.
      await put({ drain: drain("d2", []) });
      expect((await store.getGatePause(r("acme/ships"), "main"))?.drainedAt).toBeNull();
      expect((await store.listDrainingGatePauses()).map((p) => p.drain?.id)).toEqual(["d2"]);
    });
  });

  describe("pull requests let through", () => {
    it("are kept per pause and pull request with the others allowed, updated in place, and forgotten with the pause", async () => {
      const pause = await put();
      const pass = {
        repository: r("acme/ships"),
        branch: "main",
        pauseId: pause.pauseId,
        by: "carol",
        at: at(SECOND),
      };
      const first = await store.putGatePass({ ...pass, pullNumber: 12, pulls: [12] });
      const again = await store.putGatePass({ ...pass, pullNumber: 12, pulls: [10, 12], by: "dave" });
      expect(again).toMatchObject({ passId: first.passId, pulls: [10, 12], by: "dave", pullNumber: 12 });
      expect(await store.getGatePass(r("ACME/ships"), "main", pause.pauseId, 12)).toMatchObject({
        pulls: [10, 12],
      });
      expect(await store.getGatePass(r("acme/ships"), "main", "another", 12)).toBeNull();
      await store.takeGatePause(r("acme/ships"), "main");
      expect(await store.getGatePass(r("acme/ships"), "main", pause.pauseId, 12)).toBeNull();
    });
  });

  describe("held gates decided again", () => {
    const hold = async (sha: string, pull: number, branch = "main") => {
      await store.recordGateCheck({
        repository: r("acme/ships"),
        headSha: sha,
        name: GATE,
        branch,
        kind: "group",
        pullNumber: pull,
        owner: "replica-1",
        at: at(SECOND),
      });
      await store.gateCheckReported(r("acme/ships"), sha, GATE, pull, "queued", at(SECOND));
    };

    it("are flagged by commit, by pull request or by branch, listed oldest first until unflagged", async () => {
      await hold(SHA_A, 1);
      await hold(SHA_B, 2);
      await hold(SHA_C, 3, "release/2.0");
      const flagged = async (where?: { repository: ReturnType<typeof r>; branch: string }) =>
        (await store.gatesToReconsider(10, where)).map((g) => g.pullNumber);
      await store.reconsiderGates(r("acme/ships"), "main", { headSha: SHA_B.toUpperCase() });
      expect(await flagged()).toEqual([2]);
      await store.reconsidered(r("acme/ships"), [SHA_B]);
      expect(await flagged()).toEqual([]);
      await store.reconsiderGates(r("acme/ships"), "main", { pull: 1 });
      expect(await flagged()).toEqual([1]);
      await store.reconsiderGates(r("acme/ships"), "main");
      await store.reconsiderGates(r("acme/ships"), "release/2.0");
      expect(await flagged({ repository: r("ACME/ships"), branch: "main" })).toEqual([1, 2]);
      expect(await flagged()).toEqual([1, 2, 3]);
      expect(await store.gatesToReconsider(1)).toHaveLength(1);
      await store.reconsidered(r("acme/ships"), [SHA_A.toUpperCase(), SHA_B, SHA_C]);
      expect(await flagged()).toEqual([]);
    });

    it("are only held ones: a completed gate is not listed", async () => {
      await hold(SHA_A, 1);
      await store.reconsiderGates(r("acme/ships"), "main");
      await store.gateCompleted(r("acme/ships"), SHA_A, GATE, at(HOUR));
      expect(await store.gatesToReconsider(10)).toEqual([]);
    });
  });
});
