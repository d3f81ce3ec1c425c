import nock from "nock";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { LogEvent } from "../../src/backends/mergify/index.js";
import { mergifyEventLog } from "../../src/backends/mergify/queue-events.js";
import { createLogger } from "../../src/logger.js";
import { createMetrics, type Metrics } from "../../src/metrics.js";
import type { Deliverer } from "../../src/notifier/deliverer.js";
import {
  ACTIVE_MS,
  currentReadReason,
  DEFAULT_MIN_GAP_MS,
  DOORBELL_DELAY_MS,
  LATE_MS,
  Poller,
  RECHECK_MS,
} from "../../src/notifier/poller.js";
import { Repo } from "../../src/repo.js";
import { openStore, POLL_KIND, type Store } from "../../src/store/index.js";
import {
  eventsBody,
  makeClient,
  ORIGIN,
  queueEnterEvent,
  REPO,
  REPO_PATH,
} from "../backends/mergify/fixtures.js";

const T0 = new Date("2025-11-05T13:00:00.000Z");
const INTERVAL = 15_000;
const IDLE = 300_000;
const LOGS = `${REPO_PATH}/logs`;

/** Stands for the outbox: what the poller routed, and how often it asked for delivery. */
function recordingDeliverer() {
  const enqueued: Array<{ channel: string; id: number }> = [];
  let deliveries = 0;
  const deliverer = {
    async enqueue(channel: string, _repo: Repo, event: LogEvent) {
      enqueued.push({ channel, id: event.id });
    },
    async deliverPending() {
      deliveries += 1;
      return { sent: 0, failedChannels: 0 };
    },
  } as unknown as Deliverer;
  return { deliverer, enqueued, deliveries: () => deliveries };
}

describe("the poller's schedule", () => {
  let store: Store;
  let now: Date;
  let metrics: Metrics;
  let reasons: string[];
  const logger = createLogger({ level: "silent" });

  const poller = (owner: string, options: { announced?: boolean } = {}) => {
    const { deliverer, enqueued } = recordingDeliverer();
    const p = new Poller({
      store,
      eventLog: mergifyEventLog(
        makeClient({
          retry: { retries: 0 },
          onCall: () => reasons.push(currentReadReason() ?? "none"),
        }),
      ),
      deliverer,
      intervalMs: INTERVAL,
      idleMs: IDLE,
      ...(options.announced !== undefined
        ? { doorbellServes: async () => options.announced as boolean }
        : {}),
      owner,
      metrics,
      logger,
      now: () => now,
    });
    return Object.assign(p, { enqueued });
  };
  const later = (ms: number) => {
    now = new Date(now.getTime() + ms);
  };
  /** The log answers `events` to each read, as many times as `times`. */
  const log = (events: LogEvent[] = [], times = 1) =>
    nock(ORIGIN).get(LOGS).query(true).times(times).reply(200, eventsBody(events, events.length));

  beforeEach(async () => {
    store = await openStore({ kind: "sqlite", path: ":memory:" });
    now = T0;
    metrics = createMetrics();
    reasons = [];
    await store.putSubscription({
      channelId: "C1",
      teamId: "T1",
      repository: REPO,
      branchGlob: null,
      groups: ["queue"],
      createdBy: "U1",
      createdAt: new Date(T0.getTime() - 60_000),
    });
  });
  afterEach(async () => {
    vi.useRealTimers();
    nock.cleanAll();
    await store.close();
  });

  it("reads a new repository at once, then every interval, not in between", async () => {
    const p = poller("a");
    log();
    expect(await p.tick()).toMatchObject({ repositories: 1, polled: 1 });
    later(INTERVAL - 1);
    expect(await p.tick()).toMatchObject({ repositories: 0, polled: 0 });
    later(1);
    log();
    expect(await p.tick()).toMatchObject({ repositories: 1, polled: 1 });
    expect(reasons).toEqual(["new", "interval"]);
    expect(nock.isDone()).toBe(true);
  });

  it("reads the subscriptions of a claim's repositories in one query, each routed to its own", async () => {
    const gadgets = Repo.of("acme", "gadgets");
    const quiet = Repo.of("acme", "quiet");
    const subscription = { teamId: "T1", branchGlob: null, groups: ["queue"], createdBy: "U1" };
    const createdAt = new Date(T0.getTime() - 60_000);
    await store.putSubscription({ ...subscription, channelId: "C2", repository: gadgets, createdAt });
    await store.putSubscription({ ...subscription, channelId: "C3", repository: quiet, createdAt });
    const p = poller("a");
    const listed = vi.spyOn(store, "listSubscriptions");
    log([queueEnterEvent(1)]);
    nock(ORIGIN)
      .get("/v1/repos/acme/gadgets/logs")
      .query(true)
      .reply(200, eventsBody([queueEnterEvent(2)], 1));
    nock(ORIGIN).get("/v1/repos/acme/quiet/logs").query(true).reply(200, eventsBody([], 0));
    expect(await p.tick()).toMatchObject({ repositories: 3, polled: 3, events: 2 });
    expect(listed).toHaveBeenCalledTimes(1);
    expect(listed.mock.calls[0]?.[0]?.repositories?.map((r) => r.key).sort()).toEqual([
      "acme/gadgets",
      "acme/quiet",
      "acme/widgets",
    ]);
    expect(p.enqueued.sort((a, b) => a.id - b.id)).toEqual([
      { channel: "C1", id: 1 },
      { channel: "C2", id: 2 },
    ]);
    expect(nock.isDone()).toBe(true);
  });

  it("reads an idle repository whose activity GitHub announces every idle period", async () => {
    const p = poller("a", { announced: true });
    log();
    await p.tick();
    expect(await store.getPollSchedule(REPO)).toMatchObject({
      cadence: "idle",
      nextPollAt: new Date(T0.getTime() + IDLE),
    });
  });

  it("keeps the interval without the doorbell, and while the repository is active", async () => {
    const silent = poller("a", { announced: false });
    log();
    await silent.tick();
    expect(await store.getPollSchedule(REPO)).toMatchObject({ cadence: "interval" });

    // Events in the log make it active: the interval holds for ACTIVE_MS after them.
    const announced = poller("b", { announced: true });
    later(INTERVAL);
    log([queueEnterEvent(1)]);
    await announced.tick();
    expect(announced.enqueued).toEqual([{ channel: "C1", id: 1 }]);
    expect(await store.getPollSchedule(REPO)).toMatchObject({
      cadence: "interval",
      activeUntil: new Date(now.getTime() + ACTIVE_MS),
    });
    later(ACTIVE_MS);
    log();
    await announced.tick();
    expect(await store.getPollSchedule(REPO)).toMatchObject({ cadence: "idle" });
  });

  it("reads a rung repository within the doorbell delay, and once more a few seconds later", async () => {
    const p = poller("a", { announced: true });
    log();
    await p.tick();
    later(60_000);
    await p.ring(REPO);
    await p.ring(REPO); // a burst of GitHub events: one read
    expect(await p.tick()).toMatchObject({ repositories: 0 });
    later(DOORBELL_DELAY_MS);
    log([queueEnterEvent(2)]);
    expect(await p.tick()).toMatchObject({ repositories: 1, events: 1 });
    later(RECHECK_MS - DOORBELL_DELAY_MS);
    log();
    expect(await p.tick()).toMatchObject({ repositories: 1, events: 0 });
    later(1_000);
    expect(await p.tick()).toMatchObject({ repositories: 0 });
    expect(reasons).toEqual(["new", "doorbell", "doorbell"]);
    // Rung, it counts as active: read at the interval, not the idle period.
    expect(await store.getPollSchedule(REPO)).toMatchObject({ cadence: "interval" });
  });

  /**
   * A stream of webhooks on one repository, on the test's clock: GitHub rings every `everyMs` for
   * `forMs`, and the replicas' loops pass every 100 ms (alternating when there are several). Returns
   * when each ring came and when each read began, in ms from the stream's start.
   */
  async function stream(replicas: Poller[], options: { everyMs: number; forMs: number; afterMs: number }) {
    const start = now.getTime();
    nock(ORIGIN).get(LOGS).query(true).times(10_000).reply(200, eventsBody([], 0));
    const rings: number[] = [];
    const reads: number[] = [];
    for (let ms = 0, i = 0; ms < options.forMs + options.afterMs; ms += 100, i += 1) {
      if (ms < options.forMs && ms % options.everyMs === 0) {
        await (replicas[(ms / options.everyMs) % replicas.length] as Poller).ring(REPO);
        rings.push(ms);
      }
      const report = await (replicas[i % replicas.length] as Poller).tick();
      for (let n = 0; n < report.repositories; n++) reads.push(now.getTime() - start);
      later(100);
    }
    nock.cleanAll();
    return { rings, reads };
  }

  it("reads a repository GitHub rings for five times a second at most once per minimum gap, plus one follow-up", async () => {
    const p = poller("a", { announced: true });
    log();
    await p.tick();
    later(60_000);
    const { rings, reads } = await stream([p], { everyMs: 200, forMs: 60_000, afterMs: 10_000 });
    expect(rings).toHaveLength(300);
    const duringMinute = reads.filter((at) => at < 60_000);
    expect(duringMinute).toHaveLength(30);
    for (const [i, at] of reads.entries())
      if (i > 0) expect(at - (reads[i - 1] as number)).toBeGreaterThanOrEqual(2_000);
    // Every ring is followed by a read within the gap: its events are read within 2 s.
    for (const ring of rings)
      expect(reads.some((at) => at > ring && at <= ring + DEFAULT_MIN_GAP_MS)).toBe(true);
    // After the stream: the read the last rings asked for, and the one recheck RECHECK_MS after the last.
    expect(reads.filter((at) => at >= 60_000)).toEqual([60_300, (rings.at(-1) as number) + RECHECK_MS]);
  });

  it("keeps the minimum gap across replicas, whichever receives the webhooks and reads", async () => {
    const a = poller("a", { announced: true });
    const b = poller("b", { announced: true });
    log();
    await a.tick();
    later(60_000);
    const { reads } = await stream([a, b], { everyMs: 200, forMs: 30_000, afterMs: 0 });
    expect(reads).toHaveLength(15);
    for (const [i, at] of reads.entries())
      if (i > 0) expect(at - (reads[i - 1] as number)).toBeGreaterThanOrEqual(2_000);
  });

  it("delivers again when a paced channel may go on, not at its next regular pass", async () => {
    const asked: number[] = [];
    const deliverer = {
      async deliverPending() {
        asked.push(Date.now());
        // The first pass leaves a paced channel that may go on 200 ms later.
        return asked.length === 1
          ? { sent: 3, failedChannels: 0, nextAt: new Date(now.getTime() + 200) }
          : { sent: 1, failedChannels: 0 };
      },
    } as unknown as Deliverer;
    const p = new Poller({
      store,
      eventLog: null,
      deliverer,
      intervalMs: INTERVAL,
      owner: "a",
      logger,
      now: () => now,
      // The regular pass, an hour away, cannot be the one that delivers again.
      wakeMs: 3_600_000,
    });
    p.start();
    try {
      const deadline = Date.now() + 30_000;
      while (asked.length < 2 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(asked).toHaveLength(2);
      expect((asked[1] as number) - (asked[0] as number)).toBeGreaterThanOrEqual(190);
    } finally {
      await p.stop();
    }
  });

  it("running by itself, reads a rung repository at the doorbell delay even when a regular pass comes just before", async () => {
    // The loop's own timers on a fake clock: RECHECK_MS passes at once (no real 5 s wait).
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const { deliverer } = recordingDeliverer();
    const p = new Poller({
      store,
      eventLog: mergifyEventLog(
        makeClient({
          retry: { retries: 0 },
          onCall: () => reasons.push(currentReadReason() ?? "none"),
        }),
      ),
      deliverer,
      intervalMs: INTERVAL,
      idleMs: IDLE,
      doorbellServes: async () => true,
      owner: "a",
      logger,
      // The loop's regular passes are a minute apart: within this test, only the doorbell wakes it.
      wakeMs: 60_000,
      // The ring comes within a second of the first read: no minimum gap to wait for here.
      minGapMs: 0,
    });
    log();
    log([queueEnterEvent(2)]);
    log();
    const read = async (n: number) => {
      for (const until = Date.now() + 15_000; reasons.length < n; await vi.advanceTimersByTimeAsync(5))
        if (Date.now() > until) throw new Error(`fewer than ${n} reads: ${reasons.join(", ")}`);
    };
    p.start();
    try {
      await read(1);
      await p.ring(REPO);
      // A pass just after the ring (as the loop's regular one may come) finds the repository not due yet
      // (it is, DOORBELL_DELAY_MS later): the loop still reads it then, and again RECHECK_MS after the
      // ring, each woken by the doorbell alone (its regular pass is a minute away).
      await p.tick();
      await read(3);
      expect(reasons).toEqual(["new", "doorbell", "doorbell"]);
    } finally {
      await p.stop();
    }
  });

  it("runs again when started after a stop, however long it was stopped", async () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const { deliverer, deliveries } = recordingDeliverer();
    const p = new Poller({
      store,
      eventLog: mergifyEventLog(makeClient({ retry: { retries: 0 } })),
      deliverer,
      intervalMs: INTERVAL,
      owner: "a",
      logger,
      now: () => now,
      wakeMs: 50,
      metrics,
    });
    const running = async () =>
      (await metrics.registry.metrics()).match(/\nyardmaster_poller_running (\d)/)?.[1];
    const passes = async (n: number) => {
      for (const until = Date.now() + 10_000; deliveries() < n; await sleep(5))
        if (Date.now() > until) throw new Error(`fewer than ${n} passes`);
    };
    log();
    expect(await running()).toBe("0");
    p.start();
    try {
      expect(await running()).toBe("1");
      await passes(1);
      // Stopped while its next pass waits, and for longer than that wait: a stale wake-up time must not
      // keep it from starting again.
      await sleep(20);
      await p.stop();
      expect(await running()).toBe("0");
      await sleep(100);
      const before = deliveries();
      p.start();
      await passes(before + 1);
    } finally {
      await p.stop();
    }
  });

  it("counts log requests by reason, and doorbells", async () => {
    const p = poller("a", { announced: true });
    log();
    await p.tick();
    later(DEFAULT_MIN_GAP_MS);
    await p.ring(REPO);
    later(DOORBELL_DELAY_MS);
    log();
    await p.tick();
    const text = await metrics.registry.metrics();
    expect(text).toContain("yardmaster_notifier_doorbell_total 1");
    // The request metric is counted by the composition root (src/yardmaster.ts) from currentReadReason.
    expect(reasons).toEqual(["new", "doorbell"]);
  });

  it("ignores a doorbell for a repository nobody subscribed to", async () => {
    const p = poller("a");
    log();
    await p.tick();
    await p.ring(Repo.of("acme", "other"));
    later(DOORBELL_DELAY_MS);
    expect(await p.tick()).toMatchObject({ repositories: 0 });
    expect(await metrics.registry.metrics()).toContain("yardmaster_notifier_doorbell_total 0");
  });

  it("retries a failing repository with a growing backoff, and forgets it after a success", async () => {
    const p = poller("a");
    nock(ORIGIN).get(LOGS).query(true).reply(503, { message: "unavailable" });
    expect(await p.tick()).toMatchObject({ failed: 1 });
    const first = await store.getPollSchedule(REPO);
    expect(first).toMatchObject({ cadence: "retry", failures: 1 });
    const wait = (first?.nextPollAt.getTime() ?? 0) - now.getTime();
    expect(wait).toBeGreaterThanOrEqual(12_000);
    expect(wait).toBeLessThanOrEqual(15_000);
    now = first?.nextPollAt as Date;
    nock(ORIGIN).get(LOGS).query(true).reply(503, { message: "unavailable" });
    await p.tick();
    const second = await store.getPollSchedule(REPO);
    expect(second).toMatchObject({ failures: 2, lastError: expect.stringContaining("503") });
    expect((second?.nextPollAt.getTime() ?? 0) - now.getTime()).toBeGreaterThanOrEqual(24_000);
    now = second?.nextPollAt as Date;
    log();
    await p.tick();
    expect(await store.getPollSchedule(REPO)).toMatchObject({
      failures: 0,
      lastError: null,
      cadence: "interval",
    });
    expect(reasons).toEqual(["new", "retry", "retry"]);
    // Per repository, for the alert on a repository whose log cannot be read (deploy/prometheus).
    const text = await metrics.registry.metrics();
    expect(text).toContain(
      `yardmaster_notifier_repository_reads_total{outcome="failed",repository="${REPO}"} 2\n`,
    );
    expect(text).toContain(
      `yardmaster_notifier_repository_reads_total{outcome="ok",repository="${REPO}"} 1\n`,
    );
  });

  it("reads a repository whose claim a dead replica holds on its own loop once the claim lapses, once", async () => {
    // The dead replica claimed the read (15 s, the interval's lease) and never finished it.
    const { claimed } = await store.claimWork({
      kind: POLL_KIND,
      owner: "dead",
      now,
      leaseMs: INTERVAL,
      limit: 5,
    });
    expect(claimed.map((c) => c.key)).toEqual([REPO.key]);
    const { deliverer } = recordingDeliverer();
    const enqueued: number[] = [];
    deliverer.enqueue = async (_channel, _repo, event) => {
      enqueued.push(event.id);
    };
    const survivor = new Poller({
      store,
      eventLog: mergifyEventLog(makeClient({ retry: { retries: 0 } })),
      deliverer,
      intervalMs: INTERVAL,
      owner: "b",
      logger,
      now: () => now,
      wakeMs: 10,
    });
    const api = log([queueEnterEvent(501)]);
    const waitFor = async (done: () => boolean) => {
      const deadline = Date.now() + 30_000;
      while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    };
    survivor.start();
    try {
      // Its passes come (no event, no doorbell) and find the claim held.
      const ticked = survivor.lastSuccessfulTick;
      await waitFor(() => survivor.lastSuccessfulTick !== ticked);
      later(INTERVAL - 1);
      const before = survivor.lastSuccessfulTick;
      await waitFor(() => survivor.lastSuccessfulTick !== before);
      expect(api.isDone()).toBe(false);
      later(1);
      await waitFor(() => enqueued.length > 0);
      expect(api.isDone()).toBe(true);
      expect(enqueued).toEqual([501]);
    } finally {
      await survivor.stop();
    }
    // Back, the dead replica finds nothing due: read once.
    expect((await poller("dead").tick()).repositories).toBe(0);
  });

  it("takes a backlog sharing one timestamp once: the next reads take only what is new", async () => {
    // The log as the service pages it: newest first (by time, then id), 100 a page, linked by `next`.
    const log: LogEvent[] = Array.from({ length: 250 }, (_, i) => queueEnterEvent(1_000 + i));
    let requests = 0;
    let served = 0;
    nock(ORIGIN)
      .persist()
      .get(LOGS)
      .query(true)
      .reply((uri) => {
        requests += 1;
        const url = new URL(uri, ORIGIN);
        const start = Number(url.searchParams.get("cursor") ?? 0);
        const from = Date.parse(url.searchParams.get("received_from") ?? "");
        const newestFirst = log
          .filter((e) => Date.parse(e.received_at) >= from)
          .sort((a, b) => Date.parse(b.received_at) - Date.parse(a.received_at) || b.id - a.id);
        const page = newestFirst.slice(start, start + 100);
        served += page.length;
        const next = new URL(url);
        next.searchParams.set("cursor", String(start + 100));
        const link = start + 100 < newestFirst.length ? { Link: `<${next.href}>; rel="next"` } : undefined;
        return [200, eventsBody(page, 100), link];
      });
    const p = poller("a");
    expect(await p.tick()).toMatchObject({ polled: 1, events: 250 });
    expect([requests, served]).toEqual([3, 250]);
    expect(p.enqueued).toHaveLength(250);
    // Nothing new: the minute behind the newest event is read again (a late event would be in it), and
    // nothing is taken again.
    later(INTERVAL);
    expect(await p.tick()).toMatchObject({ polled: 1, events: 0 });
    expect([requests, served]).toEqual([6, 500]);
    // One more event at the very same time: it alone is taken.
    log.push(queueEnterEvent(2_000));
    later(INTERVAL);
    expect(await p.tick()).toMatchObject({ polled: 1, events: 1 });
    expect([requests, served]).toEqual([9, 751]);
    expect(p.enqueued.slice(250)).toEqual([{ channel: "C1", id: 2_000 }]);
    // The cursor stays LATE_MS before the newest event, with every id it took from there on.
    expect(await store.getPollCursor(REPO)).toMatchObject({
      receivedFrom: new Date(Date.parse(queueEnterEvent().received_at) - LATE_MS),
    });
    expect((await store.getPollCursor(REPO))?.seenEventIds).toHaveLength(251);
  });

  it("shares the reads among replicas: each due repository is read once per interval", async () => {
    const repos = ["a", "b", "c", "d", "e", "f"].map((n) => Repo.of("acme", n));
    for (const repository of repos) {
      await store.putSubscription({
        channelId: "C1",
        teamId: "T1",
        repository,
        branchGlob: null,
        groups: ["queue"],
        createdBy: "U1",
        createdAt: T0,
      });
    }
    const reads = new Map<string, number>();
    nock(ORIGIN)
      .persist()
      .get(/\/v1\/repos\/acme\/[a-z]+\/logs/)
      .query(true)
      .reply(function () {
        const name = this.req.path.split("/")[4] as string;
        reads.set(name, (reads.get(name) ?? 0) + 1);
        return [200, eventsBody([], 0)];
      });
    const replicas = [poller("r1"), poller("r2"), poller("r3")];
    for (let round = 0; round < 4; round++) {
      await Promise.all(replicas.map((r) => r.tick()));
      await Promise.all(replicas.map((r) => r.tick()));
      later(INTERVAL);
    }
    expect(Object.fromEntries(reads)).toEqual({ a: 4, b: 4, c: 4, d: 4, e: 4, f: 4, widgets: 4 });
  });
});
