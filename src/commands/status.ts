import type { Batch, QueuedPullRequest, QueueStatus, SubBatch } from "../backends/mergify/index.js";
import type { ListedFreeze } from "../freezes/present.js";
import type { Repo } from "../repo.js";
import { branchName, unexpected } from "./arguments.js";
import { defineCommand, type SlackPlace } from "./command.js";
import type { BatchRow, Part, Text, TextFormat } from "./description.js";
import { freezeNote, nextFreezeOf } from "./freeze.js";
import {
  describeGitHubStatus,
  type GitHubStatusResult,
  githubQueueOf,
  githubStatusWithPause,
} from "./github-queue.js";
import { unpauseButton } from "./pause.js";
import type { Ports } from "./ports.js";
import {
  batchStatusLabel,
  clip,
  cut,
  formatEta,
  formatTime,
  moreOnGitHub,
  plural,
  pullLink,
  resumesText,
} from "./present.js";
import { parseTarget, repoArgument } from "./targets.js";

export interface StatusCommand {
  name: "status";
  repo: Repo;
  branch?: string;
  /** On GitHub without a branch: the pull request the comment is on, whose base branch is meant. */
  baseOf?: number;
}

export interface StatusResult {
  name: "status";
  repo: Repo;
  branch?: string;
  status: QueueStatus;
  /** Who paused it through Yardmaster, and when a timed pause ends, when the pause is theirs. */
  paused?: { by: string; resumesAt: Date | null };
  /** The repository's freeze window in progress or next (src/freezes). */
  nextFreeze?: ListedFreeze;
}

/** Names from the service (batches, scopes) are cut to this many characters. */
const NAME_MAX = 80;

/** status: the merge queue of a repository (or one branch): pause, batches, waiting pull requests. */
export const status = defineCommand<StatusCommand, StatusResult | GitHubStatusResult>({
  name: "status",
  summary: "show the merge queue: batches, waiting pull requests, pause",
  permission: "none",
  needsLink: false,
  changes: false,
  grammar: {
    github: {
      usage: "status [branch]",
      read: ({ words }, place) => {
        const [branch, ...extra] = words;
        unexpected("status", extra);
        if (branch) return { name: "status", repo: place.repo, branch: branchName("status", branch) };
        return place.isPullRequest
          ? { name: "status", repo: place.repo, baseOf: place.number }
          : { name: "status", repo: place.repo };
      },
    },
    slack: {
      usage: "status [repo] [branch]",
      read: ({ words }, place) => {
        if (words.length >= 2) {
          const { repo, rest } = repoArgument("status", words, place, true);
          const [branch, ...extra] = rest;
          unexpected("status", extra);
          return { name: "status", repo, branch: branchName("status", branch ?? "") };
        }
        const [word] = words;
        if (word !== undefined && place.defaultRepo && !namesRepository(word, place.defaultRepo, place)) {
          return { name: "status", repo: place.defaultRepo, branch: branchName("status", word) };
        }
        const { repo, rest } = repoArgument("status", words, place);
        unexpected("status", rest);
        return { name: "status", repo };
      },
    },
  },
  async execute(command, _actor, ports) {
    let branch = command.branch;
    if (!branch && command.baseOf !== undefined) {
      // On a pull request, status shows its base branch's queue; if GitHub cannot say, every branch's.
      const pull = await ports.github.pullRequest(command.repo, command.baseOf).catch(() => null);
      branch = pull?.baseRef;
    }
    const options = branch ? { branch } : {};
    const github = await githubQueueOf(ports, command.repo, branch);
    if (github) {
      return {
        name: "status",
        repo: command.repo,
        ...options,
        github: await githubStatusWithPause(ports, github, command.repo, branch),
      };
    }
    const status = await ports.mergeQueue.getStatus(command.repo, options);
    const paused = status.pause?.paused
      ? await pausedBy(ports, command.repo, status.pause.reason)
      : undefined;
    const nextFreeze = await nextFreezeOf(ports, command.repo);
    return {
      name: "status",
      repo: command.repo,
      ...options,
      status,
      ...(paused ? { paused } : {}),
      ...(nextFreeze ? { nextFreeze } : {}),
    };
  },
  describe(result, context) {
    if (!("status" in result)) return describeGitHubStatus(result, context);
    const { repo, branch, status, paused } = result;
    const { by, now, githubWebUrl } = context;
    const more =
      (one: string, many?: string) =>
      (n: number): Text =>
      (f) =>
        moreOnGitHub(f, githubWebUrl, repo, n, one, many);
    const facts: Text = (f) =>
      [
        ...(branch ? [`branch ${f.code(clip(branch, NAME_MAX * 2))}`] : []),
        plural(status.batches.length, "batch", "batches"),
        `${status.waiting_pull_requests.length} waiting`,
        `as of ${formatTime(now.toISOString())}`,
        ...(by ? [`asked by ${by}`] : []),
      ].join(" · ");
    const parts: Part[] = [
      { kind: "title", text: `Merge queue of ${repo.fullName}` },
      { kind: "note", texts: [facts] },
    ];
    const pause = status.pause;
    if (pause?.paused) {
      const since = pause.paused_at ? ` since ${formatTime(pause.paused_at)}` : "";
      parts.push({
        kind: "sentence",
        text: (f) =>
          `⏸️ ${f.bold("Paused")}${pausedByText(f, paused)}${since}: ${f.escape(clip(pause.reason ?? "no reason given", 300))}${ends(paused, now)}`,
        button: unpauseButton(repo),
      });
    }
    if (result.nextFreeze) parts.push(freezeNote(result.nextFreeze));
    parts.push(
      { kind: "divider" },
      {
        kind: "batches",
        heading: (f) => `${f.bold("Batches")} (${status.batches.length})`,
        rows: status.batches.map((b) => batchRow(b, now)),
        more: more("batch", "batches"),
        morePulls: (n) => () => `…and ${plural(n, "more pull request", "more pull requests")}`,
        moreSubBatches: (n) => () => `…and ${plural(n, "more sub-batch", "more sub-batches")}`,
        empty: () => "No batch is running.",
      },
      {
        kind: "list",
        name: "waiting",
        heading: (f) => `${f.bold("Waiting")} (${status.waiting_pull_requests.length})`,
        items: status.waiting_pull_requests.map((p) => (f) => waitingLine(f, p, now)),
        more: more("pull request"),
        empty: () => "No pull request is waiting.",
      },
    );
    const scopes = Object.entries(status.scope_queues ?? {});
    // A lone scope queue named by the service ("__default__") is the queue itself: not worth a list.
    if (scopes.length > 1 || (scopes.length === 1 && !scopes[0]?.[0].startsWith("__"))) {
      parts.push({
        kind: "list",
        name: "scopes",
        heading: (f) => f.bold("Scope queues"),
        items: scopes.map(
          ([name, ids]) =>
            (f) =>
              `${f.code(clip(name, NAME_MAX))} ${plural(ids.length, "batch", "batches")}`,
        ),
        more: (n) => () => `…and ${plural(n, "more scope queue", "more scope queues")}`,
      });
    }
    parts.push({
      kind: "buttons",
      buttons: [{ label: "Refresh", runs: { name: "status", repo, ...(branch ? { branch } : {}) } }],
    });
    return { parts, summary: (f) => summary(f, repo, branch, status, by, paused, now) };
  },
});

/**
 * Whether one word after `status`, in a channel with a default repository, names a repository rather
 * than a branch: a URL, or `owner/repo` whose owner is the default repository's (branches such as
 * `release/1.x` rarely start with the organization's name).
 */
function namesRepository(word: string, defaultRepo: Repo, place: SlackPlace): boolean {
  if (/^<|^https?:/.test(word)) return true;
  const target = parseTarget("status", word, place);
  return target?.repo?.owner.toLowerCase() === defaultRepo.owner.toLowerCase();
}

function batchRow(batch: Batch | SubBatch, now: Date): BatchRow {
  return {
    name: clip(batch.name, NAME_MAX),
    status: batchStatusLabel(batch.status.code),
    checks: { passed: batch.checks_summary.passed, total: batch.checks_summary.total },
    eta: formatEta(batch.estimated_merge_at, now),
    pulls: batch.pull_requests.map((p) => (f) => pullLink(f, p)),
    // Only a top-level batch has sub-batches.
    subBatches: ((batch as Batch).sub_batches ?? []).map((sub) => batchRow(sub, now)),
  };
}

function waitingLine(f: TextFormat, p: QueuedPullRequest, now: Date): string {
  const { shown, more } = cut(p.scopes, 5);
  const scopes = shown.length
    ? ` · scopes ${shown.map((s) => f.code(clip(s, NAME_MAX))).join(", ")}${more ? ` and ${more} more` : ""}`
    : "";
  return `${pullLink(f, p)} — queued ${formatTime(p.queued_at)}, ETA ${formatEta(p.estimated_merge_at, now)}${scopes}`;
}

/**
 * Who paused through Yardmaster, if the queue's pause is theirs (same reason), and when it ends if it
 * is timed. Best effort: a status without it still says that the queue is paused.
 */
async function pausedBy(ports: Ports, repo: Repo, reason: string | null | undefined) {
  const attribution = await ports.pauseAttribution?.(repo).catch(() => null);
  if (attribution?.action !== "pause" || attribution.reason !== reason) return undefined;
  return { by: attribution.actor, resumesAt: attribution.resumesAt ?? null };
}

function pausedByText(f: TextFormat, paused: StatusResult["paused"]): string {
  return paused ? ` by ${f.escape(clip(paused.by, 100))}` : "";
}

/** " · resumes at 18:00 UTC (in 1 h 20 min)" while a timed pause has yet to end. */
function ends(paused: StatusResult["paused"], now: Date): string {
  const at = paused?.resumesAt;
  return at && at.getTime() > now.getTime() ? ` · ${resumesText(at, now)}` : "";
}

/** The same facts in plain words, without the lists. */
function summary(
  f: TextFormat,
  repo: Repo,
  branch: string | undefined,
  status: QueueStatus,
  by: string | undefined,
  paused: StatusResult["paused"],
  now: Date,
): string {
  const parts = [`Merge queue of ${repo.fullName}${branch ? ` (branch ${f.code(clip(branch, 160))})` : ""}`];
  const pause = status.pause;
  if (pause?.paused) {
    parts.push(
      `paused${pausedByText(f, paused)}${pause.paused_at ? ` since ${formatTime(pause.paused_at)}` : ""}: ${f.escape(clip(pause.reason ?? "no reason given", 300))}${ends(paused, now)}`,
    );
  }
  const { shown, more } = cut(status.batches, 5);
  const batches = shown.map(
    (b) => `${f.escape(clip(b.name, NAME_MAX))} ${f.escape(batchStatusLabel(b.status.code))}`,
  );
  parts.push(
    status.batches.length
      ? `${plural(status.batches.length, "batch", "batches")} (${batches.join(", ")}${more ? `, and ${more} more` : ""})`
      : "no batch running",
  );
  parts.push(`${plural(status.waiting_pull_requests.length, "pull request")} waiting`);
  return `${parts.join("; ")}.${by ? ` Asked by ${by}.` : ""}`;
}
