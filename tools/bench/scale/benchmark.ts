// The scale benchmark (issue 11): the notifier at team scale. Four parts, each in a world of its own
// (tools/world.ts), all in this process:
//   1. idle:     merge-queue requests per idle repository per hour, with and without the doorbell
//                (simulated time: a poller pass every few seconds of the simulator's manual clock);
//   2. lag:      event-to-post lag with the doorbell at a 60 s interval (real time, the notifier by itself);
//   3. slack:    a burst of notices for one channel under Slack's one-a-second limit, and a quiet
//                channel's lag meanwhile (real time, the Slack stand-in's limits on);
//   4. replicas: the 1,000-repository cycle with 1, 2 and 3 replicas on one PostgreSQL (simulated time);
//   5. stream:   log reads per minute under a steady stream of webhooks on one busy repository, and each
//                logged event's webhook-to-post lag (real time);
//   6. backlog:  thousands of events at once in one repository's log (an outage): the channel's notices
//                in the first minute under Slack's limits, with personal notices on (real time);
//   7. takeover: two replicas on one PostgreSQL, the one posting a 24-notice burst killed (`kill -9`):
//                from the kill to the survivor's last notice, at Slack's pace (real time).
// Figures are printed with their targets, never asserted. Each part's module (Yardmaster, the stand-ins)
// is loaded when the part runs: a bad flag is answered without loading them.

import { parseArgs } from "node:util";
import { type Benchmark, type BenchmarkContext, UsageError } from "../lib/benchmark.js";
import {
  type Figure,
  figures,
  max,
  mean,
  min,
  ms,
  num,
  pairs,
  percentile,
  seconds,
  table,
} from "../lib/report.js";
import type { DoorbellLagRun } from "./doorbell-lag.js";
import type { IdleRun } from "./idle-requests.js";
import type { ReplicaRun } from "./replicas.js";
import type { SlackPaceRun } from "./slack-pace.js";
import type { TakeoverRun } from "./takeover.js";

const PARTS = ["idle", "lag", "slack", "replicas", "stream", "backlog", "takeover"] as const;
type Part = (typeof PARTS)[number];

const OPTIONS = {
  parts: { type: "string", default: PARTS.join(",") },
  interval: { type: "string", default: "15" },
  idle: { type: "string", default: "300" },
  "idle-repos": { type: "string", default: "20" },
  "idle-step": { type: "string", default: "5" },
  "lag-interval": { type: "string", default: "60" },
  "lag-repos": { type: "string", default: "4" },
  "lag-samples": { type: "string", default: "60" },
  "lag-spacing": { type: "string", default: "1500" },
  "lag-max": { type: "string", default: "120" },
  burst: { type: "string", default: "20" },
  "quiet-after": { type: "string", default: "5" },
  repos: { type: "string", default: "1000" },
  busy: { type: "string", default: "10" },
  replicas: { type: "string", default: "1,2,3" },
  cycles: { type: "string", default: "4" },
  "stream-rate": { type: "string", default: "5" },
  "stream-seconds": { type: "string", default: "60" },
  "min-gap": { type: "string", default: "2" },
  "backlog-events": { type: "string", default: "3000" },
  "backlog-window": { type: "string", default: "60" },
  "takeover-pulls": { type: "string", default: "6" },
  help: { type: "boolean", short: "h", default: false },
} as const;

const USAGE = `  --parts LIST        which parts, comma-separated (default ${PARTS.join(",")})
  --interval S        POLL_INTERVAL_SECONDS of the idle, slack and replicas parts (default 15)
  --idle S            POLL_IDLE_SECONDS (default 300)
  --idle-repos N      idle: idle repositories (default 20)
  --idle-step S       idle: simulated seconds between two poller passes over the hour (default 5)
  --lag-interval S    lag: POLL_INTERVAL_SECONDS (default 60)
  --lag-repos N       lag: subscribed repositories pull requests are queued in (default 4)
  --lag-samples N     lag: events to measure at least (default 60)
  --lag-spacing MS    lag: real time between two pull requests queued (default 1500)
  --lag-max S         lag: at most this long queueing pull requests (default 120)
  --burst N           slack: notices in the busy channel's burst (default 20)
  --quiet-after S     slack: the quiet channel's event, this long after the burst began (default 5)
  --repos N           replicas: subscribed repositories (default 1000)
  --busy N            replicas: of which busy, 2 pull requests queued each per cycle (default 10)
  --replicas LIST     replicas: replica counts, comma-separated (default 1,2,3)
  --cycles N          replicas: cycles per replica count (default 4; cycle 1 is the first reads)
  --stream-rate N     stream: check_run webhooks a second on the busy repository (default 5)
  --stream-seconds S  stream: how long they come (default 60; reads are given per minute)
  --min-gap S         stream: DOORBELL_MIN_GAP_SECONDS (default 2)
  --backlog-events N  backlog: events at once in the repository's log (default 3000)
  --backlog-window S  backlog: posts counted over this long from the events (default 60)
  --takeover-pulls N  takeover: pull requests queued in each of its two repositories, two notices each
                      (default 6: issue 32's 24 notices)
  PostgreSQL for the replicas and takeover parts: TEST_DATABASE_URL, else 127.0.0.1:5432 (database test),
  else embedded.`;

interface Settings {
  parts: Set<Part>;
  intervalS: number;
  idleS: number;
  idleRepos: number;
  idleStepMs: number;
  lagIntervalS: number;
  lagRepos: number;
  lagSamples: number;
  lagSpacingMs: number;
  lagMaxMs: number;
  burst: number;
  quietAfterMs: number;
  repos: number;
  busy: number;
  replicas: number[];
  cycles: number;
  streamRate: number;
  streamSeconds: number;
  minGapS: number;
  backlogEvents: number;
  backlogWindowMs: number;
  takeoverPulls: number;
}

function parseSettings(args: string[]): Settings | "help" {
  let values: ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS }>>["values"];
  try {
    ({ values } = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return "help";
  const whole = (raw: string, name: string, minimum: number, maximum = Number.MAX_SAFE_INTEGER): number => {
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < minimum || value > maximum) {
      throw new UsageError(`--${name} must be a whole number from ${minimum} to ${maximum} (got "${raw}")`);
    }
    return value;
  };
  const integer = (name: keyof typeof OPTIONS, minimum: number, maximum?: number): number =>
    whole(String(values[name]), name, minimum, maximum);
  const parts = new Set<Part>();
  for (const raw of String(values.parts).split(",")) {
    if (!(PARTS as readonly string[]).includes(raw)) {
      throw new UsageError(`--parts takes ${PARTS.join(", ")} (got "${raw}")`);
    }
    parts.add(raw as Part);
  }
  const settings: Settings = {
    parts,
    intervalS: integer("interval", 1, 3600),
    idleS: integer("idle", 1, 86_400),
    idleRepos: integer("idle-repos", 1, 1000),
    idleStepMs: integer("idle-step", 1, 3600) * 1000,
    lagIntervalS: integer("lag-interval", 1, 3600),
    lagRepos: integer("lag-repos", 1, 50),
    lagSamples: integer("lag-samples", 1, 10_000),
    lagSpacingMs: integer("lag-spacing", 10, 60_000),
    lagMaxMs: integer("lag-max", 1, 3600) * 1000,
    burst: integer("burst", 1, 200),
    quietAfterMs: integer("quiet-after", 0, 600) * 1000,
    repos: integer("repos", 1, 9999),
    busy: integer("busy", 0),
    replicas: String(values.replicas)
      .split(",")
      .map((raw) => whole(raw, "replicas", 1, 10)),
    cycles: integer("cycles", 2, 1000),
    streamRate: integer("stream-rate", 1, 50),
    streamSeconds: integer("stream-seconds", 5, 3600),
    minGapS: integer("min-gap", 1, 3600),
    backlogEvents: integer("backlog-events", 1, 100_000),
    backlogWindowMs: integer("backlog-window", 5, 3600) * 1000,
    takeoverPulls: integer("takeover-pulls", 1, 100),
  };
  if (settings.busy > settings.repos) throw new UsageError("--busy must not exceed --repos");
  if (settings.idleS < settings.intervalS) throw new UsageError("--idle must be at least --interval");
  return settings;
}

async function run(args: string[], context: BenchmarkContext): Promise<void> {
  const parsed = parseSettings(args);
  const { out } = context;
  if (parsed === "help") {
    out(`scale benchmark flags:\n${USAGE}`);
    return;
  }
  const s = parsed;
  const { split } = await import("./common.js");
  out("== scale: the notifier at team scale (doorbell, Slack's limits, replicas) ==");
  out("");
  out("Setup");
  out(
    pairs([
      [
        "idle",
        `${s.idleRepos} idle repositories (no events), one simulated hour, a poller pass every ${s.idleStepMs / 1000} s;\n` +
          `POLL_INTERVAL_SECONDS ${s.intervalS}, POLL_IDLE_SECONDS ${s.idleS}; once with installations receiving\n` +
          "check_run and pull_request (the doorbell), once with issue_comment only",
      ],
      [
        "lag",
        `${s.lagRepos} repositories, a channel each (queue, checks); POLL_INTERVAL_SECONDS ${s.lagIntervalS}; a pull\n` +
          `request queued every ${s.lagSpacingMs} ms until ${s.lagSamples} events were logged (at most ${s.lagMaxMs / 1000} s);\n` +
          "real time: the notifier runs by itself, the GitHub stand-in sends the queue's webhooks",
      ],
      [
        "slack",
        `the Slack stand-in limits on (chat.postMessage 1/s per channel, burst 3; chat.update 50/min);\n` +
          `${s.burst} pause events at once for a busy channel, one for a quiet channel ${s.quietAfterMs / 1000} s later;\n` +
          "each followed by a check_run webhook (a pause makes none): the read GitHub's activity asks for",
      ],
      [
        "replicas",
        `${s.repos} repositories (${s.busy} busy: 2 pull requests queued each per cycle), ${s.cycles} cycles of\n` +
          `${s.intervalS} simulated seconds, with ${s.replicas.join(", ")} replica(s) on one PostgreSQL (a schema per run);\n` +
          "every replica's poller passes at once each cycle; GitHub off (every repository read at the interval)",
      ],
      [
        "stream",
        `one busy repository, ${s.streamRate} check_run webhooks a second for ${s.streamSeconds} s; POLL_INTERVAL_SECONDS ${s.intervalS},\n` +
          `DOORBELL_MIN_GAP_SECONDS ${s.minGapS}; a pause or unpause logged just before a webhook every 5 s`,
      ],
      [
        "backlog",
        `${s.backlogEvents} events at once in one repository's log (pull requests entering, checked, merged, 4 at a time),\n` +
          "one channel (queue, checks), 10 linked authors (personal notices); the Slack stand-in's limits on;\n" +
          `counted over the first ${s.backlogWindowMs / 1000} s after GitHub's webhook`,
      ],
      [
        "takeover",
        `two replicas on one PostgreSQL (one in a process of its own), ${2 * s.takeoverPulls} pull requests queued in two repositories\n` +
          `for one channel (${4 * s.takeoverPulls} notices); the replica posting them killed (kill -9) as Slack takes its first post;\n` +
          "the Slack stand-in's limits on, both replicas at Yardmaster's pace; POLL_INTERVAL_SECONDS 1",
      ],
      ["parts run", [...s.parts].join(", ")],
    ]),
  );
  out("");

  const rows: Figure[] = [];
  const notes: [string, string][] = [];

  if (s.parts.has("idle")) {
    const { idleRequests } = await import("./idle-requests.js");
    const runs: IdleRun[] = [];
    for (const doorbell of [true, false]) {
      runs.push(
        await idleRequests({
          repositories: s.idleRepos,
          stepMs: s.idleStepMs,
          intervalS: s.intervalS,
          idleS: s.idleS,
          doorbell,
        }),
      );
    }
    const [withBell, without] = runs as [IdleRun, IdleRun];
    const perHour = (r: IdleRun) => mean(r.perRepository);
    const describe = (r: IdleRun) =>
      `${num(perHour(r), 1)} (min ${min(r.perRepository)}, max ${max(r.perRepository)}; by reason, per repository:\n${split(r.byReason, r.repositories, 1)})`;
    rows.push(
      {
        label: "requests per idle repository per hour, doorbell",
        value: describe(withBell),
        target: "<= 15",
        met: perHour(withBell) <= 15,
      },
      {
        label: "requests per idle repository per hour, no doorbell",
        value: describe(without),
        target: `${3600 / s.intervalS} at the ${s.intervalS} s interval (today's cost, for comparison)`,
      },
    );
  }

  if (s.parts.has("lag")) {
    const { doorbellLag } = await import("./doorbell-lag.js");
    const r: DoorbellLagRun = await doorbellLag({
      repositories: s.lagRepos,
      samples: s.lagSamples,
      spacingMs: s.lagSpacingMs,
      maxDurationMs: s.lagMaxMs,
      intervalS: s.lagIntervalS,
    });
    const p99 = percentile(r.lags, 99);
    rows.push({
      label: `event-to-post lag p99, doorbell, ${s.lagIntervalS} s interval`,
      value:
        `${seconds(p99)} (${r.lags.length} events posted of ${r.lags.length + r.missing}; p50 ${seconds(percentile(r.lags, 50))},\n` +
        `p90 ${seconds(percentile(r.lags, 90))}, max ${seconds(max(r.lags))}; ${r.pulls} pull requests in ${seconds(r.durationMs)}; ${r.rings} rings,\n` +
        `log reads by reason: ${split(r.byReason)})`,
      target: "<= 2 s",
      met: r.missing === 0 && p99 <= 2000,
    });
    const types = Object.entries(r.worstByType).map(([type, lag]) => `${type} ${ms(lag)}`);
    notes.push([
      "lag, worst by type",
      types.length === 0
        ? "none"
        : Array.from({ length: Math.ceil(types.length / 3) }, (_, i) =>
            types.slice(i * 3, i * 3 + 3).join(", "),
          ).join(",\n"),
    ]);
  }

  if (s.parts.has("slack")) {
    const { slackPace } = await import("./slack-pace.js");
    const r: SlackPaceRun = await slackPace({
      burst: s.burst,
      quietAfterMs: s.quietAfterMs,
      intervalS: s.intervalS,
    });
    // A burst of 3, then one a second.
    const floorS = Math.max(0, r.burst - 3);
    rows.push(
      {
        label: `${r.burst} notices for one channel, first event to last post`,
        value: `${seconds(r.busyMs)} (${r.busyPosted} of ${r.burst} posted; ${r.rateLimited} posts answered 429)`,
        target: `<= ${r.burst} s (the floor: about ${floorS} s)`,
        met: Number.isFinite(r.busyMs) && r.busyMs <= r.burst * 1000,
      },
      {
        label: "quiet channel's lag during the burst",
        value: `${seconds(r.quietLagMs)} (${r.quietBeforeBusyEnd ? "posted before" : "NOT posted before"} the busy channel's last notice)`,
        target: "<= 1 s",
        met: Number.isFinite(r.quietLagMs) && r.quietLagMs <= 1000,
      },
    );
  }

  if (s.parts.has("replicas")) {
    const { replicaCycles } = await import("./replicas.js");
    const { findPostgres } = await import("../../postgres/find-postgres.js");
    let found: Awaited<ReturnType<typeof findPostgres>> | undefined;
    try {
      found = await findPostgres();
    } catch (error) {
      rows.push({
        label: "requests per cycle, replicas",
        value: `n/a: no PostgreSQL (${(error as Error).message.split("\n")[0]})`,
        target: "same as 1 replica",
        met: false,
      });
    }
    if (found) {
      try {
        const runs: ReplicaRun[] = [];
        for (const replicas of s.replicas) {
          runs.push(
            await replicaCycles({
              databaseUrl: found.url,
              replicas,
              repositories: s.repos,
              busy: s.busy,
              cycles: s.cycles,
              intervalS: s.intervalS,
            }),
          );
        }
        // Cycle 1 is the first read of every repository (reason "new"): left out.
        const perCycle = (r: ReplicaRun) => mean(r.requests.slice(1));
        const one = runs.find((r) => r.replicas === 1) ?? runs[0];
        const base = one ? perCycle(one) : Number.NaN;
        for (const r of runs) {
          rows.push({
            label: `requests per cycle, ${r.replicas} replica${r.replicas === 1 ? "" : "s"}`,
            value: `${num(perCycle(r), 1)} (cycles 2-${r.requests.length}: ${r.requests.slice(1).join(", ")})`,
            target:
              r === one
                ? `${s.repos} (one read per repository)`
                : `same as ${one?.replicas} replica (${num(base, 1)})`,
            met: r === one ? null : perCycle(r) <= base,
          });
        }
        notes.push([
          "replicas",
          `PostgreSQL: ${found.source === "embedded" ? "embedded (started for the run)" : found.source}\n${table(
            ["replicas", "requests/cycle", "reads by replica", "cycle wall p50", "notices", "posted twice"],
            runs.map((r) => [
              String(r.replicas),
              num(perCycle(r), 1),
              r.perReplica.join("/"),
              ms(percentile(r.wallMs.slice(1), 50)),
              String(r.posted),
              String(r.duplicates),
            ]),
            "",
          )}`,
        ]);
      } finally {
        await found.stop();
      }
    }
  }

  if (s.parts.has("stream")) {
    const { webhookStream } = await import("./webhook-stream.js");
    const r = await webhookStream({
      rate: s.streamRate,
      seconds: s.streamSeconds,
      probeEverySeconds: 5,
      intervalS: s.intervalS,
      minGapS: s.minGapS,
    });
    const perMinute = (r.reads * 60) / r.seconds;
    rows.push(
      {
        label: `log reads per minute, ${r.rate} webhooks a second`,
        value: `${num(perMinute, 1)} (${r.reads} in ${r.seconds} s for ${r.webhooks} webhooks; by reason: ${split(r.byReason)};\n${r.readsAfter} after the stream: the follow-up)`,
        target: "<= 30",
        met: perMinute <= 30,
      },
      {
        label: "webhook-to-post lag during the stream, max",
        value: `${seconds(max(r.lags))} (${r.lags.length} events posted of ${r.lags.length + r.missing}; p50 ${seconds(percentile(r.lags, 50))})`,
        target: "<= 3 s",
        met: r.missing === 0 && max(r.lags) <= 3000,
      },
    );
  }

  if (s.parts.has("backlog")) {
    const { backlog } = await import("./backlog.js");
    const r = await backlog({ events: s.backlogEvents, windowMs: s.backlogWindowMs, intervalS: s.intervalS });
    const window = `${r.windowMs / 1000} s`;
    rows.push(
      {
        label: `${r.events}-event backlog: channel notices in the first ${window}`,
        value: `${r.channelPosts} (the first after ${seconds(r.firstPostMs)}; ${r.parentEdits} parent edits;\nanswered 429: ${r.rateLimited["chat.postMessage"]} posts, ${r.rateLimited["chat.update"]} edits, direct messages' included)`,
        target: r.windowMs === 60_000 ? ">= 50" : `>= ${Math.floor((50 * r.windowMs) / 60_000)}`,
        met: r.channelPosts >= Math.floor((50 * r.windowMs) / 60_000),
      },
      {
        label: `${r.events}-event backlog: GitHub pull-request reads in the first ${window}`,
        value: `${r.githubPullReads} for ${r.pulls} pull requests and ${r.threadsStarted} threads started (${r.directPosts} direct messages posted)`,
        target: `<= ${r.pulls + r.threadsStarted} (an author per pull request, a title per thread)`,
        met: r.githubPullReads <= r.pulls + r.threadsStarted,
      },
    );
  }

  if (s.parts.has("takeover")) await takeoverFigure(rows, s.takeoverPulls);

  out("Figures");
  out(figures(rows));
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
        "from the event's received_at (the simulator's clock) to the moment the Slack stand-in recorded the\n" +
          "chat.postMessage, on one time line; the doorbell reads 0.3 s after a webhook, and the loop looks for\n" +
          "due repositories every second",
      ],
      ...notes,
    ]),
  );
}

/** Figure 7: issue 32's kill -9 mid-burst, from the kill to the survivor's last notice. */
async function takeoverFigure(rows: Figure[], pulls: number): Promise<void> {
  const label = `kill -9 mid-burst: to the survivor's last of ${4 * pulls} notices`;
  // The one in flight at the kill is in the channel; the survivor posts the rest, 3 at once then one a second.
  const floorS = Math.max(0, 4 * pulls - 1 - 3);
  const limitS = pulls === 6 ? 30 : floorS + 10;
  const target = `<= ${limitS} s (Slack's pace alone: ${floorS} s)`;
  const { findPostgres } = await import("../../postgres/find-postgres.js");
  let found: Awaited<ReturnType<typeof findPostgres>>;
  try {
    found = await findPostgres();
  } catch (error) {
    rows.push({
      label,
      value: `n/a: no PostgreSQL (${(error as Error).message.split("\n")[0]})`,
      target,
      met: false,
    });
    return;
  }
  try {
    const { takeover } = await import("./takeover.js");
    const r: TakeoverRun = await takeover({ databaseUrl: found.url, pullsPerRepository: pulls });
    rows.push({
      label,
      value:
        `${seconds(r.lastMs)} (the survivor's first post after ${seconds(r.firstMs)}: the lease's lapse; ${r.posted} of\n` +
        `${r.notices} posted, ${r.duplicates} twice; ${r.rateLimited} posts answered 429)`,
      target,
      met: Number.isFinite(r.lastMs) && r.lastMs <= limitS * 1000 && r.duplicates === 0,
    });
  } finally {
    await found.stop();
  }
}

export const scaleBenchmark: Benchmark = {
  name: "scale",
  description: "the notifier at team scale: the doorbell, Slack's per-channel limits, replicas on PostgreSQL",
  runsByDefault: true,
  usage: USAGE,
  run,
};
