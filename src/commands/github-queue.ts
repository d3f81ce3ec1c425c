import {
  estimatedAt,
  type MergeQueueBackend,
  type QueueCommands,
  type QueueEntry,
  type QueueState,
} from "../core/merge-queue.js";
import { holdOf, type QueuePause } from "../core/pause.js";
import type { Repo } from "../repo.js";
import { baseBranchOf as baseBranch, queueFor } from "../use-cases/pull-queue.js";
import type { Button, Description, Part, Text, TextFormat } from "../wording/description.js";
import { exceptLabels } from "../wording/lists.js";
import { clip, formatEta, formatTime, plural, pullLink, resumesText } from "../wording/words.js";
import type { Actor, DescribeContext } from "./command.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import type { Ports, PullRequestInfo } from "./ports.js";
import { pullRequestOf } from "./pull-request.js";
import type { RelayName, RelayResult } from "./relay.js";
import { stepsOf } from "./steps.js";
import { unpauseButton } from "./unpause-button.js";

/**
 * The merge queue a command acts on (src/core/merge-queue.ts), chosen by src/backends/choose.ts, and
 * what commands share about it: refusals of what a backend cannot do, queue and dequeue where the
 * backend takes them directly (GitHub's, over GraphQL as the app's installation, after Yardmaster's own
 * permission check), and GitHub's wording of its status, entries and results.
 */

/** The queue serving the branch (read only when the choice depends on it); a failed choice fails the command. */
export async function queueOf(
  ports: Ports,
  repo: Repo,
  branch?: string | (() => Promise<string | undefined>),
): Promise<MergeQueueBackend> {
  return queueFor(ports.queues, repo, branch);
}

/** The base branch of a pull request, for choosing its queue (undefined when GitHub cannot say). */
export function baseBranchOf(ports: Ports, repo: Repo, number: number): () => Promise<string | undefined> {
  return baseBranch(ports, repo, number);
}

/** Refuses a command the repository's merge queue cannot do, before anything is called. */
export function notOnThisQueue(command: string, repo: Repo, detail: string): never {
  throw new CommandError(CommandErrorCode.NotOnThisQueue, { command, repository: repo.fullName, detail });
}

export interface DirectQueueResult<N extends RelayName> {
  name: N;
  repo: Repo;
  pull: PullRequestInfo;
  /**
   * Always set by actDirectly; optional only so that a relay's result still reads as one of its
   * command's results where the type is the union of both (isRelayed tells them apart).
   */
  direct?: {
    /** After queue or requeue: the entry the queue made (null if it returned none). */
    entry: QueueEntry | null;
    jump: boolean;
  };
}

/**
 * queue, requeue and dequeue where the queue takes them directly: the pull request is read, then it
 * acts, once across the runs of the command: a run taking over a call begun and not recorded reads the
 * pull request's entry (`entryOf`) and does not ask again what it finds done (queued; not in the queue).
 */
export async function actDirectly<N extends RelayName>(
  command: { name: N; repo: Repo; pull: number; jump?: boolean },
  queue: Extract<QueueCommands, { via: "api" }>,
  entryOf: MergeQueueBackend["entry"],
  ports: Ports,
  actor: Actor,
): Promise<DirectQueueResult<N>> {
  const steps = stepsOf(ports);
  const { repo, pull: number } = command;
  const details = { command: command.name, repository: repo.fullName, pull: number };
  // A closed pull request can still be taken out of the queue, never put in it.
  const pull = await pullRequestOf(ports, command, command.name !== "dequeue");
  const jump = command.jump === true;
  if (command.name === "dequeue") {
    // Before GitHub is asked: its webhook may come before its answer. The same write again in a run
    // that takes the command over (who asked to remove it, kept per pull request): not a step.
    await ports
      .attributeDequeue?.(repo, number, {
        login: actor.githubLogin ?? actor.display,
        at: ports.now?.() ?? new Date(),
      })
      .catch(() => undefined);
    const dequeued = await steps.once(
      "queue.dequeue",
      () => queue.dequeue(repo, number),
      async () => ((await entryOf(repo, number)) === null ? true : null),
    );
    if (!dequeued) throw new CommandError(CommandErrorCode.NotInQueue, details);
    return { name: command.name, repo, pull, direct: { entry: null, jump } };
  }
  const entry = await steps.once(
    "queue.enqueue",
    () => queue.enqueue(repo, { number, headSha: pull.headSha }, { jump }),
    () => entryOf(repo, number),
  );
  return { name: command.name, repo, pull, direct: { entry, jump } };
}

/** Whether queue, requeue or dequeue was relayed as a comment (rather than done directly). */
export function isRelayed<N extends RelayName>(
  result: RelayResult<N> | DirectQueueResult<N>,
): result is RelayResult<N> {
  return "relayed" in result;
}

/** " · except pull requests labelled `hotfix` or `release`" where a pause lets them through. */
export function exceptText(f: TextFormat, labels: readonly string[] | undefined): string {
  return exceptLabels(labels, (l) => f.code(clip(l, 50)));
}

/** "in GitHub's merge queue of `main`". */
function queueIn(f: TextFormat, branch: string): string {
  return `in GitHub's merge queue of ${f.code(clip(branch, 160))}`;
}

/** An entry's estimate, as the ETA reads. */
function eta(entry: QueueEntry, now: Date): string {
  return formatEta(estimatedAt(entry.estimate, now), now);
}

/** Entry states in GitHub's words. */
const STATES: Record<Exclude<QueueEntry["state"], "other">, string> = {
  waiting: "queued",
  "checks-running": "awaiting checks",
  mergeable: "mergeable",
  failing: "unmergeable",
  merging: "locked (merging)",
};

function stateOf(f: TextFormat, entry: QueueEntry): string {
  return entry.state === "other"
    ? f.escape((entry.stateName ?? "unknown").toLowerCase())
    : STATES[entry.state];
}

/** "at position 2 in GitHub's merge queue of `main`, ETA in 5 min". */
function githubPlace(f: TextFormat, entry: QueueEntry, branch: string, now: Date): string {
  return `at position ${entry.position} ${queueIn(f, branch)}, ETA ${eta(entry, now)}`;
}

/** queue and requeue on GitHub's queue: where the pull request now stands. */
export function describeGitHubQueued(
  result: DirectQueueResult<"queue" | "requeue">,
  context: DescribeContext,
  done: string,
): Description {
  const { by, now } = context;
  const text: Text = (f) => {
    const pr = pullLink(f, result.pull);
    const jumped = result.direct?.jump ? " (jumped to the front)" : "";
    const entry = result.direct?.entry;
    if (!entry) return `✅ GitHub's merge queue accepted ${pr}${jumped}.`;
    const place = githubPlace(f, entry, result.pull.baseRef, now);
    if (context.surface === "github") return `✅ #${result.pull.number} is ${place}${jumped}.`;
    return by ? `✅ ${by} ${done} ${pr}${jumped}: it is ${place}.` : `✅ ${pr} is ${place}${jumped}.`;
  };
  return { parts: [{ kind: "sentence", text }, note(result)], summary: text };
}

/** dequeue on GitHub's queue; a pull request that left without merging can be requeued at a click. */
export function describeGitHubDequeued(
  result: DirectQueueResult<"dequeue">,
  context: DescribeContext,
): Description {
  const { by } = context;
  const text: Text = (f) => {
    const pr = pullLink(f, result.pull);
    const where = queueIn(f, result.pull.baseRef);
    return by
      ? `✅ ${by} dequeued ${pr}: it is not ${where} any more.`
      : `✅ ${pr} is not ${where} any more.`;
  };
  const { pull, repo } = result;
  const buttons: Button[] =
    pull.state === "open" && !pull.merged
      ? [{ label: `Requeue #${pull.number}`, runs: { name: "requeue", repo, pull: pull.number } }]
      : [];
  return {
    parts: [
      { kind: "sentence", text },
      note(result),
      ...(buttons.length ? [{ kind: "buttons" as const, buttons }] : []),
    ],
    summary: text,
  };
}

function note(result: DirectQueueResult<RelayName>): Part {
  return {
    kind: "note",
    texts: [(f) => `${f.code(result.repo.fullName)} · on GitHub's merge queue, by Yardmaster's GitHub App`],
  };
}

/**
 * `status` of a branch on GitHub's merge queue: its entries, by position, and its configuration. The
 * branch as asked; the queue's own is in `state`, null when the branch has no queue.
 */
export function describeGitHubStatus(
  result: {
    repo: Repo;
    branch?: string;
    state: QueueState | null;
    /** A timed pause's end (Yardmaster's record of who paused); absent: none. */
    paused?: { resumesAt: Date | null };
  },
  context: DescribeContext,
): Description {
  const { repo } = result;
  const queue = result.state;
  const { by, now } = context;
  const refresh: Part = {
    kind: "buttons",
    buttons: [
      {
        label: "Refresh",
        runs: { name: "status", repo, ...(result.branch ? { branch: result.branch } : {}) },
      },
    ],
  };
  if (!queue) {
    const text: Text = (f) =>
      `${result.branch ? `The branch ${f.code(clip(result.branch, 160))}` : "The default branch"} of ${f.code(repo.fullName)} has no merge queue on GitHub.`;
    return { parts: [{ kind: "sentence", text }, refresh], summary: text };
  }
  const facts: Text = (f) =>
    [
      `GitHub's merge queue of ${f.code(clip(queue.branch ?? "", 160))}`,
      `${queue.total} queued`,
      `as of ${formatTime(now.toISOString())}`,
      ...(by ? [`asked by ${by}`] : []),
    ].join(" · ");
  const parts: Part[] = [
    { kind: "title", text: `Merge queue of ${repo.fullName}` },
    { kind: "note", texts: [facts] },
    ...gatePauseParts(repo, result.branch, queue.pause, resumesOf(result.paused, now)),
    { kind: "divider" },
    {
      kind: "list",
      name: "waiting",
      heading: (f) => `${f.bold("Queued")} (${queue.total})`,
      items: queue.entries.map((e) => (f) => entryLine(f, e, now)),
      more: (n) => (f) =>
        `…and ${plural(n, "more pull request", "more pull requests")}: ${f.link(queue.url ?? "", "the queue on GitHub")}`,
      empty: () => "No pull request is queued.",
    },
  ];
  const settings = configuration(queue);
  if (settings) parts.push({ kind: "note", texts: [settings] });
  parts.push(refresh);
  const summary: Text = (f) => {
    const shown = queue.entries.slice(0, 5).map((e) => `#${e.pull?.number ?? "?"} ${stateOf(f, e)}`);
    const paused = queue.pause ? ` ${gatePauseLine(f, queue.pause)}` : "";
    return `GitHub's merge queue of ${repo.fullName} (branch ${f.code(clip(queue.branch ?? "", 160))}):${paused} ${plural(queue.total, "pull request")} queued${shown.length ? ` (${shown.join(", ")}${queue.total > shown.length ? ", …" : ""})` : ""}.${by ? ` Asked by ${by}.` : ""}`;
  };
  return { parts, summary };
}

/** How a held queue reads: paused, draining (and what that means), drained. */
const HOLDS = {
  paused: { icon: "⏸️", word: "Paused", meaning: "" },
  draining: {
    icon: "⏬",
    word: "Draining",
    meaning: " · what was queued before the drain merges, nothing queued since starts until unpaused",
  },
  drained: {
    icon: "⏸️",
    word: "Drained",
    meaning: " · nothing queued before the drain is left: held until unpaused",
  },
} as const;

/**
 * "⏸️ Paused by alice since …: reason" (or "⏬ Draining …"), with its exemptions and the Unpause button (of
 * the branch asked, if one was).
 */
function gatePauseParts(
  repo: Repo,
  branch: string | undefined,
  pause: QueuePause | null,
  resumes: string,
): Part[] {
  if (!pause) return [];
  const hold = HOLDS[holdOf(pause)];
  const text: Text = (f) =>
    `${hold.icon} ${f.bold(hold.word)}${heldBranch(f, pause)}${pause.by ? ` by ${f.escape(clip(pause.by, 100))}` : ""}${pause.pausedAt ? ` since ${formatTime(pause.pausedAt)}` : ""}: ${f.escape(clip(pause.reason || "no reason given", 300))}${resumes}${hold.meaning}${exceptText(f, pause.except)}`;
  return [
    { kind: "sentence", text },
    { kind: "buttons", buttons: [unpauseButton(repo, branch)] },
  ];
}

/** " · resumes at 18:00 UTC (in 1 h 20 min)" while a timed pause of the default branch has yet to end. */
function resumesOf(paused: { resumesAt: Date | null } | undefined, now: Date): string {
  const at = paused?.resumesAt;
  return at && at.getTime() > now.getTime() ? ` · ${resumesText(at, now)}` : "";
}

/** " (branch `main` only: other branches keep merging)" where the pause holds one branch (the gate). */
function heldBranch(f: TextFormat, pause: QueuePause): string {
  return pause.branch !== undefined
    ? ` (branch ${f.code(clip(pause.branch, 160))} only: other branches keep merging)`
    : "";
}

function gatePauseLine(f: TextFormat, pause: QueuePause): string {
  return `${holdOf(pause)}${heldBranch(f, pause)}${pause.by ? ` by ${f.escape(clip(pause.by, 100))}` : ""}: ${f.escape(clip(pause.reason || "no reason given", 300))}${exceptText(f, pause.except)};`;
}

function entryLine(f: TextFormat, e: QueueEntry, now: Date): string {
  const pr = e.pull ? pullLink(f, e.pull) : "a pull request";
  const jumped = e.jumped ? " · jumped" : "";
  return `${e.position}. ${pr} — ${stateOf(f, e)}, enqueued ${formatTime(e.enteredAt)} by ${f.escape(clip(e.by ?? "", 100))}, ETA ${eta(e, now)}${jumped}`;
}

const MERGE_METHODS: Record<string, string> = { MERGE: "merge commit", SQUASH: "squash", REBASE: "rebase" };

/** The queue's configuration in one line: how it merges, and how many it builds and merges at once. */
function configuration(queue: QueueState): Text | null {
  const c = queue.settings;
  if (!c) return null;
  return (f) => {
    const parts = [
      ...(c.mergeMethod
        ? [`merges by ${MERGE_METHODS[c.mergeMethod] ?? f.escape(c.mergeMethod.toLowerCase())}`]
        : []),
      ...(c.mergingStrategy ? [`strategy ${f.code(c.mergingStrategy)}`] : []),
      ...(c.maximumEntriesToBuild !== null ? [`builds up to ${c.maximumEntriesToBuild}`] : []),
      ...(c.minimumEntriesToMerge !== null && c.maximumEntriesToMerge !== null
        ? [`merges ${c.minimumEntriesToMerge} to ${c.maximumEntriesToMerge} at once`]
        : []),
      ...(c.checkResponseTimeout !== null
        ? [`checks time out after ${Math.round(c.checkResponseTimeout / 60)} min`]
        : []),
    ];
    return parts.length ? `Configuration: ${parts.join(", ")}.` : "";
  };
}

/**
 * `pr` on GitHub's merge queue: the pull request's entry (null: not queued) in its base branch's queue.
 */
export function describeGitHubPr(
  queued: { branch: string | undefined; entry: QueueEntry | null },
  context: DescribeContext,
  link: (f: TextFormat) => string,
): Description {
  const { entry } = queued;
  const headline: Text = (f) => {
    const pr = link(f);
    if (!entry) return `${pr} is not in GitHub's merge queue.`;
    return `📍 ${pr} is ${githubPlace(f, entry, queued.branch ?? "its base branch", context.now)}.`;
  };
  const parts: Part[] = [{ kind: "sentence", text: headline }];
  if (entry) {
    const field = (label: string, value: Text): [string, Text] => [label, value];
    parts.push({
      kind: "fields",
      fields: [
        field("Position", () => `${entry.position}`),
        field("State", (f) => stateOf(f, entry)),
        field("ETA", () => eta(entry, context.now)),
        field("Queued", () => formatTime(entry.enteredAt)),
        field("Queued by", (f) => f.escape(clip(entry.by ?? "", 100))),
        ...(entry.jumped ? [field("Jumped", () => "yes")] : []),
      ],
    });
  }
  return { parts, summary: headline };
}
