import type { QueuePause } from "../core/pause.js";
import type { Repo } from "../repo.js";
import type { Actor, DescribeContext } from "./command.js";
import type { Button, Description, Part, Text, TextFormat } from "./description.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import type {
  GitHubMergeQueue,
  GitHubQueueEntry,
  GitHubQueueStatus,
  Ports,
  PullRequestInfo,
  QueueBackend,
  QueueBackends,
} from "./ports.js";
import { clip, formatEta, formatTime, plural, pullLink } from "./present.js";
import type { RelayName, RelayResult } from "./relay.js";

/**
 * Commands on GitHub's own merge queue (MERGE_QUEUE_PROVIDER github or auto): GitHub takes them over
 * GraphQL as the app's installation, after Yardmaster's own permission check, so nothing is relayed.
 * The command modules pick the backend here and describe its result with what is here.
 */

/**
 * GitHub's merge queue where it serves the repository's default branch; null where Mergify's does, or
 * when GitHub cannot say (for what only reads: the notifier, the Home tab; commands use githubQueueOf).
 */
export async function githubQueueServing(
  backends: QueueBackends | undefined,
  repo: Repo,
): Promise<GitHubMergeQueue | null> {
  if (!backends) return null;
  const backend = await backends.choose(repo).catch((): QueueBackend => "mergify");
  return backend === "github" ? backends.github : null;
}

/** GitHub's merge queue when it serves the branch (read only when the choice depends on it), else null. */
export async function githubQueueOf(
  ports: Ports,
  repo: Repo,
  branch?: string | (() => Promise<string | undefined>),
): Promise<GitHubMergeQueue | null> {
  const backends = ports.queueBackends;
  if (!backends) return null;
  const backend = await backends.choose(repo, branch).catch((error: unknown) => {
    if (error instanceof CommandError) throw error;
    throw new CommandError(CommandErrorCode.GitHubFailed, {
      repository: repo.fullName,
      detail: (error as Error).message,
    });
  });
  return backend === "github" ? backends.github : null;
}

/** The base branch of a pull request, for choosing its queue (undefined when GitHub cannot say). */
export function baseBranchOf(ports: Ports, repo: Repo, number: number): () => Promise<string | undefined> {
  return async () => (await ports.github.pullRequest(repo, number).catch(() => null))?.baseRef;
}

/** Why pause and unpause are refused on GitHub's merge queue. */
export const NO_PAUSE =
  "it uses GitHub's merge queue, which has no pause. To hold merges, dequeue the pull requests, or have an admin turn the merge queue off in the branch's ruleset";

/** Refuses a command GitHub's merge queue cannot do, before anything is called. */
export function notOnGitHubQueue(command: string, repo: Repo, detail: string): never {
  throw new CommandError(CommandErrorCode.NotOnThisQueue, { command, repository: repo.fullName, detail });
}

export interface GitHubQueueResult<N extends RelayName> {
  name: N;
  repo: Repo;
  pull: PullRequestInfo;
  /**
   * Always set by actOnGitHubQueue; optional only so that a relay's result still reads as one of its
   * command's results where the type is the union of both (isRelayed tells them apart).
   */
  github?: {
    /** After queue or requeue: the entry GitHub made (null if it returned none). */
    entry: GitHubQueueEntry | null;
    jump: boolean;
  };
}

/** queue, requeue and dequeue on GitHub's merge queue: the pull request is read, then GitHub acts. */
export async function actOnGitHubQueue<N extends RelayName>(
  command: { name: N; repo: Repo; pull: number; jump?: boolean },
  queue: GitHubMergeQueue,
  ports: Ports,
  actor: Actor,
): Promise<GitHubQueueResult<N>> {
  const { repo, pull: number } = command;
  const details = { command: command.name, repository: repo.fullName, pull: number };
  const pull = await ports.github.pullRequest(repo, number).catch((error: unknown) => {
    throw new CommandError(CommandErrorCode.GitHubFailed, { ...details, detail: (error as Error).message });
  });
  if (!pull) throw new CommandError(CommandErrorCode.NotAPullRequest, details);
  const jump = command.jump === true;
  if (command.name === "dequeue") {
    // Before GitHub is asked: its webhook may come before its answer.
    await ports
      .attributeDequeue?.(repo, number, {
        login: actor.githubLogin ?? actor.display,
        at: ports.now?.() ?? new Date(),
      })
      .catch(() => undefined);
    if (!(await queue.dequeue(repo, number))) throw new CommandError(CommandErrorCode.NotInQueue, details);
    return { name: command.name, repo, pull, github: { entry: null, jump } };
  }
  if (pull.state !== "open") {
    throw new CommandError(CommandErrorCode.WrongPlace, {
      ...details,
      detail: pull.merged ? "the pull request is already merged" : "the pull request is closed",
    });
  }
  const entry = await queue.enqueue(repo, { number, headSha: pull.headSha }, { jump });
  return { name: command.name, repo, pull, github: { entry, jump } };
}

/** Whether queue, requeue or dequeue was relayed to Mergify (rather than done on GitHub's queue). */
export function isRelayed<N extends RelayName>(
  result: RelayResult<N> | GitHubQueueResult<N>,
): result is RelayResult<N> {
  return "relayed" in result;
}

/** "in GitHub's merge queue of `main`". */
function queueOf(f: TextFormat, branch: string): string {
  return `in GitHub's merge queue of ${f.code(clip(branch, 160))}`;
}

/** An estimate in seconds from now, as the ETA reads. */
function eta(seconds: number | null, now: Date): string {
  return seconds === null
    ? "unknown"
    : formatEta(new Date(now.getTime() + seconds * 1000).toISOString(), now);
}

/** GitHub's entry states, in words. */
const STATES: Record<string, string> = {
  QUEUED: "queued",
  AWAITING_CHECKS: "awaiting checks",
  MERGEABLE: "mergeable",
  UNMERGEABLE: "unmergeable",
  LOCKED: "locked (merging)",
};

function stateOf(f: TextFormat, state: string): string {
  return STATES[state] ?? f.escape(state.toLowerCase());
}

/** "at position 2 in GitHub's merge queue of `main`, ETA in 5 min". */
function githubPlace(f: TextFormat, entry: GitHubQueueEntry, branch: string, now: Date): string {
  return `at position ${entry.position} ${queueOf(f, branch)}, ETA ${eta(entry.estimatedSecondsToMerge, now)}`;
}

/** queue and requeue on GitHub's queue: where the pull request now stands. */
export function describeGitHubQueued(
  result: GitHubQueueResult<"queue" | "requeue">,
  context: DescribeContext,
  done: string,
): Description {
  const { by, now } = context;
  const text: Text = (f) => {
    const pr = pullLink(f, result.pull);
    const jumped = result.github?.jump ? " (jumped to the front)" : "";
    const entry = result.github?.entry;
    if (!entry) return `✅ GitHub's merge queue accepted ${pr}${jumped}.`;
    const place = githubPlace(f, entry, result.pull.baseRef, now);
    if (context.surface === "github") return `✅ #${result.pull.number} is ${place}${jumped}.`;
    return by ? `✅ ${by} ${done} ${pr}${jumped}: it is ${place}.` : `✅ ${pr} is ${place}${jumped}.`;
  };
  return { parts: [{ kind: "sentence", text }, note(result)], summary: text };
}

/** dequeue on GitHub's queue; a pull request that left without merging can be requeued at a click. */
export function describeGitHubDequeued(
  result: GitHubQueueResult<"dequeue">,
  context: DescribeContext,
): Description {
  const { by } = context;
  const text: Text = (f) => {
    const pr = pullLink(f, result.pull);
    const where = queueOf(f, result.pull.baseRef);
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

function note(result: GitHubQueueResult<RelayName>): Part {
  return {
    kind: "note",
    texts: [(f) => `${f.code(result.repo.fullName)} · on GitHub's merge queue, by Yardmaster's GitHub App`],
  };
}

export interface GitHubStatusResult {
  name: "status";
  repo: Repo;
  /** As asked; the queue's own branch is in `queue`. */
  branch?: string;
  /**
   * Always set (optional for the reason GitHubQueueResult's is). `queue` null: no queue on GitHub.
   * `pause`: the gate's pause of the branch, where the gate is wired.
   */
  github?: { queue: GitHubQueueStatus | null; pause?: QueuePause | null };
}

/** A branch's queue on GitHub and the gate's pause of it (best effort: a status without it still shows the queue). */
export async function githubStatusWithPause(
  ports: Ports,
  github: GitHubMergeQueue,
  repo: Repo,
  branch: string | undefined,
): Promise<NonNullable<GitHubStatusResult["github"]>> {
  const queue = await github.status(repo, branch);
  const pause = ports.githubPauses
    ? await ports.githubPauses.current({ repo, branch: branch ?? queue?.branch ?? null }).catch(() => null)
    : null;
  return { queue, ...(pause ? { pause } : {}) };
}

/** "⏸️ Paused by alice since …: reason", with the Unpause button (of the branch asked, if one was). */
function gatePauseParts(result: GitHubStatusResult): Part[] {
  const pause = result.github?.pause;
  if (!pause) return [];
  const text: Text = (f) =>
    `⏸️ ${f.bold("Paused")}${pause.by ? ` by ${f.escape(clip(pause.by, 100))}` : ""}${pause.pausedAt ? ` since ${formatTime(pause.pausedAt)}` : ""}: ${f.escape(clip(pause.reason || "no reason given", 300))}`;
  return [
    { kind: "sentence", text },
    { kind: "buttons", buttons: [unpauseButtonOf(result.repo, result.branch)] },
  ];
}

function unpauseButtonOf(repo: Repo, branch: string | undefined): Button {
  return {
    label: "Unpause",
    runs: { name: "unpause", repo, ...(branch ? { branch } : {}) },
    style: "primary",
  };
}

/** `status` of a branch on GitHub's merge queue: its entries, by position, and its configuration. */
export function describeGitHubStatus(result: GitHubStatusResult, context: DescribeContext): Description {
  const { repo } = result;
  const queue = result.github?.queue ?? null;
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
      `GitHub's merge queue of ${f.code(clip(queue.branch, 160))}`,
      `${queue.total} queued`,
      `as of ${formatTime(now.toISOString())}`,
      ...(by ? [`asked by ${by}`] : []),
    ].join(" · ");
  const parts: Part[] = [
    { kind: "title", text: `Merge queue of ${repo.fullName}` },
    { kind: "note", texts: [facts] },
    ...gatePauseParts(result),
    { kind: "divider" },
    {
      kind: "list",
      name: "waiting",
      heading: (f) => `${f.bold("Queued")} (${queue.total})`,
      items: queue.entries.map((e) => (f) => entryLine(f, e, now)),
      more: (n) => (f) =>
        `…and ${plural(n, "more pull request", "more pull requests")}: ${f.link(queue.url, "the queue on GitHub")}`,
      empty: () => "No pull request is queued.",
    },
  ];
  const settings = configuration(queue);
  if (settings) parts.push({ kind: "note", texts: [settings] });
  parts.push(refresh);
  const summary: Text = (f) => {
    const shown = queue.entries.slice(0, 5).map((e) => `#${e.pull?.number ?? "?"} ${stateOf(f, e.state)}`);
    const paused = result.github?.pause ? ` ${gatePauseLine(f, result.github.pause)}` : "";
    return `GitHub's merge queue of ${repo.fullName} (branch ${f.code(clip(queue.branch, 160))}):${paused} ${plural(queue.total, "pull request")} queued${shown.length ? ` (${shown.join(", ")}${queue.total > shown.length ? ", …" : ""})` : ""}.${by ? ` Asked by ${by}.` : ""}`;
  };
  return { parts, summary };
}

function entryLine(f: TextFormat, e: GitHubQueueEntry, now: Date): string {
  const pr = e.pull ? pullLink(f, e.pull) : "a pull request";
  const jumped = e.jump ? " · jumped" : "";
  return `${e.position}. ${pr} — ${stateOf(f, e.state)}, enqueued ${formatTime(e.enqueuedAt)} by ${f.escape(clip(e.enqueuer, 100))}, ETA ${eta(e.estimatedSecondsToMerge, now)}${jumped}`;
}

const MERGE_METHODS: Record<string, string> = { MERGE: "merge commit", SQUASH: "squash", REBASE: "rebase" };

/** The queue's configuration in one line: how it merges, and how many it builds and merges at once. */
function configuration(queue: GitHubQueueStatus): Text | null {
  const c = queue.configuration;
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

export interface GitHubPrResult {
  name: "pr";
  repo: Repo;
  pull: number;
  /** Always set (optional for the reason GitHubQueueResult's is). */
  github?: {
    /** Its base branch, whose queue it is in. */
    branch: string | undefined;
    entry: GitHubQueueEntry | null;
  };
}

/** `pr` on GitHub's merge queue: the pull request's entry. */
export function describeGitHubPr(
  result: GitHubPrResult,
  context: DescribeContext,
  link: (f: TextFormat) => string,
): Description {
  const entry = result.github?.entry ?? null;
  const headline: Text = (f) => {
    const pr = link(f);
    if (!entry) return `${pr} is not in GitHub's merge queue.`;
    return `📍 ${pr} is ${githubPlace(f, entry, result.github?.branch ?? "its base branch", context.now)}.`;
  };
  const parts: Part[] = [{ kind: "sentence", text: headline }];
  if (entry) {
    const field = (label: string, value: Text): [string, Text] => [label, value];
    parts.push({
      kind: "fields",
      fields: [
        field("Position", () => `${entry.position}`),
        field("State", (f) => stateOf(f, entry.state)),
        field("ETA", () => eta(entry.estimatedSecondsToMerge, context.now)),
        field("Queued", () => formatTime(entry.enqueuedAt)),
        field("Queued by", (f) => f.escape(clip(entry.enqueuer, 100))),
        ...(entry.jump ? [field("Jumped", () => "yes")] : []),
      ],
    });
  }
  return { parts, summary: headline };
}

function gatePauseLine(f: TextFormat, pause: QueuePause): string {
  return `paused${pause.by ? ` by ${f.escape(clip(pause.by, 100))}` : ""}: ${f.escape(clip(pause.reason || "no reason given", 300))};`;
}
