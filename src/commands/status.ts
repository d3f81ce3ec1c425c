import { estimatedAt, type QueueBatch, type QueueEntry, type QueueState } from "../core/merge-queue.js";
import type { FlakeShieldSetting } from "../core/records.js";
import type { ListedFreeze } from "../freezes/present.js";
import type { Repo } from "../repo.js";
import type { BatchRow, Description, Part, Text, TextFormat } from "../wording/description.js";
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
} from "../wording/words.js";
import { defineCommand, type SlackPlace } from "./command.js";
import { freezeNote, nextFreezeOf } from "./freeze.js";
import { describeGitHubStatus, queueOf } from "./github-queue.js";
import { branchName, unexpected } from "./grammar/arguments.js";
import { parseTarget, repoArgument } from "./grammar/targets.js";
import type { Ports } from "./ports.js";
import { shieldNote } from "./retry.js";
import { unpauseButton } from "./unpause-button.js";

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
  /** Whether its queue reports batches (`can.batches`): the layout; without, entries by position. */
  batches: boolean;
  /** Null: the branch has no merge queue. */
  state: QueueState | null;
  /** Who paused it through Yardmaster, and when a timed pause ends, when the pause is theirs. */
  paused?: { by: string; resumesAt: Date | null };
  /** The repository's freeze window in progress or next (src/freezes). */
  nextFreeze?: ListedFreeze;
  /** The repository's flake shield, when it is on (src/shield). */
  shield?: FlakeShieldSetting;
}

/** Names from the service (batches, scopes) are cut to this many characters. */
const NAME_MAX = 80;

/** status: the merge queue of a repository (or one branch): pause, batches, waiting pull requests. */
export const status = defineCommand<StatusCommand, StatusResult>({
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
    const backend = await queueOf(ports, command.repo, branch);
    const state = await backend.state(command.repo, branch ?? null);
    const batches = backend.can.batches;
    const setting = await ports.flakeShield?.get(command.repo).catch(() => null);
    const shield = setting?.enabled ? { shield: setting } : {};
    if (!state) return { name: "status", repo: command.repo, ...options, batches, state, ...shield };
    const paused = state.pause ? await pausedBy(ports, command.repo, state.pause.reason) : undefined;
    const nextFreeze = await nextFreezeOf(ports, command.repo);
    return {
      name: "status",
      repo: command.repo,
      ...options,
      batches,
      state,
      ...(paused ? { paused } : {}),
      ...(nextFreeze ? { nextFreeze } : {}),
      ...shield,
    };
  },
  describe(result, context) {
    const status = result.state;
    if (!result.batches || !status) return withShield(describeGitHubStatus(result, context), result.shield);
    const { repo, branch, paused } = result;
    const batches = status.batches ?? [];
    const { by, now, githubWebUrl } = context;
    const more =
      (one: string, many?: string) =>
      (n: number): Text =>
      (f) =>
        moreOnGitHub(f, githubWebUrl, repo, n, one, many);
    const facts: Text = (f) =>
      [
        ...(branch ? [`branch ${f.code(clip(branch, NAME_MAX * 2))}`] : []),
        plural(batches.length, "batch", "batches"),
        `${status.entries.length} waiting`,
        `as of ${formatTime(now.toISOString())}`,
        ...(by ? [`asked by ${by}`] : []),
      ].join(" · ");
    const parts: Part[] = [
      { kind: "title", text: `Merge queue of ${repo.fullName}` },
      { kind: "note", texts: [facts] },
    ];
    const pause = status.pause;
    if (pause) {
      const since = pause.pausedAt ? ` since ${formatTime(pause.pausedAt)}` : "";
      parts.push({
        kind: "sentence",
        text: (f) =>
          `⏸️ ${f.bold("Paused")}${pausedByText(f, paused)}${since}: ${f.escape(clip(pause.reason || "no reason given", 300))}${ends(paused, now)}`,
        button: unpauseButton(repo),
      });
    }
    if (result.nextFreeze) parts.push(freezeNote(result.nextFreeze));
    parts.push(
      { kind: "divider" },
      {
        kind: "batches",
        heading: (f) => `${f.bold("Batches")} (${batches.length})`,
        rows: batches.map((b) => batchRow(b, now)),
        more: more("batch", "batches"),
        morePulls: (n) => () => `…and ${plural(n, "more pull request", "more pull requests")}`,
        moreSubBatches: (n) => () => `…and ${plural(n, "more sub-batch", "more sub-batches")}`,
        empty: () => "No batch is running.",
      },
      {
        kind: "list",
        name: "waiting",
        heading: (f) => `${f.bold("Waiting")} (${status.entries.length})`,
        items: status.entries.map((p) => (f) => waitingLine(f, p, now)),
        more: more("pull request"),
        empty: () => "No pull request is waiting.",
      },
    );
    const scopes = status.scopeQueues;
    // A lone scope queue named by the service ("__default__") is the queue itself: not worth a list.
    if (scopes.length > 1 || (scopes.length === 1 && !scopes[0]?.name.startsWith("__"))) {
      parts.push({
        kind: "list",
        name: "scopes",
        heading: (f) => f.bold("Scope queues"),
        items: scopes.map(
          ({ name, batches }) =>
            (f) =>
              `${f.code(clip(name, NAME_MAX))} ${plural(batches, "batch", "batches")}`,
        ),
        more: (n) => () => `…and ${plural(n, "more scope queue", "more scope queues")}`,
      });
    }
    parts.push({
      kind: "buttons",
      buttons: [{ label: "Refresh", runs: { name: "status", repo, ...(branch ? { branch } : {}) } }],
    });
    return withShield(
      { parts, summary: (f) => summary(f, repo, branch, status, by, paused, now) },
      result.shield,
    );
  },
});

/** The flake shield's note after the status's first facts (or first, where there are none), when it is on. */
function withShield(described: Description, setting: FlakeShieldSetting | undefined): Description {
  if (!setting) return described;
  const at = described.parts.findIndex((p) => p.kind === "note");
  const parts = [...described.parts];
  parts.splice(at < 0 ? 1 : at + 1, 0, shieldNote(setting));
  return { ...described, parts };
}

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

function batchRow(batch: QueueBatch, now: Date): BatchRow {
  return {
    name: clip(batch.name, NAME_MAX),
    status: batchStatusLabel(batch.status),
    checks: { passed: batch.checks.passed, total: batch.checks.total },
    eta: formatEta(estimatedAt(batch.estimate, now), now),
    pulls: batch.entries.flatMap(({ pull }) => (pull ? [(f: TextFormat) => pullLink(f, pull)] : [])),
    // Only a top-level batch has parts (sub-batches).
    subBatches: batch.parts.map((sub) => batchRow(sub, now)),
  };
}

function waitingLine(f: TextFormat, e: QueueEntry, now: Date): string {
  const { shown, more } = cut(e.scopes, 5);
  const scopes = shown.length
    ? ` · scopes ${shown.map((s) => f.code(clip(s, NAME_MAX))).join(", ")}${more ? ` and ${more} more` : ""}`
    : "";
  const pr = e.pull ? pullLink(f, e.pull) : "a pull request";
  return `${pr} — queued ${formatTime(e.enteredAt)}, ETA ${formatEta(estimatedAt(e.estimate, now), now)}${scopes}`;
}

/**
 * Who paused through Yardmaster, if the queue's pause is theirs (same reason), and when it ends if it
 * is timed. Best effort: a status without it still says that the queue is paused.
 */
async function pausedBy(ports: Ports, repo: Repo, reason: string) {
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
  status: QueueState,
  by: string | undefined,
  paused: StatusResult["paused"],
  now: Date,
): string {
  const parts = [`Merge queue of ${repo.fullName}${branch ? ` (branch ${f.code(clip(branch, 160))})` : ""}`];
  const pause = status.pause;
  if (pause) {
    parts.push(
      `paused${pausedByText(f, paused)}${pause.pausedAt ? ` since ${formatTime(pause.pausedAt)}` : ""}: ${f.escape(clip(pause.reason || "no reason given", 300))}${ends(paused, now)}`,
    );
  }
  const all = status.batches ?? [];
  const { shown, more } = cut(all, 5);
  const batches = shown.map(
    (b) => `${f.escape(clip(b.name, NAME_MAX))} ${f.escape(batchStatusLabel(b.status))}`,
  );
  parts.push(
    all.length
      ? `${plural(all.length, "batch", "batches")} (${batches.join(", ")}${more ? `, and ${more} more` : ""})`
      : "no batch running",
  );
  parts.push(`${plural(status.entries.length, "pull request")} waiting`);
  return `${parts.join("; ")}.${by ? ` Asked by ${by}.` : ""}`;
}
