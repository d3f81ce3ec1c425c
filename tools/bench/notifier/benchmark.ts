// The notifier benchmark (the issue's requirement): many subscribed repositories, mostly idle with a
// few busy ones, polled against the merge-queue simulator with added latency. Yardmaster itself runs in
// this process, started by tools/world.ts from the settings of the servers' process (its GitHub surface
// off), and its notifier is driven cycle by cycle.
//
// Time: the simulator runs on a real-time clock (its time is the wall clock plus an offset) and the
// notifier is given the same clock. Between two cycles the benchmark does what the poller's 15 s sleep
// does, without waiting for it: it moves the simulator's clock forward by the poll interval (the engine
// runs every step that falls due on the way, at its own time) and queues the busy repositories' new pull
// requests at random moments of that interval. During a cycle both clocks run at wall-clock speed, so an
// event's received_at and the moment its message reaches the Slack stand-in are on one time line.

import { fork } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { MetricValueWithName } from "prom-client";
import { mergifyEventTypes } from "../../../src/backends/mergify/queue-events.js";
import type { Subscription } from "../../../src/core/records.js";
import type { Metrics } from "../../../src/metrics.js";
import { Repo } from "../../../src/repo.js";
import type { Yardmaster } from "../../../src/yardmaster.js";
import { type Benchmark, type BenchmarkContext, UsageError } from "../lib/benchmark.js";
import {
  figures,
  Histogram,
  max,
  mb,
  mean,
  min,
  ms,
  num,
  pairs,
  percentile,
  seconds,
  slope,
  table,
} from "../lib/report.js";
import { type BacklogRun, backlogFigures, backlogPhase, backlogSetup } from "./backlog.js";
import { type Relay, ServersClient, type Usage, type Verification } from "./protocol.js";

const OWNER = "bench";
const GROUPS = ["queue", "checks", "pause"];
/** The most CPU a quiet repository's read may take, in ms (its request, its share of its claim and completion). */
const QUIET_READ_TARGET_MS = 0.5;
/** Repositories per channel (one subscription each). */
const REPOS_PER_CHANNEL = 25;
/** Merge-queue engine: batches of 4 keep up with 2 pull requests per 15 s (2 batches in the train, 60 s checks). */
const ENGINE = { batchSize: 4, batchMaxWaitMs: 10_000, checksDurationMs: 60_000, speculativeChecks: 2 };
const SIM_TICK_MS = 50;
/** The Poller's and Deliverer's defaults (src/notifier/poller.ts, deliverer.ts). */
const POLLER_DEFAULT_CONCURRENCY = 16;
const DELIVERER_CONCURRENCY = 8;
/** After a tick, how long the benchmark waits at most for the rows a channel's pace left (one post a second). */
const SETTLE_LIMIT_MS = 30_000;
/** How often it delivers again meanwhile. */
const SETTLE_STEP_MS = 250;

const OPTIONS = {
  repos: { type: "string", default: "1000" },
  busy: { type: "string", default: "10" },
  latency: { type: "string", default: "20" },
  cycles: { type: "string", default: "30" },
  interval: { type: "string", default: "15" },
  concurrency: { type: "string", default: String(POLLER_DEFAULT_CONCURRENCY) },
  pulls: { type: "string", default: "2" },
  seed: { type: "string", default: "1" },
  backlog: { type: "string", default: "3000" },
  "backlog-window": { type: "string", default: "30" },
  "backlog-probe": { type: "string", default: "50" },
  help: { type: "boolean", short: "h", default: false },
} as const;

const USAGE = `  --repos N        subscribed repositories (default 1000)
  --busy N         of which busy: new pull requests queued every cycle (default 10)
  --latency MS     latency the simulator adds to every merge-queue request (default 20)
  --cycles N       poll cycles (default 30; more for a longer memory run)
  --interval S     poll interval assumed, seconds: simulated time between cycles (default 15)
  --concurrency N  repositories polled at once (default ${POLLER_DEFAULT_CONCURRENCY}, the Poller's default)
  --pulls N        pull requests queued per busy repository per cycle (default 2)
  --seed N         seed of the random moments pull requests are queued at (default 1)
  --backlog N      after the cycles, events at once in one more repository's log, for the longest
                   event-loop block and /healthz's latency meanwhile (default 3000; 0: no backlog phase)
  --backlog-window S  how long the poller runs by itself over the backlog (default 30)
  --backlog-probe MS  /healthz asked this often during it (default 50)`;

interface Settings {
  repos: number;
  busy: number;
  latencyMs: number;
  cycles: number;
  intervalMs: number;
  concurrency: number;
  pulls: number;
  seed: number;
  backlog: number;
  backlogWindowMs: number;
  backlogProbeMs: number;
}

function parseSettings(args: string[]): Settings | "help" {
  let values: ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS }>>["values"];
  try {
    ({ values } = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return "help";
  const integer = (name: keyof typeof OPTIONS, minimum: number): number => {
    const raw = String(values[name]);
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < minimum) {
      throw new UsageError(`--${name} must be a whole number >= ${minimum} (got "${raw}")`);
    }
    return value;
  };
  const settings: Settings = {
    repos: integer("repos", 1),
    busy: integer("busy", 0),
    latencyMs: integer("latency", 0),
    cycles: integer("cycles", 3),
    intervalMs: integer("interval", 1) * 1000,
    concurrency: integer("concurrency", 1),
    pulls: integer("pulls", 0),
    seed: integer("seed", 0),
    backlog: integer("backlog", 0),
    backlogWindowMs: integer("backlog-window", 1) * 1000,
    backlogProbeMs: integer("backlog-probe", 1),
  };
  if (settings.repos > 9999) throw new UsageError("--repos must be at most 9999");
  if (settings.busy > settings.repos) throw new UsageError("--busy must not exceed --repos");
  return settings;
}

/** mulberry32: a small seeded generator, so that runs are repeatable. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What is kept of each cycle: numbers only. */
const COLUMNS = [
  "wallMs",
  "deliverMs",
  "settleMs",
  "pendingLeft",
  "cpuMs",
  "attempts",
  "attemptFailures",
  "requests",
  "idleRequests",
  "idleMax",
  "idleMin",
  "idleUnpolled",
  "busyRequests",
  "busyMax",
  "events",
  "failed",
  "posts",
  "untrackedPosts",
  "slackTotal",
  "slackPosts",
  "slackUpdates",
  "slackOther",
  "slackFailures",
  "lagP50",
  "lagP99",
  "rss",
  "heapUsed",
] as const;
type Column = (typeof COLUMNS)[number];

/**
 * Every cycle's figures in one array allocated before the first cycle, so that keeping them does not
 * grow the heap whose growth the benchmark measures.
 */
class CycleTable {
  private readonly data: Float64Array;
  private filled = 0;

  constructor(readonly capacity: number) {
    this.data = new Float64Array(capacity * COLUMNS.length).fill(Number.NaN);
  }

  get length(): number {
    return this.filled;
  }

  /** Cycle `index` (1-based). */
  set(index: number, row: Record<Column, number>): void {
    COLUMNS.forEach((column, i) => {
      this.data[(index - 1) * COLUMNS.length + i] = row[column];
    });
    this.filled = Math.max(this.filled, index);
  }

  get(index: number, column: Column): number {
    return this.data[(index - 1) * COLUMNS.length + COLUMNS.indexOf(column)] ?? Number.NaN;
  }

  /** The column over cycles `from` to the last (for the report only). */
  values(column: Column, from = 1): number[] {
    const out: number[] = [];
    for (let index = from; index <= this.filled; index++) out.push(this.get(index, column));
    return out;
  }
}

/** Every figure spread over events or requests, from cycle 2 on. */
interface Distributions {
  lag: Histogram;
  wait: Histogram;
  inCycle: Histogram;
  attempt: Histogram;
}

interface MemoryPoint {
  label: string;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  /** Memory outside the V8 heap that V8 knows of (buffers, typed arrays). */
  external: number;
}

/** The cycle whose memory is "the middle" of the run; the second half starts there. */
function middleOf(cycles: number): number {
  return Math.max(2, Math.ceil(cycles / 2));
}

function memory(label: string, gc: (() => void) | undefined): MemoryPoint {
  gc?.();
  const m = process.memoryUsage();
  return { label, rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external };
}

/** How many values a histogram of the registry has seen (its `_count`). */
async function observations(metrics: Metrics, name: string): Promise<number> {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  const values = (metric?.values ?? []) as MetricValueWithName<string>[];
  return values.find((v) => v.metricName === `${name}_count`)?.value ?? 0;
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

async function run(args: string[], context: BenchmarkContext): Promise<void> {
  const parsed = parseSettings(args);
  const { out, gc } = context;
  if (parsed === "help") {
    out(`notifier benchmark flags:\n${USAGE}`);
    return;
  }
  const s = parsed;
  const repositories = Array.from(
    { length: s.repos },
    (_, i) => `${OWNER}/repo-${String(i + 1).padStart(4, "0")}`,
  );
  const busyIndexes = new Set(
    Array.from({ length: s.busy }, (_, k) => Math.floor(((k + 0.5) * s.repos) / s.busy)),
  );
  const busy = repositories.filter((_, i) => busyIndexes.has(i));
  const known = new Set(repositories.map((r) => r.toLowerCase()));
  const idle = repositories.filter((_, i) => !busyIndexes.has(i));
  const channelCount = Math.ceil(s.repos / REPOS_PER_CHANNEL);
  const channels = Array.from({ length: channelCount }, (_, i) => `C0BENCH${String(i + 1).padStart(4, "0")}`);
  // A channel per block of repositories, as a team subscribes its own.
  const channelOf = (i: number) => channels[Math.floor(i / REPOS_PER_CHANNEL)] as string;
  const busyChannels = new Set([...busyIndexes].map(channelOf)).size;
  const wantedTypes = mergifyEventTypes(GROUPS);

  out("== notifier: poll cycles against the merge-queue simulator ==");
  out("");
  const dir = mkdtempSync(join(tmpdir(), "yardmaster-bench-"));
  const dbPath = join(dir, "yardmaster.db");
  const child = fork(fileURLToPath(new URL("./servers.ts", import.meta.url)), [], {
    execArgv: ["--expose-gc", "--import", import.meta.resolve("tsx")],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const servers = new ServersClient(child);
  // Interrupted: the temporary directory goes too (the servers' process ends when we do).
  const interrupted = (signal: NodeJS.Signals) => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  let yardmaster: Yardmaster | undefined;
  let yardmasterUrl = "";
  try {
    const started = performance.now();
    const world = await servers.call("setup", {
      repositories,
      channels,
      latencyMs: s.latencyMs,
      engine: ENGINE,
      tickMs: SIM_TICK_MS,
      wantedTypes,
    });
    let offsetMs = world.offsetMs;
    const simNow = () => new Date(Date.now() + offsetMs);

    let attempts = 0;
    let attemptFailures = 0;
    let warm = false;
    // Allocated now: recording into them during the run does not grow the heap.
    const lagLimitMs = 4 * s.intervalMs + 60_000;
    const spread: Distributions = {
      lag: new Histogram(1, lagLimitMs),
      wait: new Histogram(1, lagLimitMs),
      inCycle: new Histogram(1, lagLimitMs),
      attempt: new Histogram(0.1, 15_000),
    };
    // Yardmaster as an operator runs it, on the simulator's clock, its poller ticked here. Loaded only
    // now, so that --help and a bad flag answer without loading the whole product.
    const { startYardmaster } = await import("../../world.js");
    ({ app: yardmaster, url: yardmasterUrl } = await startYardmaster(
      {
        ...world.settings,
        DATABASE_URL: `sqlite:${dbPath}`,
        POLL_INTERVAL_SECONDS: String(s.intervalMs / 1000),
      },
      {
        autoPoll: false,
        now: simNow,
        pollConcurrency: s.concurrency,
        onMergeQueueCall: (call) => {
          attempts += 1;
          if (warm) spread.attempt.record(call.durationMs);
          if (typeof call.status !== "number" || call.status < 200 || call.status >= 300)
            attemptFailures += 1;
        },
      },
    ));
    const { store, metrics } = yardmaster;
    const poller = yardmaster.poller!;
    const deliverer = yardmaster.deliverer!;
    const createdAt = simNow();
    for (const [i, repository] of repositories.entries()) {
      const subscription: Subscription = {
        channelId: channelOf(i),
        teamId: "T0001",
        repository: Repo.from(repository),
        branchGlob: null,
        groups: GROUPS,
        createdBy: "bench",
        createdAt,
      };
      await store.putSubscription(subscription);
    }
    let deliverMs = 0;
    const deliverPending = deliverer.deliverPending.bind(deliverer);
    deliverer.deliverPending = async () => {
      const t = performance.now();
      try {
        return await deliverPending();
      } finally {
        deliverMs = performance.now() - t;
      }
    };
    const setupMs = performance.now() - started;

    out("Setup");
    out(
      pairs([
        [
          "repositories",
          `${s.repos} subscribed, 1 subscription each, ${channelCount} channels (${REPOS_PER_CHANNEL} per channel)`,
        ],
        [
          "busy repositories",
          `${busy.length} (in ${busyChannels} channels): ${s.pulls} pull request(s) queued in each per cycle,\nat random moments of the interval`,
        ],
        ["idle repositories", `${idle.length}: no events at all`],
        ["subscribed events", `${GROUPS.join(", ")} (${wantedTypes.length} event types asked for)`],
        ["added latency", `${s.latencyMs} ms on every merge-queue request (simulator fault latencyMs)`],
        [
          "poll interval",
          `${s.intervalMs / 1000} s assumed: simulated between cycles by moving the simulator's clock (no real wait)`,
        ],
        [
          "concurrency",
          `${s.concurrency} repositories polled at once${s.concurrency === POLLER_DEFAULT_CONCURRENCY ? " (the Poller's default)" : ""}\n${DELIVERER_CONCURRENCY} channels delivered at once (the Deliverer's default)`,
        ],
        [
          "cycles",
          `${s.cycles}; cycle 1 is cold (first poll cursors, new connections) and left out of the summary`,
        ],
        [
          "merge-queue engine",
          `batch ${ENGINE.batchSize}, fill wait ${ENGINE.batchMaxWaitMs / 1000} s, checks ${ENGINE.checksDurationMs / 1000} s, ${ENGINE.speculativeChecks} batches in the train; real-time clock (timer ${SIM_TICK_MS} ms)`,
        ],
        ["store", `SQLite in ${dir} (removed at the end)`],
        [
          "processes",
          `Yardmaster: this process (pid ${process.pid}); simulator + Slack stand-in: child process (pid ${world.pid})`,
        ],
        ["memory", context.gcNote],
        [
          "GitHub",
          "not involved: Yardmaster's GitHub surface is off, so thread parents carry no pull-request title",
        ],
        ...(s.backlog > 0
          ? [
              backlogSetup({
                events: s.backlog,
                windowMs: s.backlogWindowMs,
                probeMs: s.backlogProbeMs,
                latencyMs: s.latencyMs,
                groups: GROUPS,
              }),
            ]
          : []),
        ["setup time", ms(setupMs)],
      ]),
    );
    out("");

    const rand = random(s.seed);
    let nextPull = 1;
    const advance = async () => {
      const relays: Relay[] = [];
      for (const repository of busy) {
        for (let k = 0; k < s.pulls; k++) {
          relays.push({ atMs: Math.floor(rand() * s.intervalMs), repository, pull: nextPull++ });
        }
      }
      const result = await servers.call("advance", { ms: s.intervalMs, relays });
      offsetMs = result.offsetMs;
      return result.rejected;
    };

    const cycles = new CycleTable(s.cycles);
    const memoryPoints: MemoryPoint[] = [memory("after setup", gc)];
    const servedUsage: Usage[] = [await servers.call("usage", { gc: true })];
    const middle = middleOf(s.cycles);
    let rejectedRelays = 0;
    let lastCycleStart = 0;
    const progress = process.stderr.isTTY;

    for (let index = 1; index <= s.cycles; index++) {
      rejectedRelays += await advance();
      warm = index > 1;
      attempts = 0;
      attemptFailures = 0;
      deliverMs = 0;
      const cycleStart = simNow().getTime();
      lastCycleStart = cycleStart;
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const report = await poller.tick();
      const wallMs = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      const settled = await settleOutbox(poller, store);
      const collected = await servers.call("collect", {});

      let idleRequests = 0;
      let idleMax = Number.NEGATIVE_INFINITY;
      let idleMin = Number.POSITIVE_INFINITY;
      let idleUnpolled = 0;
      for (const repository of idle) {
        const count = collected.requests.byRepository[repository.toLowerCase()] ?? 0;
        idleRequests += count;
        idleMax = Math.max(idleMax, count);
        idleMin = Math.min(idleMin, count);
        if (count === 0) idleUnpolled += 1;
      }
      const busyCounts = busy.map((r) => collected.requests.byRepository[r.toLowerCase()] ?? 0);
      const stray = Object.keys(collected.requests.byRepository).filter((r) => !known.has(r));
      if (stray.length > 0) throw new Error(`requests for unknown repositories: ${stray.join(", ")}`);
      const calls = collected.slackCalls;
      const slackTotal = Object.values(calls).reduce((sum, c) => sum + c, 0);
      const slackPosts = calls["chat.postMessage"] ?? 0;
      const slackUpdates = calls["chat.update"] ?? 0;
      const cycleLags = collected.posts.map((post) => post.postedAt - post.receivedAt);
      for (const post of collected.posts) {
        if (!warm) continue;
        spread.lag.record(post.postedAt - post.receivedAt);
        spread.wait.record(Math.max(0, cycleStart - post.receivedAt));
        spread.inCycle.record(Math.max(0, post.postedAt - Math.max(cycleStart, post.receivedAt)));
      }
      const point = memory(`after cycle ${index}`, gc);
      cycles.set(index, {
        wallMs,
        deliverMs,
        settleMs: settled.waitedMs,
        pendingLeft: settled.left,
        cpuMs: (cpu.user + cpu.system) / 1000,
        attempts,
        attemptFailures,
        requests: collected.requests.total,
        idleRequests,
        idleMax: idle.length ? idleMax : Number.NaN,
        idleMin: idle.length ? idleMin : Number.NaN,
        idleUnpolled,
        busyRequests: busyCounts.reduce((sum, c) => sum + c, 0),
        busyMax: max(busyCounts),
        events: report.events,
        failed: report.failed,
        posts: collected.posts.length,
        untrackedPosts: collected.untrackedPosts,
        slackTotal,
        slackPosts,
        slackUpdates,
        slackOther: slackTotal - slackPosts - slackUpdates,
        slackFailures: collected.slackFailures,
        lagP50: percentile(cycleLags, 50),
        lagP99: percentile(cycleLags, 99),
        rss: point.rss,
        heapUsed: point.heapUsed,
      });
      if (index === 1) memoryPoints.push({ ...point, label: "start (after cycle 1)" });
      if (index === middle) memoryPoints.push({ ...point, label: `middle (after cycle ${index})` });
      if (index === s.cycles) memoryPoints.push({ ...point, label: `end (after cycle ${index})` });
      if (index === 1 || index === s.cycles) servedUsage.push(await servers.call("usage", { gc: true }));
      if (progress) process.stderr.write(`\r  cycle ${index}/${s.cycles} ... `);
    }
    if (progress) process.stderr.write("\r\x1b[K");
    const verification = await servers.call("verify", { before: lastCycleStart });
    const pollerLagObservations = await observations(metrics, "yardmaster_notification_lag_seconds");
    let backlog: BacklogRun | undefined;
    if (s.backlog > 0) {
      if (progress) process.stderr.write(`\r  backlog of ${s.backlog} events ... `);
      backlog = await backlogPhase(
        {
          events: s.backlog,
          windowMs: s.backlogWindowMs,
          probeMs: s.backlogProbeMs,
          latencyMs: s.latencyMs,
          groups: GROUPS,
        },
        { servers, app: yardmaster, url: yardmasterUrl },
      );
      if (progress) process.stderr.write("\r\x1b[K");
    }

    printCycles(out, cycles);
    out("");
    printSummary(out, {
      settings: s,
      cycles,
      spread,
      idleCount: idle.length,
      busyCount: busy.length,
      memoryPoints,
      servedUsage,
      verification,
      rejectedRelays,
      dbBytes: fileSize(dbPath) + fileSize(`${dbPath}-wal`),
      gc: gc !== undefined,
      pollerLagObservations,
    });
    if (backlog) {
      out("");
      out(`Backlog phase: ${backlog.events} events at once, the poller running by itself`);
      out(figures(backlogFigures(backlog)));
    }
  } finally {
    await yardmaster?.close();
    await servers.close();
    rmSync(dir, { recursive: true, force: true });
    process.off("SIGINT", interrupted);
    process.off("SIGTERM", interrupted);
  }
}

/**
 * Posts what the tick left in the outbox, as a running poller does: a channel's rows beyond the first
 * wait for Slack's pace (one post a second), and a poller ticked by hand has no timer for them. Delivers
 * every SETTLE_STEP_MS until nothing is pending or SETTLE_LIMIT_MS have passed; how long that took, and
 * the rows still pending.
 */
async function settleOutbox(
  poller: NonNullable<Yardmaster["poller"]>,
  store: Yardmaster["store"],
): Promise<{ waitedMs: number; left: number }> {
  const started = performance.now();
  for (;;) {
    const left = (await store.pendingNotificationStats()).reduce((sum, s) => sum + s.pending, 0);
    const waitedMs = performance.now() - started;
    if (left === 0 || waitedMs >= SETTLE_LIMIT_MS) return { waitedMs, left };
    await sleep(SETTLE_STEP_MS);
    await poller.deliver();
  }
}

function printCycles(out: (text: string) => void, cycles: CycleTable): void {
  const every = cycles.length <= 60 ? 1 : Math.ceil(cycles.length / 50);
  const shown: number[] = [];
  for (let index = 1; index <= cycles.length; index++) {
    if (index === 1 || index === cycles.length || index % every === 0) shown.push(index);
  }
  out(`Per cycle${every > 1 ? ` (every ${every}th cycle shown, with the first and the last)` : ""}`);
  const columns: [string, Column, number][] = [
    ["wall ms", "wallMs", 0],
    ["deliver", "deliverMs", 0],
    ["paced", "settleMs", 0],
    ["CPU ms", "cpuMs", 0],
    ["MQ req", "requests", 0],
    ["idle", "idleRequests", 0],
    ["max/idle", "idleMax", 0],
    ["busy", "busyRequests", 0],
    ["events", "events", 0],
    ["posts", "posts", 0],
    ["Slack", "slackTotal", 0],
  ];
  out(
    table(
      ["cycle", ...columns.map(([header]) => header), "lag p50", "lag p99", "heap MB", "RSS MB"],
      shown.map((index) => [
        String(index),
        ...columns.map(([, column, digits]) => num(cycles.get(index, column), digits)),
        num(cycles.get(index, "lagP50") / 1000, 2),
        num(cycles.get(index, "lagP99") / 1000, 2),
        num(cycles.get(index, "heapUsed") / 1024 / 1024, 1),
        num(cycles.get(index, "rss") / 1024 / 1024, 1),
      ]),
    ),
  );
  out(
    pairs([
      ["wall ms", "the tick: every repository polled, then the pending notifications delivered"],
      ["deliver", "ms of the tick spent delivering (Deliverer.deliverPending)"],
      [
        "paced",
        "ms after the tick until the outbox was empty: the rows a channel's pace (one post a second) left,\n" +
          `delivered again every ${SETTLE_STEP_MS} ms as a running poller's timer would (at most ${SETTLE_LIMIT_MS / 1000} s)`,
      ],
      [
        "CPU ms",
        "this process's user + system CPU time during the tick (process.cpuUsage; not the paced posts after it)",
      ],
      ["MQ req", "merge-queue requests the simulator served during the tick, to idle / busy repositories"],
      ["max/idle", "the most requests one idle repository got"],
      ["events", "new events the poller read; posts: chat.postMessage calls; Slack: all Web API calls"],
      ["lag", "seconds from an event's received_at to its post reaching the Slack stand-in"],
      ["heap, RSS", "after the tick and a full gc"],
    ]),
  );
}

interface SummaryInput {
  settings: Settings;
  cycles: CycleTable;
  spread: Distributions;
  idleCount: number;
  busyCount: number;
  memoryPoints: readonly MemoryPoint[];
  servedUsage: readonly Usage[];
  verification: Verification;
  rejectedRelays: number;
  dbBytes: number;
  gc: boolean;
  pollerLagObservations: number;
}

function printSummary(out: (text: string) => void, input: SummaryInput): void {
  const { settings: s, memoryPoints, cycles, spread } = input;
  const first = 2;
  const last = cycles.length;
  const warmCount = last - first + 1;
  const col = (column: Column) => cycles.values(column, first);
  const sum = (column: Column) => col(column).reduce((total, v) => total + v, 0);
  const intervalS = s.intervalMs / 1000;
  const walls = col("wallMs");
  const wallMax = max(walls);
  const idlePerRepo = col("idleRequests").map((r) => r / Math.max(1, input.idleCount));
  const idleMaxAny = max(col("idleMax"));
  const idleMinAny = min(col("idleMin"));
  const busyPerRepo = col("busyRequests").map((r) => r / Math.max(1, input.busyCount));
  const cpus = col("cpuMs");
  const requests = col("requests");
  const cpuPerRequest = cpus.map((c, i) => c / Math.max(1, requests[i] ?? 0));
  const failedPolls = sum("failed");
  const failedAttempts = sum("attemptFailures");
  const failedSlack = sum("slackFailures");
  const floorMs = Math.ceil(s.repos / s.concurrency) * s.latencyMs;

  const point = (prefix: string) => memoryPoints.find((p) => p.label.startsWith(prefix));
  const startPoint = point("start");
  const middlePoint = point("middle");
  const endPoint = point("end");
  const sinceStart = endPoint && startPoint ? endPoint.heapUsed - startPoint.heapUsed : Number.NaN;
  // Heap after a gc moves by a MB or two from cycle to cycle: the verdict is on the trend of the second
  // half of the run (least squares), not on two single readings.
  const half = middleOf(s.cycles);
  const halfHeap = cycles.values("heapUsed", half);
  const halfRss = cycles.values("rss", half);
  const heapGrowth = slope(halfHeap) * (halfHeap.length - 1);
  const rssGrowth = slope(halfRss) * (halfRss.length - 1);
  const flatLimit = Math.max(1024 * 1024, 0.02 * mean(halfHeap));
  const flat = input.gc && Number.isFinite(heapGrowth) ? Math.abs(heapGrowth) <= flatLimit : null;
  const v = input.verification;
  const memoryLine = (p: MemoryPoint | undefined) => {
    if (!p) return "n/a";
    const when = /\(.*\)$/.exec(p.label)?.[0];
    return `RSS ${mb(p.rss)}, heap used ${mb(p.heapUsed)} of ${mb(p.heapTotal)}, external ${mb(p.external)}${when ? ` ${when}` : ""}`;
  };
  const p = (h: Histogram, q: number) => seconds(h.percentile(q));

  out(`Summary: cycles ${first}-${last} (${warmCount} cycles), figures per cycle unless said`);
  out(
    figures([
      {
        label: "cycle wall time",
        value: `p50 ${seconds(percentile(walls, 50))}, p95 ${seconds(percentile(walls, 95))}, max ${seconds(wallMax)} (max = ${num((100 * wallMax) / s.intervalMs)}% of the interval)`,
        target: `< ${intervalS} s, well under the poll interval`,
        met: wallMax < s.intervalMs,
      },
      {
        label: "  latency floor",
        value: `${seconds(floorMs)} = ceil(${s.repos} repositories / ${s.concurrency} at once) x ${s.latencyMs} ms, for reference`,
      },
      {
        label: "  delivery part",
        value: `p50 ${ms(percentile(col("deliverMs"), 50))}, max ${ms(max(col("deliverMs")))}`,
      },
      {
        label: "merge-queue requests",
        value: `p50 ${num(percentile(requests, 50))}, max ${num(max(requests))}; client attempts (onCall) p50 ${num(percentile(col("attempts"), 50))}`,
      },
      {
        label: "  per idle repository",
        value: `mean ${num(mean(idlePerRepo), 3)}, max ${num(idleMaxAny)}, min ${num(idleMinAny)}; idle repositories left unpolled: ${sum("idleUnpolled")} in all`,
        target: "<= 1 request per idle repository per cycle",
        met: idleMaxAny <= 1,
      },
      {
        label: "  per busy repository",
        value: `mean ${num(mean(busyPerRepo), 2)}, max ${num(max(col("busyMax")))} (log pages of 100 events)`,
      },
      {
        label: "  request latency",
        value: `p50 ${num(spread.attempt.percentile(50), 1)} ms, p99 ${num(spread.attempt.percentile(99), 1)} ms as the client saw it (${s.latencyMs} ms added)`,
      },
      {
        label: "Slack Web API calls",
        value: `p50 ${num(percentile(col("slackTotal"), 50))}, max ${num(max(col("slackTotal")))}; mean chat.postMessage ${num(mean(col("slackPosts")), 1)}, chat.update ${num(mean(col("slackUpdates")), 1)}, other ${num(mean(col("slackOther")), 1)}`,
      },
      {
        label: "events read, posted",
        value: `mean ${num(mean(col("events")), 1)} new events, ${num(mean(col("posts")), 1)} posts`,
      },
      {
        label: "CPU time",
        value: `p50 ${ms(percentile(cpus, 50))}, p95 ${ms(percentile(cpus, 95))}, max ${ms(max(cpus))} (user + system)\n${num(percentile(cpuPerRequest, 50), 2)} ms per merge-queue request; p50 = ${num((100 * percentile(cpus, 50)) / s.intervalMs, 1)}% of one core at a ${intervalS} s interval`,
        // The issue's figure for a quiet repository's read; the busy ones' notices are counted in it too.
        target: `<= ${QUIET_READ_TARGET_MS} ms of CPU per merge-queue request (a quiet repository's read)`,
        met: percentile(cpuPerRequest, 50) <= QUIET_READ_TARGET_MS,
      },
      { label: "memory after setup", value: memoryLine(point("after setup")) },
      { label: "memory at the start", value: memoryLine(startPoint) },
      { label: "memory in the middle", value: memoryLine(middlePoint) },
      { label: "memory at the end", value: memoryLine(endPoint) },
      {
        label: "  growth",
        value:
          `heap ${signedMb(sinceStart)} from the start to the end; over the second half (cycles ${half}-${last}):\n` +
          `heap trend ${signedMb(heapGrowth)} (${num(slope(halfHeap) / 1024, 1)} KB per cycle; readings ${num(min(halfHeap) / 1024 / 1024, 1)}-${num(max(halfHeap) / 1024 / 1024, 1)} MB),\n` +
          `RSS trend ${signedMb(rssGrowth)} (readings ${num(min(halfRss) / 1024 / 1024, 1)}-${num(max(halfRss) / 1024 / 1024, 1)} MB)`,
        target: `flat over a long run: heap trend over the second half within ${mb(flatLimit)}`,
        met: flat,
      },
      {
        label: "event-to-post lag",
        value: `p50 ${p(spread.lag, 50)}, p99 ${p(spread.lag, 99)}, max ${seconds(spread.lag.max)} (${spread.lag.count} posts)`,
      },
      {
        label: "  waiting for the poll",
        value: `p50 ${p(spread.wait, 50)}, p99 ${p(spread.wait, 99)}: received_at to the start of the cycle`,
      },
      {
        label: "  within the cycle",
        value: `p50 ${p(spread.inCycle, 50)}, p99 ${p(spread.inCycle, 99)}: start of the cycle (or received_at) to the post`,
      },
      {
        label: "delivery check",
        value:
          `${v.expected - v.missing} of the ${v.expected} subscribed events received before the last cycle were posted;\n` +
          `${v.duplicated} posted twice, ${sum("untrackedPosts")} posts of unknown events; ${num(cycles.get(last, "pendingLeft"))} rows left pending\n` +
          `after the last cycle's paced posts (${seconds(cycles.get(last, "settleMs"))}; at most ${SETTLE_LIMIT_MS / 1000} s)`,
        target: "every event posted, once",
        met: v.missing === 0 && v.duplicated === 0,
      },
      {
        label: "failures",
        value: `${failedPolls} failed polls, ${failedAttempts} failed merge-queue attempts, ${failedSlack} failed Slack calls;\n${input.rejectedRelays} queue commands refused by the simulator`,
        target: "none",
        met: failedPolls + failedAttempts + failedSlack === 0,
      },
    ]),
  );

  const served = input.servedUsage;
  const servedFirst = served[1];
  const servedLast = served[served.length - 1];
  const servedCpuMs =
    servedFirst && servedLast && served.length > 2
      ? (servedLast.cpuUserMicros +
          servedLast.cpuSystemMicros -
          servedFirst.cpuUserMicros -
          servedFirst.cpuSystemMicros) /
        1000 /
        Math.max(1, cycles.length - 1)
      : Number.NaN;
  out("");
  out("Notes");
  out(
    pairs([
      [
        "targets",
        "compared for information only: nothing is asserted, and the exit status does not depend on them",
      ],
      [
        "lag",
        `received_at comes from the simulator's clock (the wall clock plus the simulated intervals); the post\n` +
          `time is when the Slack stand-in recorded the chat.postMessage call, on the same clock. "Waiting for the\n` +
          `poll" is what the ${intervalS} s interval costs (about half of it on average); "within the cycle" is\n` +
          "the notifier's own part: a post waits for the whole poll phase, delivery runs after it.",
      ],
      [
        "CPU, memory",
        "this process only: Yardmaster (poller, deliverer, store, HTTP clients; its server idle). The simulator\n" +
          `and the Slack stand-in ran in the child process: ${ms(servedCpuMs)} CPU per cycle, RSS ${mb(servedLast?.rss ?? Number.NaN)} at\n` +
          "the end (its event log and Slack history grow with the run). Both processes share the machine's cores.\n" +
          "The benchmark keeps its figures in arrays allocated before the first cycle, so the heap growth is\n" +
          "Yardmaster's.",
      ],
      [
        "Slack",
        "the stand-in answers at once; real Slack adds latency and rate limits (about 1 post/s per channel)",
      ],
      [
        "store",
        `SQLite database + WAL: ${mb(input.dbBytes)} at the end (sent notifications and threads are kept)`,
      ],
      [
        "metrics",
        `the notifier's lag histogram (yardmaster_notification_lag_seconds) saw ${input.pollerLagObservations} posts`,
      ],
    ]),
  );
}

function signedMb(bytes: number): string {
  if (!Number.isFinite(bytes)) return "n/a";
  return `${bytes >= 0 ? "+" : "-"}${mb(Math.abs(bytes))}`;
}

export const notifierBenchmark: Benchmark = {
  name: "notifier",
  description: "poll cycles over many subscribed repositories against the merge-queue simulator",
  runsByDefault: true,
  usage: USAGE,
  run,
};
