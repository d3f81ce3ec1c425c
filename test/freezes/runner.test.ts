import nock from "nock";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { MergeQueueBackend } from "../../src/core/merge-queue.js";
import type { QueuePause, QueuePauses } from "../../src/core/pause.js";
import { freezeAnnouncer } from "../../src/freezes/announce.js";
import { FreezeRunner } from "../../src/freezes/runner.js";
import { createLogger } from "../../src/logger.js";
import { Repo } from "../../src/repo.js";
import { renderChatMessage } from "../../src/slack/render-message.js";
import { FREEZE_END_KIND, FREEZE_KIND, openStore, type Store } from "../../src/store/index.js";
import { WorkRunner } from "../../src/work/runner.js";
import { makeClient, mergifyQueues, ORIGIN } from "../backends/mergify/fixtures.js";

/**
 * The freeze runner on a real store (SQLite in memory) and the merge queue's HTTP API (nock), on a clock
 * the test sets: a nightly window 22:00 - 06:00 UTC.
 */
const repo = Repo.of("acme", "widgets");
const PATH = "/v1/repos/acme/widgets/merge-queue/pause";
const START = new Date("2026-11-25T22:00:00Z");
const MINUTE = 60_000;
const at = (ms: number) => new Date(START.getTime() + ms);
const REASON = "nightly (scheduled by alice)";
const pauseState = (reason: string | null) => ({ paused: reason !== null, reason, paused_at: null });

let store: Store;
let now: Date;
let said: string[];

beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  said = [];
  await store.addFreeze({
    id: "f1",
    repository: repo,
    name: "nightly",
    schedule: { kind: "daily", start: { hour: 22, minute: 0 }, end: { hour: 6, minute: 0 } },
    zone: "UTC",
    createdBy: "alice",
    surface: "slack",
    createdAt: at(-24 * 60 * MINUTE),
  });
});
afterEach(async () => {
  nock.cleanAll();
  await store.close();
});

/** A replica's runner of durable work (its passes on the test's clock, a look every 5 s). */
const work = (owner: string) =>
  new WorkRunner({
    store,
    owner,
    now: () => now,
    logger: createLogger({ level: "silent" }),
    safetyMs: 5_000,
  });

function runner(owner = "a") {
  return new FreezeRunner({
    store,
    work: work(owner),
    queues: mergifyQueues(makeClient({ retry: { retries: 0 }, timeoutMs: 5_000 })),
    attributePause: (a) => store.putPauseAttribution(a),
    announce: async (_repository, text) => {
      said.push(text);
    },
    logger: createLogger({ level: "silent" }),
    now: () => now,
    leaseMs: MINUTE,
  });
}

describe("the freeze runner", () => {
  it("applies a window missed while every replica was down when one starts during it, without the late notice", async () => {
    now = at(3 * 60 * MINUTE); // 01:00, in the window: Yardmaster just started.
    const api = nock(ORIGIN).get(PATH).reply(200, pauseState(null)).put(PATH).reply(200, pauseState(REASON));
    expect(await runner().tick()).toEqual([{ repository: repo, step: "start", outcome: "paused" }]);
    expect(api.isDone()).toBe(true);
    expect(said).toEqual([]);
    expect(await store.getPauseAttribution(repo)).toMatchObject({
      action: "pause",
      actor: "alice",
      reason: REASON,
    });
    // Another replica, or a restart: nothing more.
    expect(await runner("b").tick()).toEqual([]);
  });

  it("does nothing for a window that ended while every replica was down, and waits for the next", async () => {
    now = at(9 * 60 * MINUTE); // 07:00: ended at 06:00, the next one at 22:00.
    expect(await runner().tick()).toEqual([]);
    expect(nock.pendingMocks()).toEqual([]);
  });

  it("says so once 15 minutes before; tries a failed pause again once its claim lapses", async () => {
    now = at(-15 * MINUTE);
    expect(await runner().tick()).toEqual([{ repository: repo, step: "warn", outcome: "announced" }]);
    expect(await runner("b").tick()).toEqual([]);
    expect(said).toEqual([
      '❄️ The freeze "nightly" of acme/widgets begins in 15 minutes: its merge queue will be paused until Thu 2026-11-26 06:00 UTC.',
    ]);

    now = at(0);
    nock(ORIGIN).get(PATH).reply(200, pauseState(null)).put(PATH).reply(503, { detail: "down" });
    expect(await runner().tick()).toEqual([{ repository: repo, step: "start", outcome: "failed" }]);
    now = at(30_000);
    expect(await runner("b").tick()).toEqual([]); // a's claim still runs
    now = at(61_000);
    nock(ORIGIN).get(PATH).reply(200, pauseState(null)).put(PATH).reply(200, pauseState(REASON));
    expect(await runner("b").tick()).toEqual([{ repository: repo, step: "start", outcome: "paused" }]);
  });

  it("leaves alone a queue already paused at the start, says so, and does not resume it at the end", async () => {
    now = at(0);
    nock(ORIGIN).get(PATH).reply(200, pauseState("incident"));
    expect(await runner().tick()).toEqual([{ repository: repo, step: "start", outcome: "already-paused" }]);
    expect(said).toEqual([
      '❄️ The freeze "nightly" of acme/widgets begins, but its merge queue is already paused for another reason: it is left as it is, and the freeze will not resume it.',
    ]);
    now = at(8 * 60 * MINUTE);
    nock(ORIGIN).get(PATH).reply(200, pauseState("incident"));
    expect(await runner().tick()).toEqual([{ repository: repo, step: "end", outcome: "paused-otherwise" }]);
    expect(nock.pendingMocks()).toEqual([]);
  });

  it("resumes at the end only if still paused for its reason, even once the freeze is removed", async () => {
    now = at(0);
    nock(ORIGIN).get(PATH).reply(200, pauseState(null)).put(PATH).reply(200, pauseState(REASON));
    await runner().tick();
    await store.deleteFreeze(repo, { name: "nightly" });
    now = at(8 * 60 * MINUTE);
    const api = nock(ORIGIN).get(PATH).reply(200, pauseState(REASON)).delete(PATH).reply(204);
    expect(await runner("b").tick()).toEqual([{ repository: repo, step: "end", outcome: "resumed" }]);
    expect(api.isDone()).toBe(true);
    expect(await store.getPauseAttribution(repo)).toMatchObject({
      action: "unpause",
      actor: "alice",
      scheduled: true,
    });
    expect(await runner("a").tick()).toEqual([]);
  });

  it("pauses and resumes in the name and on the surface of who made the freeze, even once it is removed", async () => {
    await store.deleteFreeze(repo, { name: "nightly" });
    await store.addFreeze({
      id: "f2",
      repository: repo,
      name: "nightly",
      schedule: { kind: "daily", start: { hour: 22, minute: 0 }, end: { hour: 6, minute: 0 } },
      zone: "UTC",
      createdBy: "alice",
      surface: "github",
      createdAt: at(-24 * 60 * MINUTE),
    });
    now = at(0);
    nock(ORIGIN).get(PATH).reply(200, pauseState(null)).put(PATH).reply(200, pauseState(REASON));
    expect(await runner().tick()).toEqual([{ repository: repo, step: "start", outcome: "paused" }]);
    expect(await store.getPauseAttribution(repo)).toMatchObject({
      action: "pause",
      actor: "alice",
      surface: "github",
    });
    await store.deleteFreeze(repo, { name: "nightly" });
    now = at(8 * 60 * MINUTE);
    nock(ORIGIN).get(PATH).reply(200, pauseState(REASON)).delete(PATH).reply(204);
    expect(await runner("b").tick()).toEqual([{ repository: repo, step: "end", outcome: "resumed" }]);
    expect(await store.getPauseAttribution(repo)).toMatchObject({
      action: "unpause",
      actor: "alice",
      surface: "github",
      scheduled: true,
    });
  });

  it("ends a window started by an older version, which kept nobody on its steps, in the name its reason gives", async () => {
    // The window's end as migration 39 copies a start step a build before migration 34 made: nobody kept.
    const end = { freezeId: "f1", repository: repo.fullName, startsAt: START.toISOString(), reason: REASON };
    await store.scheduleWork({
      kind: FREEZE_END_KIND,
      key: `f1@${START.toISOString()}`,
      dueAt: at(8 * 60 * MINUTE),
      payload: { ...end, endsAt: at(8 * 60 * MINUTE).toISOString(), by: null },
    });
    await store.deleteFreeze(repo, { name: "nightly" });
    now = at(8 * 60 * MINUTE);
    const api = nock(ORIGIN).get(PATH).reply(200, pauseState(REASON)).delete(PATH).reply(204);
    expect(await runner().tick()).toEqual([{ repository: repo, step: "end", outcome: "resumed" }]);
    expect(api.isDone()).toBe(true);
    expect(await store.getPauseAttribution(repo)).toMatchObject({
      action: "unpause",
      actor: "alice",
      surface: "slack",
      scheduled: true,
    });
  });
});

describe("a freeze step whose replica died before marking it done", () => {
  it("is taken over by another replica's own passes once its claim lapses, and nothing is said or done twice", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      // Slack: each notice with its key; the queue: paused or not.
      const channel: { key: string; text: string }[] = [];
      let paused: string | null = null;
      const pauses: QueuePauses = {
        scope: "repository",
        current: async () => (paused ? ({ reason: paused } as QueuePause) : null),
        pause: async (_target, pause) => {
          paused = pause.reason;
          return { reason: pause.reason } as QueuePause;
        },
        resume: async () => {
          paused = null;
          return true;
        },
      };
      const pausedBy: string[] = [];
      const replica = (owner: string) =>
        new FreezeRunner({
          store,
          queues: { for: async () => ({ pauses }) as unknown as MergeQueueBackend },
          announce: freezeAnnouncer({
            channels: async () => ["C1"],
            post: async (m) => channel.push({ key: m.key, text: renderChatMessage(m.message).text }),
            find: async (_c, key) => (channel.some((m) => m.key === key) ? "1.1" : null),
            logger: createLogger({ level: "silent" }),
            now: () => now,
          }),
          afterChange: async () => {
            pausedBy.push(owner);
          },
          work: work(owner),
          logger: createLogger({ level: "silent" }),
          now: () => now,
          leaseMs: MINUTE,
        });
      const elapse = async (ms: number) => {
        for (let t = 0; t < ms; t += 1_000) {
          now = new Date(now.getTime() + 1_000);
          await vi.advanceTimersByTimeAsync(1_000);
        }
      };
      // 10 minutes before the window: a replica claims the warning, says it, and dies.
      now = at(-10 * MINUTE);
      const claim = async () =>
        (await store.claimWork({ kind: FREEZE_KIND, owner: "dead", now, leaseMs: MINUTE, limit: 1 })).claimed
          .length === 1;
      expect(await claim()).toBe(true);
      channel.push({ key: `freeze:f1:${START.toISOString()}:warn`, text: "begins in 10 minutes" });
      const b = replica("b");
      b.start();
      await elapse(MINUTE + 10_000);
      // Taken over, found said: not said again.
      expect(channel).toHaveLength(1);
      // At the window's start a replica claims the pause and dies before pausing.
      await elapse(START.getTime() - now.getTime() - 1_000);
      await b.stop();
      now = START;
      expect(await claim()).toBe(true);
      b.start();
      await elapse(MINUTE - 1_000);
      expect(paused).toBeNull();
      // Within a pass (5 s) of the lapse: paused, once.
      await elapse(1_000 + 5_000);
      expect(paused).toBe(REASON);
      expect(pausedBy).toEqual(["b"]);
      await elapse(5 * MINUTE);
      await b.stop();
      // Back, the dead replica does nothing again.
      expect(await replica("dead").tick()).toEqual([]);
      expect(pausedBy).toEqual(["b"]);
      expect(channel).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
