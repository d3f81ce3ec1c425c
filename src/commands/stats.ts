import { removalWords } from "../core/removal-reasons.js";
import type { PeriodFigures } from "../history/figures.js";
import { readPeriodFigures } from "../history/stats-reader.js";
import type { Repo } from "../repo.js";
import type { Description, Part, Text } from "../wording/description.js";
import { clip, formatDuration, formatTime, plural } from "../wording/words.js";
import { defineCommand } from "./command.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import { unexpected } from "./grammar/arguments.js";
import { repoArgument } from "./grammar/targets.js";
import type { QueueNormalFigures, ShieldFigures } from "./ports.js";

/** The periods `stats` knows, by how they are written. */
const STATS_PERIODS = { "24h": 1, "7d": 7, "30d": 30 } as const;
export type StatsPeriod = keyof typeof STATS_PERIODS;
const DEFAULT_STATS_PERIOD: StatsPeriod = "7d";

export interface StatsCommand {
  name: "stats";
  repo: Repo;
  period: StatsPeriod;
}

export interface StatsResult {
  name: "stats";
  repo: Repo;
  period: StatsPeriod;
  current: PeriodFigures;
  previous: PeriodFigures;
  /** The p90s the health alerts judge on (the last 7 days of the recorded history), where known. */
  normal?: QueueNormalFigures;
  /** Posted as the weekly digest of a subscription, not asked for. */
  digest?: boolean;
  /** What the flake shield did in the period (src/shield), where it can act. */
  shield?: ShieldFigures;
}

/** Lists are cut to this many lines. */
const TOP = 5;
/** The checks that removed most pull requests: this many. */
const TOP_CHECKS = 3;

/** stats: the queue's health over a day, a week or a month, from the event log. */
export const stats = defineCommand<StatsCommand, StatsResult>({
  name: "stats",
  summary: "queue health: merges, time in queue, why pull requests left, failing checks, pauses",
  permission: "none",
  needsLink: false,
  changes: false,
  grammar: {
    github: {
      usage: "stats [24h|7d|30d]",
      read: ({ words }, place) => {
        const [period, ...extra] = words;
        unexpected("stats", extra);
        return { name: "stats", repo: place.repo, period: statsPeriod(period) };
      },
    },
    slack: {
      usage: "stats [repo] [24h|7d|30d]",
      read: ({ words }, place) => {
        const last = words[words.length - 1];
        const period = last !== undefined && isPeriodWord(last) ? last : undefined;
        const { repo, rest } = repoArgument("stats", period ? words.slice(0, -1) : words, place);
        unexpected("stats", rest);
        return { name: "stats", repo, period: statsPeriod(period) };
      },
    },
  },
  async execute(command, _actor, ports) {
    const now = ports.now?.() ?? new Date();
    const period = { from: new Date(now.getTime() - STATS_PERIODS[command.period] * 86_400_000), to: now };
    const { statsEvents } = ports;
    if (!statsEvents)
      throw new CommandError(CommandErrorCode.Unavailable, { detail: "no queue events to read here" });
    const figures = await readPeriodFigures(
      { statsEvents, ...(ports.statsDays ? { statsDays: ports.statsDays } : {}) },
      command.repo,
      period,
      now,
    );
    const normal = await ports.queueNormal?.(command.repo);
    // Best effort: the queue's figures show without the shield's.
    const shield = await ports.flakeShield?.figures(command.repo, period).catch(() => undefined);
    return {
      name: "stats",
      repo: command.repo,
      period: command.period,
      ...figures,
      ...(normal ? { normal } : {}),
      ...(shield ? { shield } : {}),
    };
  },
  describe: describeStats,
});

function isPeriodWord(word: string): boolean {
  return /^\d+[a-z]$/i.test(word);
}

function statsPeriod(word: string | undefined): StatsPeriod {
  if (word === undefined) return DEFAULT_STATS_PERIOD;
  const period = word.toLowerCase();
  if (period in STATS_PERIODS) return period as StatsPeriod;
  throw new CommandError(CommandErrorCode.InvalidArgument, {
    command: "stats",
    argument: "period",
    limit: "24h, 7d or 30d",
  });
}

/** "a day", "7 days", "30 days". */
function periodWords(period: StatsPeriod): string {
  const days = STATS_PERIODS[period];
  return days === 1 ? "24 hours" : `${days} days`;
}

/** "+3", "−2", "±0". */
function change(now: number, before: number): string {
  const d = now - before;
  return d > 0 ? `+${d}` : d < 0 ? `−${-d}` : "±0";
}

/** The first `n` lines (TOP), and one that says how many more there are. */
function top(items: Text[], more: string, n = TOP): Text[] {
  if (items.length <= n) return items;
  return [...items.slice(0, n), () => `…and ${plural(items.length - n, more, `${more}s`)}`];
}

/** "2 (1 of them then merged)": what the flake shield queued again, where it is on or acted. */
function shieldWords(s: ShieldFigures): string {
  return `${s.requeued} (${s.merged} of them then merged)${s.on ? "" : "; the shield is off now"}`;
}

const wait = (s: number | null) => (s === null ? "—" : formatDuration(s));
const waitMs = (ms: number | null) => wait(ms === null ? null : ms / 1000);

/** The p90s the health alerts use (docs/notifications.md, "The queue's health"), and their thresholds. */
function normalWords(n: QueueNormalFigures): string {
  return `last 7 days: time between merges p90 ${waitMs(n.mergeGapP90)}, checks p90 ${waitMs(n.checksP90)} · stalled after ${waitMs(n.stallAfterMs)} without a merge, checks slow after ${waitMs(n.slowAfterMs)}`;
}

/** The pull requests merged without going through the queue: "acme/ships#31 by @dana", the latest first. */
function outsideList(repo: Repo, merges: PeriodFigures["mergedOutside"]): Part {
  return {
    kind: "list",
    name: "outside",
    heading: (f) => f.bold("Merged without going through the queue (untested with the rest of it)"),
    items: top(
      [...merges].reverse().map(
        ({ pull, by }) =>
          (f) =>
            f.escape(`${repo.fullName}#${pull}${by ? ` by @${by}` : ""}`),
      ),
      "more pull request",
    ),
    more: (n) => () => `…and ${plural(n, "more pull request", "more pull requests")}`,
  };
}

function describeStats(result: StatsResult, context: { by?: string; now: Date }): Description {
  const { current: c, previous: p, repo, normal, shield } = result;
  const span = periodWords(result.period);
  const before = `previous ${span}`;
  const merged = `${c.merged} (${before}: ${p.merged}, ${change(c.merged, p.merged)})`;
  const times = `p50 ${wait(c.waitP50)} · p90 ${wait(c.waitP90)} (${before}: p50 ${wait(p.waitP50)} · p90 ${wait(p.waitP90)})`;
  const left = `${c.leftWithoutMerging} (${before}: ${p.leftWithoutMerging}, ${change(c.leftWithoutMerging, p.leftWithoutMerging)})`;
  const pauses = `${c.pauses}, ${formatDuration(c.pausedSeconds)} paused in all (${before}: ${p.pauses}, ${formatDuration(p.pausedSeconds)})`;
  const outside = `${c.mergedOutside.length} (${before}: ${p.mergedOutside.length}, ${change(c.mergedOutside.length, p.mergedOutside.length)})`;
  const note: Text = () =>
    [
      `last ${span}, ${formatTime(c.period.from.toISOString())} to ${formatTime(c.period.to.toISOString())}`,
      ...(context.by ? [`asked by ${context.by}`] : []),
    ].join(" · ");
  const title = result.digest
    ? `Weekly digest: queue health of ${repo.fullName}`
    : `Queue health of ${repo.fullName}`;
  const parts: Part[] = [
    { kind: "title", text: title },
    { kind: "note", texts: [note] },
    {
      kind: "fields",
      fields: [
        ["Merged", () => merged],
        ["Time in queue", () => times],
        ["Left without merging", () => left],
        ["Pauses", () => pauses],
        ["Merged outside the queue", () => outside],
        ...(normal ? [["Health alerts' normal", () => normalWords(normal)] as [string, Text]] : []),
        ...(shield && (shield.on || shield.requeued > 0)
          ? [["Queued again by the flake shield", () => shieldWords(shield)] as [string, Text]]
          : []),
      ],
    },
  ];
  if (c.leftWithoutMerging > 0) {
    parts.push({
      kind: "list",
      name: "leaves",
      heading: (f) => f.bold("Why pull requests left without merging"),
      items: top(
        c.leaves.map(
          (l) => (f) => `${f.escape(clip(removalWords(l) ?? "no reason given", 120))} × ${l.count}`,
        ),
        "more reason",
      ),
      more: (n) => () => `…and ${plural(n, "more reason", "more reasons")}`,
    });
  }
  if (c.failedChecks.length > 0) {
    parts.push({
      kind: "list",
      name: "checks",
      heading: (f) => f.bold("Checks that removed most pull requests"),
      items: top(
        c.failedChecks.map((check) => (f) => {
          const name = clip(check.name, 100);
          const label = f.link(check.url ?? "", name);
          return `${label} × ${check.count}`;
        }),
        "more check",
        TOP_CHECKS,
      ),
      more: (n) => () => `…and ${plural(n, "more check", "more checks")}`,
    });
  }
  if (c.mergedOutside.length > 0) parts.push(outsideList(repo, c.mergedOutside));
  const checks = c.failedChecks
    .slice(0, TOP_CHECKS)
    .map((check) => `${clip(check.name, 100)} × ${check.count}`)
    .join(", ");
  const summary: Text = (f) =>
    `${title}, last ${span}: merged ${merged}; time in queue ${times}; left without merging ${left}; pauses ${pauses}; merged outside the queue ${outside}${checks ? `; checks that removed most pull requests ${f.escape(checks)}` : ""}${shield && (shield.on || shield.requeued > 0) ? `; queued again by the flake shield ${shieldWords(shield)}` : ""}.`;
  return { parts, summary };
}
