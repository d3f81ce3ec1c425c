import nock from "nock";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { MergeQueueBackend } from "../../src/core/merge-queue.js";
import type { QueuePause, QueuePauses } from "../../src/core/pause.js";
import { createLogger } from "../../src/logger.js";
import { Repo } from "../../src/repo.js";
import { openStore, type Store, UNPAUSE_KIND } from "../../src/store/index.js";
import { ScheduledUnpauser } from "../../src/timed-pauses/runner.js";
import { WorkRunner } from "../../src/work/runner.js";
import { makeClient, mergifyQueues, ORIGIN } from "../backends/mergify/fixtures.js";

const repo = Repo.of("acme", "widgets");
const PATH = "/v1/repos/acme/widgets/merge-queue/pause";
const RESUMES_AT = new Date("2026-11-23T18:00:00Z");
const at = (ms: number) => new Date(RESUMES_AT.getTime() + ms);

let store: Store;
let now: Date;
let lines: { msg: string }[];
let rung: string[];

beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  now = at(0);
  lines = [];
  rung = [];
  await store.putScheduledUnpause({
    repository: repo,
    reason: "release freeze",
    resumesAt: RESUMES_AT,
    scheduledBy: "alice",
    surface: "slack",
    createdAt: at(-3_600_000),
  });
});
afterEach(async () => {
  await store.close();
});

/** A replica's runner of durable work, on the test's clock (its timers are not started: tick runs it). */
function work(owner: string) {
  return new WorkRunner({ store, owner, now: () => now, logger: createLogger({ level: "silent" }) });
}

function unpauser(owner = "a") {
  return new ScheduledUnpauser({
    work: work(owner),
    queues: mergifyQueues(makeClient({ retry: { retries: 0 }, timeoutMs: 5_000 })),
    attributePause: (a) => store.putPauseAttribution(a),
    afterUnpause: async (r) => {
      rung.push(r.fullName);
    },
    logger: createLogger({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) }),
    now: () => now,
    leaseMs: 60_000,
  });
}

const pauseState = (reason: string | null) => ({ paused: reason !== null, reason, paused_at: null });

describe("scheduled unpauses", () => {
  it("wait for their time, then unpause once, attributed and announced", async () => {
    now = at(-1_000);
    expect(await unpauser().tick()).toEqual([]);
    now = at(0);
    const api = nock(ORIGIN).get(PATH).reply(200, pauseState("release freeze")).delete(PATH).reply(204);
    expect(await unpauser().tick()).toEqual([{ repository: repo, outcome: "unpaused" }]);
    expect(api.isDone()).toBe(true);
    expect(await store.getScheduledUnpause(repo)).toBeNull();
    expect(await store.getPauseAttribution(repo)).toMatchObject({
      action: "unpause",
      actor: "alice",
      surface: "slack",
      scheduled: true,
      at: now,
    });
    expect(rung).toEqual(["acme/widgets"]);
    expect(lines.map((l) => l.msg)).toContain("merge queue of acme/widgets resumed as scheduled");
    // Done: nothing left for the next pass.
    expect(await unpauser("b").tick()).toEqual([]);
  });

  it("do nothing, and say so, when the queue was unpaused meanwhile", async () => {
    nock(ORIGIN).get(PATH).reply(200, pauseState(null));
    expect(await unpauser().tick()).toEqual([{ repository: repo, outcome: "not-paused" }]);
    expect(await store.getScheduledUnpause(repo)).toBeNull();
    expect(await store.getPauseAttribution(repo)).toBeNull();
    expect(rung).toEqual([]);
    expect(lines.map((l) => l.msg)).toContain(
      "scheduled unpause of acme/widgets does nothing: its merge queue is not paused any more",
    );
  });

  it("do nothing, and say so, when the queue was paused again for another reason", async () => {
    nock(ORIGIN).get(PATH).reply(200, pauseState("incident"));
    expect(await unpauser().tick()).toEqual([{ repository: repo, outcome: "paused-otherwise" }]);
    expect(await store.getScheduledUnpause(repo)).toBeNull();
    expect(lines.map((l) => l.msg)).toContain(
      "scheduled unpause of acme/widgets does nothing: its merge queue was paused again for another reason",
    );
  });

  it("are tried again with backoff, by any replica, after one failed", async () => {
    nock(ORIGIN).get(PATH).reply(503, { detail: "down" });
    expect(await unpauser("a").tick()).toEqual([{ repository: repo, outcome: "failed" }]);
    expect(await store.getScheduledUnpause(repo)).not.toBeNull();
    now = at(4_000);
    expect(await unpauser("b").tick()).toEqual([]);
    now = at(5_000);
    nock(ORIGIN).get(PATH).reply(200, pauseState("release freeze")).delete(PATH).reply(204);
    expect(await unpauser("b").tick()).toEqual([{ repository: repo, outcome: "unpaused" }]);
  });

  it("of a replica that died holding the claim are ended by another's own passes once it lapses, once", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      // Claimed by a replica that died before ending it: no call, no new pause, only b's passes.
      const { claimed } = await store.claimWork({
        kind: UNPAUSE_KIND,
        owner: "dead",
        now,
        leaseMs: 60_000,
        limit: 5,
      });
      expect(claimed).toHaveLength(1);
      let paused: string | null = "release freeze";
      const resumed: string[] = [];
      const pauses: QueuePauses = {
        scope: "repository",
        current: async () => (paused ? ({ reason: paused } as QueuePause) : null),
        pause: async () => {
          throw new Error("not paused here");
        },
        resume: async (_target, by) => {
          resumed.push(by);
          paused = null;
          return true;
        },
      };
      const replica = (owner: string) =>
        new ScheduledUnpauser({
          work: work(owner),
          queues: { for: async () => ({ pauses }) as unknown as MergeQueueBackend },
          afterUnpause: async (r) => {
            rung.push(r.fullName);
          },
          logger: createLogger({ level: "silent" }),
          now: () => now,
          leaseMs: 60_000,
        });
      const b = replica("b");
      b.start();
      const elapse = async (ms: number) => {
        for (let t = 0; t < ms; t += 1_000) {
          now = new Date(now.getTime() + 1_000);
          await vi.advanceTimersByTimeAsync(1_000);
        }
      };
      await elapse(59_000);
      expect(resumed).toEqual([]);
      // Within a pass (5 s) of the lapse.
      await elapse(1_000 + 5_000);
      expect(resumed).toEqual(["alice"]);
      expect(rung).toEqual(["acme/widgets"]);
      await elapse(120_000);
      await b.stop();
      // Back, the dead replica has nothing to end.
      expect(await replica("dead").tick()).toEqual([]);
      expect(resumed).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("go to one of two replicas passing at once", async () => {
    const api = nock(ORIGIN).get(PATH).reply(200, pauseState("release freeze")).delete(PATH).reply(204);
    const [a, b] = await Promise.all([unpauser("a").tick(), unpauser("b").tick()]);
    expect([...(a ?? []), ...(b ?? [])]).toEqual([{ repository: repo, outcome: "unpaused" }]);
    expect(api.isDone()).toBe(true);
  });
});
