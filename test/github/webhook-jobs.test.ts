import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { COMMAND_KIND, type JobClaim, WebhookArrivals, WebhookJobs } from "../../src/github/webhook-jobs.js";
import { createLogger } from "../../src/logger.js";
import { openStore, type Store, type WebhookJob } from "../../src/store/index.js";
import { WorkRunner } from "../../src/work/runner.js";

const T0 = new Date("2026-11-25T23:59:59.500Z");
const LEASE = 30_000;

let store: Store;
let clock: number;
let ran: { replica: string; job: WebhookJob; held: boolean }[];
let runs: Promise<unknown>[];

beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  clock = T0.getTime();
  ran = [];
  runs = [];
});
afterEach(() => store.close());

/**
 * A replica's jobs, on its own runner of durable work; its runner records what it ran and what `ran`
 * said, unless `runner` is given. `sweep` is a pass of its runner by hand: how many jobs it took over.
 */
function replica(
  owner: string,
  runner?: (job: WebhookJob, claim: JobClaim) => Promise<void>,
  concurrency?: number,
  arrivals?: WebhookArrivals,
) {
  const logger = createLogger({ level: "silent" });
  const now = () => new Date(clock);
  const work = new WorkRunner({ store, owner, now, logger, safetyMs: 1_000 });
  const jobs = new WebhookJobs({
    ...(concurrency ? { concurrency } : {}),
    ...(arrivals ? { arrivals } : {}),
    store,
    work,
    owner,
    run:
      runner ??
      (async (job, claim) => {
        ran.push({ replica: owner, job, held: await claim.ran() });
      }),
    track: (promise) => runs.push(promise),
    logger,
    leaseMs: LEASE,
    now,
  });
  return {
    accept: (j: WebhookJob) => jobs.accept(j),
    start: () => jobs.start(),
    stop: () => jobs.stop(),
    sweep: async () => (await work.drain(COMMAND_KIND)).claimed,
  };
}
const job = (deliveryId: string): WebhookJob => ({
  deliveryId,
  kind: "comment",
  installationId: 7,
  payload: { comment: { id: 1 } },
  receivedAt: new Date(clock),
});
const settled = () => Promise.all(runs);

describe("webhook jobs", () => {
  it("starts a job once the webhooks being received are answered, not while they are", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      let arrivalClock = 0;
      const arrivals = new WebhookArrivals(() => arrivalClock);
      const a = replica("a", undefined, undefined, arrivals);
      const answered = arrivals.begin();
      expect(await a.accept(job("d-1"))).toBe(true);
      arrivalClock += 500;
      await vi.advanceTimersByTimeAsync(500);
      expect(ran).toEqual([]);
      answered();
      arrivalClock += 100;
      await vi.advanceTimersByTimeAsync(100);
      await settled();
      expect(ran.map((r) => r.job.deliveryId)).toEqual(["d-1"]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("records a delivery's job and runs it after, once: a redelivery is refused and runs nothing", async () => {
    const a = replica("a");
    expect(await a.accept(job("d-1"))).toBe(true);
    await settled();
    expect(ran).toEqual([{ replica: "a", job: job("d-1"), held: true }]);
    expect(await a.accept(job("d-1"))).toBe(false);
    expect(await replica("b").accept(job("d-1"))).toBe(false);
    clock += LEASE * 10;
    expect(await replica("b").sweep()).toBe(0);
    await settled();
    expect(ran).toHaveLength(1);
  });

  it("runs a job whose replica stopped before running it, once its claim lapsed, on one replica", async () => {
    // Replica a recorded it and died: its runner never got to it.
    const dead = replica("a", () => new Promise(() => {}));
    await dead.accept(job("d-1"));
    runs = [];
    const b = replica("b");
    const c = replica("c");
    expect(await b.sweep()).toBe(0);
    clock += LEASE;
    expect((await Promise.all([b.sweep(), c.sweep()])).reduce((x, y) => x + y)).toBe(1);
    await settled();
    expect(ran.map((r) => [r.job.deliveryId, r.held])).toEqual([["d-1", true]]);
    clock += LEASE * 10;
    expect(await b.sweep()).toBe(0);
  });

  it("runs a dead replica's job on another's own runner, at its claim's lapse, once", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      // Replica a recorded it and died: no webhook, no call, only b's runner.
      await replica("a", () => new Promise(() => {})).accept(job("d-1"));
      runs = [];
      const b = replica("b");
      b.start();
      const elapse = async (ms: number) => {
        for (let t = 0; t < ms; t += 1_000) {
          clock += 1_000;
          await vi.advanceTimersByTimeAsync(1_000);
        }
      };
      await elapse(LEASE - 1_000);
      expect(ran).toEqual([]);
      // Its runner wakes at the claim's lapse (the claim said when), with no sweep of its own.
      await elapse(2_000);
      await vi.waitFor(() => expect(ran).toHaveLength(1));
      await settled();
      expect(ran.map((r) => [r.replica, r.job.deliveryId, r.held])).toEqual([["b", "d-1", true]]);
      await elapse(3 * LEASE);
      await b.stop();
      // Back, replica a runs nothing again.
      expect(await replica("a").sweep()).toBe(0);
      await settled();
      expect(ran).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("tells a run whose claim another replica took over that the job is not its own any more", async () => {
    let proceed: () => void = () => {};
    const slow = new Promise<void>((resolve) => (proceed = resolve));
    const a = replica("a", async (j, claim) => {
      await slow;
      ran.push({ replica: "a", job: j, held: await claim.ran() });
    });
    await a.accept(job("d-1"));
    // Replica a's renewals did not reach the store for a lease: b takes the job over.
    clock += LEASE;
    expect(await replica("b").sweep()).toBe(1);
    proceed();
    await settled();
    expect(ran.map((r) => [r.replica, r.held]).sort()).toEqual([
      ["a", false],
      ["b", true],
    ]);
  });

  it("keeps a job whose work ran claimed until its run ends: a replica that died before then leaves it to another", async () => {
    // Replica a ran the command and died while answering: the job is not done.
    const dead = replica("a", async (_j, claim) => {
      await claim.ran();
      await new Promise(() => {});
    });
    await dead.accept(job("d-1"));
    runs = [];
    const b = replica("b");
    expect(await b.sweep()).toBe(0);
    clock += LEASE;
    expect(await b.sweep()).toBe(1);
    await settled();
    expect(ran.map((r) => [r.replica, r.job.deliveryId, r.held])).toEqual([["b", "d-1", true]]);
    // Its run ended: done, never run again.
    clock += LEASE * 10;
    expect(await replica("c").sweep()).toBe(0);
  });

  it("marks a job done even when its run failed: no replica runs it again", async () => {
    await replica("a", async () => {
      throw new Error("GitHub is down");
    }).accept(job("d-1"));
    await settled();
    clock += LEASE * 10;
    expect(await replica("b").sweep()).toBe(0);
  });

  it("runs a replica's jobs a few at a time, each holding its turn only until its work ran", async () => {
    const order: string[] = [];
    let answer: () => void = () => {};
    const answerWritten = new Promise<void>((resolve) => (answer = resolve));
    const a = replica(
      "a",
      async (j, claim) => {
        order.push(`ran ${j.deliveryId}`);
        await claim.ran();
        // The first one's answer waits (GitHub is slow to take it): the next job runs meanwhile.
        if (j.deliveryId === "d-1") await answerWritten;
        order.push(`answered ${j.deliveryId}`);
      },
      1,
    );
    await a.accept(job("d-1"));
    await a.accept(job("d-2"));
    await runs[1];
    expect(order).toEqual(["ran d-1", "ran d-2", "answered d-2"]);
    answer();
    await settled();
    expect(order.at(-1)).toBe("answered d-1");
  });
});
