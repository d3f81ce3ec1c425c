// The notifier benchmark's backlog phase (issue 32, "the seams", item 4): after the cycles, thousands
// of events appear at once in one more repository's log (an outage's backlog), and Yardmaster's notifier
// runs by itself (its poller started) for a window, on its SQLite file, while the servers' process asks
// Yardmaster's /healthz every few milliseconds. Measured in Yardmaster's process: the longest event-loop
// block (a timer every millisecond, lib/loop-monitor.ts, and the nodejs_eventloop_lag_max_seconds metric
// /metrics serves); in the servers' process, whose event loop is not Yardmaster's: /healthz's latency.

import { availableParallelism, loadavg } from "node:os";
import type { Subscription } from "../../../src/core/records.js";
import type { Metrics } from "../../../src/metrics.js";
import { Repo } from "../../../src/repo.js";
import type { Yardmaster } from "../../../src/yardmaster.js";
import { type LoopFigures, LoopMonitor } from "../lib/loop-monitor.js";
import { type Figure, max, ms, num, percentile } from "../lib/report.js";
import type { ServersClient } from "./protocol.js";

const REPOSITORY = "bench/backlog";
const CHANNEL = "C0BACKLOG";
/** The target of issue 32: no event-loop task, and no /healthz answer, longer than this. */
const TARGET_MS = 100;

export interface BacklogSettings {
  events: number;
  windowMs: number;
  probeMs: number;
  latencyMs: number;
  groups: string[];
}

export interface BacklogRun {
  events: number;
  pulls: number;
  /** From the append to the poll cursor stored: the whole log read, recorded and queued. */
  queuedMs: number;
  loop: LoopFigures;
  /** The machine's 1-minute load average at the window's end, and its cores. */
  load: number;
  cores: number;
  /** nodejs_eventloop_lag_max_seconds at the end of the window (ms), read once (it resets at each read). */
  metricMaxMs: number;
  healthz: { latenciesMs: number[]; failures: number };
  /** The backlog's notices posted in the window, and still pending in the outbox at its end. */
  posted: number;
  duplicated: number;
  pending: number;
}

/** Runs the backlog phase; the poller runs by itself during it and is stopped at its end. */
export async function backlogPhase(
  settings: BacklogSettings,
  deps: { servers: ServersClient; app: Yardmaster; url: string },
): Promise<BacklogRun> {
  const { servers, app } = deps;
  const { store, metrics } = app;
  const poller = app.poller;
  if (!poller) throw new Error("the notifier is not wired (Slack off?)");
  const appended = await servers.call("backlog", {
    repository: REPOSITORY,
    channel: CHANNEL,
    events: settings.events,
    latencyMs: settings.latencyMs,
  });
  await lagMaxMs(metrics); // reads, and so resets, the metric's window
  const monitor = new LoopMonitor(TARGET_MS);
  monitor.start();
  await servers.call("probeStart", { url: `${deps.url}/healthz`, everyMs: settings.probeMs });
  const start = performance.now();
  const subscription: Subscription = {
    channelId: CHANNEL,
    teamId: "T0001",
    repository: Repo.from(REPOSITORY),
    branchGlob: null,
    groups: settings.groups,
    createdBy: "bench",
    // Before the events: the new subscription's first read takes them all.
    createdAt: new Date(appended.at - 60_000),
  };
  await store.putSubscription(subscription);
  poller.start();
  let queuedMs = Number.NaN;
  while (performance.now() - start < settings.windowMs) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    if (Number.isNaN(queuedMs) && (await store.getPollCursor(subscription.repository)))
      queuedMs = performance.now() - start;
  }
  await poller.stop();
  const healthz = await servers.call("probeStop", {});
  const loop = monitor.stop();
  const metricMaxMs = await lagMaxMs(metrics);
  const collected = await servers.call("collect", {});
  const posts = collected.posts.filter((p) => p.repository === REPOSITORY);
  const stats = await store.pendingNotificationStats();
  return {
    events: appended.events,
    pulls: appended.pulls,
    queuedMs,
    loop,
    load: loadavg()[0] ?? Number.NaN,
    cores: availableParallelism(),
    metricMaxMs,
    healthz,
    posted: new Set(posts.map((p) => p.eventId)).size,
    duplicated: posts.length - new Set(posts.map((p) => p.eventId)).size,
    pending: stats.find((s) => s.channelId === CHANNEL)?.pending ?? 0,
  };
}

/** nodejs_eventloop_lag_max_seconds (prom-client's default metrics) as /metrics would serve it now, ms. */
async function lagMaxMs(metrics: Metrics): Promise<number> {
  const all = await metrics.registry.getMetricsAsJSON();
  const metric = all.find((m) => m.name === "nodejs_eventloop_lag_max_seconds");
  const value = metric?.values[0]?.value;
  return typeof value === "number" ? value * 1000 : Number.NaN;
}

/** The phase's setup lines. */
export function backlogSetup(settings: BacklogSettings): [string, string] {
  return [
    "backlog phase",
    `after the cycles: ${settings.events} events at once in ${REPOSITORY} (channel ${CHANNEL}), the poller running by\n` +
      `itself for ${settings.windowMs / 1000} s; /healthz asked every ${settings.probeMs} ms from the servers' process`,
  ];
}

/** The phase's figures with their targets. */
export function backlogFigures(r: BacklogRun): Figure[] {
  const h = r.healthz.latenciesMs;
  const l = r.loop;
  const healthMax = max(h);
  const slow = h.filter((v) => v > TARGET_MS).length;
  return [
    {
      label: "backlog read and queued",
      value: `${r.events} events of ${r.pulls} pull requests: log read, history recorded and notices queued\n${ms(r.queuedMs)} after the events (poll cursor stored)`,
    },
    {
      label: "  longest event-loop block",
      value:
        `${num(l.maxMs, 1)} ms (a 1 ms timer's longest gap; p99 ${num(l.p99Ms, 1)} ms, ${l.over} of ${l.samples} gaps over ${l.overMs} ms);\n` +
        `the process's CPU time in that gap ${num(l.cpuOfMaxMs, 1)} ms, in any one gap at most ${num(l.maxCpuMs, 1)} ms\n` +
        `(the rest of a gap: waiting for a core; load average ${num(r.load, 1)} on ${r.cores} cores);\n` +
        `nodejs_eventloop_lag_max_seconds at the window's end: ${num(r.metricMaxMs / 1000, 3)} s`,
      target: `< ${TARGET_MS} ms`,
      met: Number.isFinite(l.maxMs) ? l.maxMs < TARGET_MS : null,
    },
    {
      label: "  longest event-loop task",
      value:
        `${num(l.maxTaskMs, 1)} ms: a gap less the main thread's wait for a core in it (/proc/thread-self/schedstat),\n` +
        `from a gap of ${num(l.gapOfMaxTaskMs, 1)} ms, ${num(l.oncpuOfMaxTaskMs, 1)} ms of it on a core (the rest: synchronous I/O,\n` +
        "or waiting for the garbage collector's threads): what ran on the loop, as an idle machine would\n" +
        `have run it; the main thread on a core in any one gap: at most ${num(l.maxOncpuMs, 1)} ms`,
      target: `< ${TARGET_MS} ms`,
      met: Number.isFinite(l.maxTaskMs) ? l.maxTaskMs < TARGET_MS : null,
    },
    {
      label: "  /healthz latency",
      value: `p50 ${num(percentile(h, 50), 1)} ms, p99 ${num(percentile(h, 99), 1)} ms, max ${num(healthMax, 1)} ms; ${h.length} answered, ${slow} over ${TARGET_MS} ms, ${r.healthz.failures} failed`,
      target: `every answer < ${TARGET_MS} ms`,
      met: h.length > 0 ? healthMax < TARGET_MS && r.healthz.failures === 0 : null,
    },
    {
      label: "  backlog notices",
      value: `${r.posted} posted in the window (one channel: Slack's pace), ${r.pending} pending in the outbox;\n${r.duplicated} posted twice`,
      target: "every event once: posted + pending = events, none twice",
      met: r.posted + r.pending === r.events && r.duplicated === 0,
    },
  ];
}
