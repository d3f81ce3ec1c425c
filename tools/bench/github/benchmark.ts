// The GitHub-load benchmark (issue 10, finding 3): many people comment a command at the same moment, on
// as many pull requests, and each waits for the answer (the summary comment). Everything runs in this
// process, started by tools/world.ts: the GitHub stand-in enforcing GitHub's secondary rate limits on the
// app's writes (a write a second, 80 content creations a minute, 500 an hour; a 403 with retry-after
// beyond them), the merge-queue simulator, and Yardmaster with its production Octokit and write queue.
// Comments arrive as signed webhooks, as GitHub sends them.
//
// Times are read from the stand-in's request log: a comment's answer is when the stand-in received the
// successful creation of its pull request's summary comment, measured from the moment the comments were
// sent. A webhook's answer is when Yardmaster answered its delivery (GitHub marks a delivery failed after
// 10 s), measured from when that delivery was sent. Each size runs in a world of its own (the hour's 500 creations are not shared between runs).

import { parseArgs } from "node:util";
import { GITHUB_WRITE_LIMITS, scaleWriteLimits } from "../../../src/github/github-writes.js";
import { SUMMARY_MARKER } from "../../../src/github/summary-comment.js";
import { createLogger } from "../../../src/logger.js";
import {
  GITHUB_SECONDARY_LIMITS,
  type RecordedRequest,
  scaleSecondaryLimits,
} from "../../stand-ins/github/index.js";
import { startWorld, type World } from "../../world.js";
import { type Benchmark, type BenchmarkContext, UsageError } from "../lib/benchmark.js";
import { figures, max, min, pairs, percentile, seconds, table } from "../lib/report.js";
import { startProcessSender } from "./sender-protocol.js";

const REPO = "acme/widgets";
const FIRST_PULL = 1_000;

const OPTIONS = {
  comments: { type: "string", default: "40,200" },
  pace: { type: "string", default: "1" },
  command: { type: "string", default: "status" },
  sender: { type: "string", default: "process" },
  help: { type: "boolean", short: "h", default: false },
} as const;

const USAGE = `  --comments N[,N...]  simultaneous comment commands, one run per number (default 40,200)
  --pace X             time scale of GitHub's limits, in the stand-in and in Yardmaster alike
                       (default 1: GitHub's own figures; 0.1 runs the same rules 10 times faster)
  --command TEXT       what each comment asks (default "status"; any read: "help", "status main")
  --sender WHERE       where the webhooks are sent from: "process" (default: a process of its own, as
                       GitHub sends from its own machines, timing each answer there) or "here" (this
                       process, which also runs Yardmaster: its sending then competes with the answers)`;

interface Settings {
  sizes: number[];
  pace: number;
  command: string;
  sender: "process" | "here";
}

function parseSettings(args: string[]): Settings | "help" {
  let values: ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS }>>["values"];
  try {
    ({ values } = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return "help";
  const sizes = String(values.comments)
    .split(",")
    .map((raw) => {
      const value = Number(raw);
      if (!/^\d+$/.test(raw) || value < 1 || value > 2_000) {
        throw new UsageError(
          `--comments must be whole numbers from 1 to 2000, separated by commas (got "${raw}")`,
        );
      }
      return value;
    });
  const pace = Number(values.pace);
  if (!Number.isFinite(pace) || pace <= 0 || pace > 10) {
    throw new UsageError(`--pace must be a number above 0, at most 10 (got "${values.pace}")`);
  }
  const command = String(values.command).trim();
  if (command === "" || /[\r\n]/.test(command)) throw new UsageError("--command must be one line of text");
  const sender = String(values.sender);
  if (sender !== "process" && sender !== "here") {
    throw new UsageError(`--sender must be "process" or "here" (got "${sender}")`);
  }
  return { sizes, pace, command, sender };
}

interface RunResult {
  comments: number;
  /** Per comment, ms from sending to its answer; NaN when it never came. */
  answers: number[];
  /** Per comment, ms from sending to its final reaction (👍 or 😕); NaN when it never came. */
  finals: number[];
  /** Per webhook answered, ms from sending its delivery to Yardmaster's answer. */
  webhookAnswers: number[];
  writes: { answers: number; eyes: number; finals: number; other: number; refused: number };
  secondaryLimitHits: number;
  webhookStatuses: Record<string, number>;
  timedOut: boolean;
}

async function runOnce(comments: number, s: Settings): Promise<RunResult> {
  const world: World = await startWorld({
    seed: "demo",
    githubLimits: scaleSecondaryLimits(GITHUB_SECONDARY_LIMITS, s.pace),
    yardmaster: {
      logger: createLogger({ level: "silent" }),
      autoPoll: false,
      githubAnswers: { limits: scaleWriteLimits(GITHUB_WRITE_LIMITS, s.pace) },
    },
  });
  const sender = s.sender === "process" ? startProcessSender() : null;
  try {
    const gh = world.github;
    if (sender) gh.setWebhookTransport(sender.transport);
    gh.state.addRepository(REPO);
    gh.state.setPermission(REPO, "alice", "write");
    const pulls = Array.from({ length: comments }, (_, i) => FIRST_PULL + i);
    for (const number of pulls) {
      gh.state.addPullRequest({ repository: REPO, number, author: "alice", title: `Change ${number}` });
    }
    // One command first, answered before the burst and left out of the figures: the burst measures a
    // server under load, not the modules a fresh process loads for its first webhook.
    gh.state.addPullRequest({ repository: REPO, number: FIRST_PULL - 1, author: "alice", title: "Warm-up" });
    await gh.deliverIssueComment({
      repository: REPO,
      number: FIRST_PULL - 1,
      body: `@yardmaster ${s.command}`,
      author: "alice",
    });
    const from = gh.requests.length;
    const sentAt = Date.now();
    // Yardmaster answers a webhook once its command is recorded (the command runs after); the stand-in,
    // like GitHub, gives up on a delivery after 10 s: counted, not fatal. Each delivery resolves with
    // the answer (answerOnly), not once the command is done.
    const webhookAnswers: number[] = [];
    const delivered = await Promise.all(
      pulls.map((number) => {
        const sent = performance.now();
        return gh
          .deliverIssueComment({
            repository: REPO,
            number,
            body: `@yardmaster ${s.command}`,
            author: "alice",
            answerOnly: true,
          })
          .then(
            (d) => {
              webhookAnswers.push(sender?.answeredIn.get(d.deliveryId) ?? performance.now() - sent);
              return String(d.status);
            },
            (error: unknown) =>
              error instanceof Error && error.name === "TimeoutError" ? "timeout" : "error",
          );
      }),
    );
    const ids = pulls.map((number) => {
      const comment = gh.state.comments(REPO, number).find((c) => c.user.login === "alice");
      if (!comment) throw new Error(`no comment on #${number}`);
      return comment.id;
    });
    const finalOf = (id: number) =>
      gh.state.reactions(id).some((r) => r.content === "+1" || r.content === "confused");
    // Every answer and final reaction, with room for GitHub's pace: two writes a comment, plus slack.
    const deadline = Date.now() + comments * 2 * 1_000 * s.pace * 1.5 + 120_000 * s.pace + 10_000;
    while (!ids.every(finalOf) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const timedOut = !ids.every(finalOf);
    await gh.settle();

    const writes = gh.requests
      .slice(from)
      .filter((r) => r.auth === "installation" && ["POST", "PATCH", "PUT", "DELETE"].includes(r.method));
    const ok = (r: RecordedRequest) => r.status >= 200 && r.status < 300;
    const at = (r: RecordedRequest) => Date.parse(r.at) - sentAt;
    const answerOf = new Map<number, number>();
    const counts = { answers: 0, eyes: 0, finals: 0, other: 0, refused: 0 };
    for (const write of writes) {
      if (!ok(write)) {
        counts.refused += 1;
        continue;
      }
      const issue = /\/issues\/(\d+)\/comments$/.exec(write.path)?.[1];
      const content = /\/reactions$/.test(write.path)
        ? (write.body as { content?: string }).content
        : undefined;
      const body = (write.body as { body?: string } | undefined)?.body ?? "";
      if (issue && body.includes(SUMMARY_MARKER)) {
        counts.answers += 1;
        if (!answerOf.has(Number(issue))) answerOf.set(Number(issue), at(write));
      } else if (content === "eyes") counts.eyes += 1;
      else if (content === "+1" || content === "confused") counts.finals += 1;
      else counts.other += 1;
    }
    const finalAt = new Map<number, number>();
    for (const write of writes) {
      const id = /\/issues\/comments\/(\d+)\/reactions$/.exec(write.path)?.[1];
      const content = (write.body as { content?: string } | undefined)?.content;
      if (id && ok(write) && (content === "+1" || content === "confused")) finalAt.set(Number(id), at(write));
    }
    const webhookStatuses: Record<string, number> = {};
    for (const status of delivered) webhookStatuses[status] = (webhookStatuses[status] ?? 0) + 1;
    return {
      comments,
      answers: pulls.map((n) => answerOf.get(n) ?? Number.NaN),
      finals: ids.map((id) => finalAt.get(id) ?? Number.NaN),
      webhookAnswers,
      writes: counts,
      secondaryLimitHits: gh.secondaryLimitHits.length,
      webhookStatuses,
      timedOut,
    };
  } finally {
    sender?.close();
    await world.close();
  }
}

function report(result: RunResult, s: Settings, out: (text: string) => void): void {
  const answered = result.answers.filter(Number.isFinite);
  const finals = result.finals.filter(Number.isFinite);
  const floorMedian = (result.comments / 2) * 1_000 * s.pace;
  const floorLast = result.comments * 1_000 * s.pace;
  // The issue's targets are for 40 comments at GitHub's pace; scaled with the pace for other runs.
  const targets = result.comments === 40 ? { median: 25_000 * s.pace, last: 50_000 * s.pace } : null;
  const median = percentile(answered, 50);
  const last = answered.length === result.comments ? max(answered) : Number.NaN;
  out(`-- ${result.comments} simultaneous comments --`);
  const webhookP99 = percentile(result.webhookAnswers, 99);
  out(
    figures([
      {
        label: "webhook answered",
        value: `p50 ${seconds(percentile(result.webhookAnswers, 50))}, p99 ${seconds(webhookP99)}, max ${seconds(max(result.webhookAnswers))} (${result.webhookAnswers.length} of ${result.comments} answered)`,
        target: "under 1 s (issue 21)",
        met: result.webhookAnswers.length === result.comments && max(result.webhookAnswers) < 1_000,
      },
      {
        label: "answers",
        value: `${answered.length} of ${result.comments} summaries written${result.timedOut ? " (timed out waiting)" : ""}`,
        target: "every one",
        met: answered.length === result.comments,
      },
      { label: "first answer", value: seconds(min(answered)) },
      {
        label: "median answer",
        value: `${seconds(median)} (floor at one write a second: ${seconds(floorMedian)})`,
        ...(targets ? { target: `under ${seconds(targets.median)}`, met: median < targets.median } : {}),
      },
      {
        label: "last answer",
        value: `${seconds(last)} (floor: ${seconds(floorLast)})`,
        ...(targets ? { target: `under ${seconds(targets.last)}`, met: last < targets.last } : {}),
      },
      {
        label: "last final reaction",
        value: `${seconds(finals.length === result.comments ? max(finals) : Number.NaN)} (👍/😕 on ${finals.length} of ${result.comments} comments)`,
      },
      {
        label: "secondary limits hit",
        value: `${result.secondaryLimitHits} (403 with retry-after from the stand-in)`,
        target: "none",
        met: result.secondaryLimitHits === 0,
      },
    ]),
  );
  out("");
  out(
    table(
      ["writes", "answers", "👀", "👍/😕", "other", "refused"],
      [
        [
          String(
            result.writes.answers +
              result.writes.eyes +
              result.writes.finals +
              result.writes.other +
              result.writes.refused,
          ),
          String(result.writes.answers),
          String(result.writes.eyes),
          String(result.writes.finals),
          String(result.writes.other),
          String(result.writes.refused),
        ],
      ],
    ),
  );
  const statuses = Object.entries(result.webhookStatuses)
    .map(([status, count]) => `${count} × ${status}`)
    .join(", ");
  out(
    `  webhook answers: ${statuses} (GitHub waits 10 s for an answer, then marks the delivery failed:\n` +
      "  a timeout here is that, the command runs all the same; 202: Probot gave up waiting after 9 s)",
  );
  out("");
}

async function run(args: string[], context: BenchmarkContext): Promise<void> {
  const { out } = context;
  const s = parseSettings(args);
  if (s === "help") {
    out(USAGE);
    return;
  }
  out("== github: simultaneous comment commands against GitHub's secondary rate limits ==");
  out("");
  const limits = scaleSecondaryLimits(GITHUB_SECONDARY_LIMITS, s.pace);
  out("Setup");
  out(
    pairs([
      [
        "comments",
        `${s.sizes.join(", ")} at once (one run each), "@yardmaster ${s.command}" on as many pull requests`,
      ],
      [
        "GitHub stand-in",
        `secondary limits on the app's writes: one per ${limits.writeIntervalMs} ms sustained (burst ${limits.writeBurst}),\n` +
          limits.content.map((c) => `${c.limit} content creations per ${seconds(c.windowMs)}`).join(", ") +
          (s.pace === 1 ? " (GitHub's figures)" : ` (GitHub's figures × ${s.pace})`),
      ],
      [
        "Yardmaster",
        "production Octokit and write queue, its limits on the same scale; signed webhooks; SQLite in memory",
      ],
    ]),
  );
  out("");
  for (const size of s.sizes) {
    const started = Date.now();
    const result = await runOnce(size, s);
    report(result, s, out);
    out(`  run time ${seconds(Date.now() - started)}`);
    out("");
  }
  out("Notes");
  out(
    pairs([
      [
        "targets",
        "issue 10 (40 comments: median under 25 s, last under 50 s), issue 21 (every webhook answered\n" +
          "within a second); informative, never asserted",
      ],
      [
        "times",
        "from sending the comments to the stand-in receiving the summary's creation (the answer) or the\n" +
          "final reaction; the floor is GitHub's pace: one write a second, an answer each",
      ],
    ]),
  );
}

export const githubBenchmark: Benchmark = {
  name: "github",
  description: "simultaneous comment commands answered within GitHub's secondary rate limits (stand-in)",
  runsByDefault: true,
  usage: USAGE,
  run,
};
