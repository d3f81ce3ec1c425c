// The GitHub-replicas benchmark (issue 21, finding 2): N comment commands at once, split over 1, 2 and 3
// replicas of one GitHub App on one PostgreSQL, against the GitHub stand-in enforcing GitHub's secondary
// limits. What counts is the app's writes as the stand-in received them (`appWrites`): content-creating
// writes in the busiest 10 s and the busiest minute, in all, and whether any was refused (403 with
// retry-after). GitHub asks an app for about one write a second and at most 80 content creations a
// minute: with one pace per app in the store, one, two and three replicas write at the same pace.
//
// Each run has a world and a schema of its own. `--pace` runs GitHub's rules (in the stand-in and in
// Yardmaster alike) faster; the figures are then given in GitHub's time (the windows scaled the same).

import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import pg from "pg";
import { GITHUB_WRITE_LIMITS, scaleWriteLimits } from "../../../src/github/github-writes.js";
import { createLogger } from "../../../src/logger.js";
import { GITHUB_SECONDARY_LIMITS, scaleSecondaryLimits } from "../../stand-ins/github/index.js";
import { startWorld } from "../../world.js";
import { type Benchmark, type BenchmarkContext, UsageError } from "../lib/benchmark.js";
import { pairs, seconds, table } from "../lib/report.js";

const REPO = "acme/widgets";
const FIRST_PULL = 2_000;

const OPTIONS = {
  comments: { type: "string", default: "60" },
  replicas: { type: "string", default: "1,2,3" },
  pace: { type: "string", default: "0.5" },
  help: { type: "boolean", short: "h", default: false },
} as const;

const USAGE = `  --comments N         simultaneous "@yardmaster status" comments, split over the replicas (default 60)
  --replicas N[,N...]  replicas of the app, one run per number (default 1,2,3)
  --pace X             time scale of GitHub's limits, in the stand-in and in Yardmaster alike (default 0.5:
                       twice as fast, about a minute a run of 60 comments; 1: GitHub's own, about 2 minutes).
                       Faster paces magnify the jitter between a write's start and its arrival (a loaded
                       machine's event loop and database) against the stand-in's 3-write burst`;

interface Settings {
  comments: number;
  replicas: number[];
  pace: number;
}

function parseSettings(args: string[]): Settings | "help" {
  let values: ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS }>>["values"];
  try {
    ({ values } = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return "help";
  const comments = Number(values.comments);
  if (!/^\d+$/.test(String(values.comments)) || comments < 1 || comments > 600) {
    throw new UsageError(`--comments must be a whole number from 1 to 600 (got "${values.comments}")`);
  }
  const replicas = String(values.replicas)
    .split(",")
    .map((raw) => {
      if (!/^[1-5]$/.test(raw)) throw new UsageError(`--replicas must be numbers from 1 to 5 (got "${raw}")`);
      return Number(raw);
    });
  const pace = Number(values.pace);
  if (!Number.isFinite(pace) || pace <= 0 || pace > 10) {
    throw new UsageError(`--pace must be a number above 0, at most 10 (got "${values.pace}")`);
  }
  return { comments, replicas, pace };
}

interface RunResult {
  replicas: number;
  /** Content-creating writes the stand-in took (not refused). */
  content: number;
  /** The most in any window of 10 s, and of a minute, GitHub's time. */
  busiest10s: number;
  busiestMinute: number;
  /** From the first content write to the last, GitHub's time, ms. */
  spanMs: number;
  refused: number;
  /** Which rules the refusals broke, and which write (1-based, in arrival order) each was. */
  refusals: string[];
  answered: number;
  timedOut: boolean;
}

/** The most starts within any window of `windowMs` (sorted times). */
function busiest(times: readonly number[], windowMs: number): number {
  let most = 0;
  let first = 0;
  for (let last = 0; last < times.length; last++) {
    while (times[last]! - times[first]! >= windowMs) first += 1;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

async function runOnce(databaseUrl: string, replicas: number, s: Settings): Promise<RunResult> {
  const schema = `ym_bench_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(databaseUrl);
  url.searchParams.set("options", `-c search_path=${schema}`);
  const world = await startWorld({
    seed: "demo",
    settings: { DATABASE_URL: url.toString() },
    githubLimits: scaleSecondaryLimits(GITHUB_SECONDARY_LIMITS, s.pace),
    yardmaster: {
      logger: createLogger({ level: "silent" }),
      autoPoll: false,
      githubAnswers: { limits: scaleWriteLimits(GITHUB_WRITE_LIMITS, s.pace) },
    },
  });
  try {
    const urls = [world.url];
    for (let i = 1; i < replicas; i++) urls.push((await world.replica()).url);
    const gh = world.github;
    gh.state.addRepository(REPO);
    gh.state.setPermission(REPO, "alice", "write");
    const pulls = Array.from({ length: s.comments }, (_, i) => FIRST_PULL + i);
    for (const number of pulls) {
      gh.state.addPullRequest({ repository: REPO, number, author: "alice", title: `Change ${number}` });
    }
    const from = gh.appWrites.length;
    // Half to each replica (or a third...), round robin, all at once; a webhook GitHub gave up on after
    // 10 s changes nothing (the command runs on).
    const sent = pulls.map((number, i) =>
      gh
        .deliverIssueComment({
          repository: REPO,
          number,
          body: "@yardmaster status",
          author: "alice",
          url: `${urls[i % urls.length]}/api/github/webhooks`,
        })
        .catch(() => null),
    );
    await Promise.all(sent);
    const ids = pulls.map((n) => gh.state.comments(REPO, n).find((c) => c.user.login === "alice")?.id);
    const finalOf = (id: number | undefined) =>
      id !== undefined && gh.state.reactions(id).some((r) => r.content === "+1" || r.content === "confused");
    const deadline = Date.now() + s.comments * 2 * 1_000 * s.pace * 1.5 + 120_000 * s.pace + 10_000;
    while (!ids.every(finalOf) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await gh.settle();
    const writes = gh.appWrites.slice(from);
    const content = writes
      .filter((w) => w.content && !w.limited)
      .map((w) => w.at)
      .sort((a, b) => a - b);
    return {
      replicas,
      content: content.length,
      busiest10s: busiest(content, 10_000 * s.pace),
      busiestMinute: busiest(content, 60_000 * s.pace),
      spanMs: content.length > 1 ? (content.at(-1)! - content[0]!) / s.pace : 0,
      refused: writes.filter((w) => w.limited).length,
      refusals: gh.secondaryLimitHits.map((hit) => {
        const nth = writes.findIndex((w) => w.limited && new Date(w.at).toISOString() === hit.at) + 1;
        return `${hit.rule}, write ${nth} of ${writes.length}`;
      }),
      answered: ids.filter(finalOf).length,
      timedOut: !ids.every(finalOf),
    };
  } finally {
    await world.close();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await admin.end();
  }
}

async function run(args: string[], context: BenchmarkContext): Promise<void> {
  const { out } = context;
  const s = parseSettings(args);
  if (s === "help") {
    out(USAGE);
    return;
  }
  out("== github-replicas: one GitHub App's writes from 1, 2 and 3 replicas against GitHub's limits ==");
  out("");
  const { findPostgres } = await import("../../postgres/find-postgres.js");
  const found = await findPostgres();
  try {
    out("Setup");
    out(
      pairs([
        [
          "comments",
          `${s.comments} "@yardmaster status" at once, on as many pull requests, split round robin`,
        ],
        [
          "replicas",
          `${s.replicas.join(", ")} (one run each), on one PostgreSQL (${found.source}), a schema per run`,
        ],
        [
          "pace",
          s.pace === 1
            ? "GitHub's figures: about a write a second, 80 content creations a minute"
            : `GitHub's figures × ${s.pace} (${Number((1 / s.pace).toFixed(2))} times faster); figures below in GitHub's time`,
        ],
      ]),
    );
    out("");
    const rows: string[][] = [];
    for (const replicas of s.replicas) {
      const started = Date.now();
      const r = await runOnce(found.url, replicas, s);
      rows.push([
        String(replicas),
        String(r.content),
        String(r.busiest10s),
        String(r.busiestMinute),
        seconds(r.spanMs),
        r.refused === 0 ? "none" : `${r.refused} (${r.refusals.join("; ")})`,
        `${r.answered} of ${s.comments}${r.timedOut ? " (timed out)" : ""}`,
        seconds(Date.now() - started),
      ]);
    }
    out(
      table(
        [
          "replicas",
          "content writes",
          "busiest 10 s",
          "busiest minute",
          "first to last",
          "403/429",
          "answered",
          "run time",
        ],
        rows,
      ),
    );
    out("");
    out("Notes");
    out(
      pairs([
        [
          "guidance",
          "GitHub: about one content-creating write a second (10 in 10 s), at most 80 a minute, 500 an\n" +
            "hour; the stand-in answers 403 with retry-after beyond them (a burst of 3 above the pace)",
        ],
        ["content writes", "comments and reactions the stand-in took: a summary and a 👍 per command"],
        ["run time", "wall time of the run (the world's start included), not GitHub's time"],
        [
          "403/429",
          "the rule broken and which write; at a faster --pace, a start's jitter to its arrival (the\n" +
            "event loop, the database) counts 1/pace times more against the stand-in's burst of 3",
        ],
      ]),
    );
  } finally {
    await found.stop();
  }
}

export const githubReplicasBenchmark: Benchmark = {
  name: "github-replicas",
  description:
    "one GitHub App's content writes from 1, 2 and 3 replicas on PostgreSQL, against GitHub's limits",
  runsByDefault: true,
  usage: USAGE,
  run,
};
