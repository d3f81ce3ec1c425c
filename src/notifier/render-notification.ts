import { QUEUE_WIDE_KINDS, type QueueCheck, type QueueEvent, type QueueEventOf } from "../core/queue.js";
import { shieldLine } from "../shield/words.js";
import { failurePlain, failureTexts } from "../wording/check-failures.js";
import type { Button, Text, TextFormat } from "../wording/description.js";
import { exceptLabels, joinList, pullList } from "../wording/lists.js";
import type { ChatMessage, Inline, Span } from "../wording/message.js";
import { clip, formatDuration, formatTime, resumesText } from "../wording/words.js";
import type { NotificationContext, NotificationRenderer, PullInfo, ThreadState } from "./types.js";

/**
 * The notices, said in the neutral message model (src/wording/message.ts): what each event says is
 * written through the surface's `TextFormat` (`f`), which escapes what came from outside; a chat surface
 * lays it out (Slack: src/slack/render-message.ts).
 */

const MAX_CHECKS = 10;
/** Pull requests named in an "also failed" line; the rest are counted. */
const MAX_PULLS = 5;

type Check = QueueCheck;

function checksList(checks: readonly Check[] | undefined, f: TextFormat): string {
  if (!checks?.length) return "";
  const shown = checks.slice(0, MAX_CHECKS).map((c) => {
    const url = c.url;
    const label = `${c.name}${c.state ? ` (${c.state})` : ""}`;
    return `• ${url ? f.link(url, label) : f.escape(label)}`;
  });
  const more = checks.length > MAX_CHECKS ? [`• …and ${checks.length - MAX_CHECKS} more`] : [];
  return [...shown, ...more].join("\n");
}

/** Failed checks within a sentence: " (ci/test, lint)", each linked to its page where known (plain without `f`). */
function checksInline(checks: readonly Check[] | undefined, f?: TextFormat): string {
  if (!checks?.length) return "";
  const names = checks.slice(0, MAX_CHECKS).map((c) => {
    const url = c.url;
    if (!f) return c.name;
    return url ? f.link(url, c.name) : f.escape(c.name);
  });
  const more = checks.length > MAX_CHECKS ? [`and ${checks.length - MAX_CHECKS} more`] : [];
  return ` (${[...names, ...more].join(", ")})`;
}

function pullText(f: TextFormat, pull: PullInfo | null, number: number | null): string {
  if (!pull) return number === null ? "" : `#${number}`;
  return `${f.link(pull.url, `#${pull.number}`)}${pull.title ? ` ${f.escape(pull.title)}` : ""}`;
}

const shortSha = (sha: string) => sha.slice(0, 7);

interface Described {
  /** One line, in the surface's format (escaped). */
  line: Text;
  /** The same in plain words, for fallbacks and the thread parent's state. */
  plain: string;
  /** More detail: failed checks and the like. */
  detail?: Text;
  /** Why each failed check failed, in its own words: a line each (src/wording/check-failures.ts). */
  failures?: Text[];
  requeue?: boolean;
  unpause?: boolean;
  /** The line names its pull request itself (a top-level message about one): no "#12 · " before it. */
  namesPull?: boolean;
}

const queueName = (f: TextFormat, name: string | null) => (name ? ` ${f.code(name)}` : "");

/**
 * A leave: merged, or why not, in one sentence (src/core/removal-reasons.ts), then the checks that failed;
 * and each of them that also failed for other pull requests within the hour (notes.ts).
 */
function describeLeft(event: QueueEventOf<"left">, ctx: NotificationContext): Described {
  if (event.merged)
    return {
      line: (f) => `✅ Left the merge queue${queueName(f, event.queue)}: merged`,
      plain: "left the queue: merged",
    };
  const lead = `without merging${event.reason ? `: ${event.reason}` : ""}`;
  const also = event.notes?.alsoFailed?.length || event.notes?.shield;
  const failures = ctx.failures ? failureTexts(ctx.failures, ctx.githubWebUrl) : [];
  const why = ctx.failures ? failurePlain(ctx.failures) : "";
  return {
    line: (f) =>
      `❌ Left the merge queue${queueName(f, event.queue)} ${f.escape(lead)}${checksInline(event.failedChecks, f)}`,
    plain: `left the queue ${lead}${checksInline(event.failedChecks)}${why ? ` — ${why}` : ""}`,
    ...(also
      ? {
          detail: (f: TextFormat) =>
            [alsoFailedLines(event, ctx, f), shieldLine(event, f)].filter(Boolean).join("\n"),
        }
      : {}),
    ...(failures.length ? { failures } : {}),
    requeue: true,
  };
}

/** "⚠️ ci/test also failed for #204 and #207 in the last hour: probably not this change", linked. */
function alsoFailedLines(event: QueueEvent, ctx: NotificationContext, f: TextFormat): string {
  const pullLink = (n: number) => f.link(`${ctx.githubWebUrl}/${ctx.repo.fullName}/pull/${n}`, `#${n}`);
  return (event.notes?.alsoFailed ?? [])
    .slice(0, MAX_CHECKS)
    .map(({ check, pulls }) => {
      const shown = pulls.slice(0, MAX_PULLS).map(pullLink);
      const more = pulls.length - shown.length;
      const names = more > 0 ? [...shown, `${more} more`] : shown;
      const list = joinList(names);
      return `⚠️ ${f.escape(check)} also failed for ${list} in the last hour: probably not this change`;
    })
    .join("\n");
}

/** Checks started; for its people, the first of the entry says "you're next", with the estimate (notes.ts). */
function describeChecksStarted(event: QueueEventOf<"checks-started">): Described {
  const { batch } = event;
  const next = event.notes?.next;
  if (!next)
    return {
      line: (f) => `🧪 Checks started${batch ? ` in ${f.code(batch)}` : ""}`,
      plain: "checks started",
    };
  const eta = next.estimatedMergeAt
    ? `expected to merge around ${formatTime(next.estimatedMergeAt)} (about ${formatDuration(
        Math.max(0, Date.parse(next.estimatedMergeAt) - Date.parse(event.at)) / 1000,
      )} after its checks start, as usual this week)`
    : "no estimate yet (no merge this week to go by)";
  return {
    line: (f) => `🚦 You're next: checks started in the merge queue${queueName(f, event.queue)} · ${eta}`,
    plain: `you're next: checks started · ${eta}`,
  };
}

/** What one event says, in words (docs/notifications.md). */
export function describeEvent(event: QueueEvent, ctx: NotificationContext): Described {
  const repoName = ctx.repo.fullName;
  switch (event.kind) {
    case "entered": {
      const { branch } = event;
      return {
        // GitHub's queue is named after its branch: the branch is said once.
        line: (f) =>
          `📥 Entered the merge queue${queueName(f, event.queue)}${branch && branch !== event.queue ? ` for ${f.code(branch)}` : ""}`,
        plain: `entered the merge queue ${event.queue ?? ""}`.trim(),
      };
    }
    case "left":
      return describeLeft(event, ctx);
    case "merged": {
      const { sha } = event;
      const branch = event.branch ?? "";
      const commit = (f: TextFormat) =>
        sha ? ` as ${f.link(`${ctx.githubWebUrl}/${repoName}/commit/${sha}`, shortSha(sha))}` : "";
      return {
        line: (f) => `🎉 Merged into ${f.code(branch)}${commit(f)}`,
        plain: `merged into ${branch}${sha ? ` (${shortSha(sha)})` : ""}`,
      };
    }
    case "queue-size":
      return {
        line: (f) =>
          `🔁 The merge queue${queueName(f, event.queue)} now holds ${event.size ?? "?"} pull request${event.size === 1 ? "" : "s"}`,
        plain: `queue ${event.queue ?? ""} now holds ${event.size ?? "?"}`,
      };
    case "checks-started":
      return describeChecksStarted(event);
    case "checks-ended": {
      const why = event.reason;
      if (event.aborted)
        return {
          line: (f) => `⏹️ Checks aborted${why ? `: ${f.escape(why)}` : ""}`,
          plain: `checks aborted${why ? `: ${why}` : ""}`,
        };
      const { failedChecks } = event;
      const ok = event.conclusion === "success";
      return {
        line: (f) => `${ok ? "✅" : "❌"} Checks ended: ${f.code(event.conclusion)}`,
        plain: `checks ended: ${event.conclusion}`,
        ...(failedChecks?.length
          ? { detail: (f: TextFormat) => `*Unsuccessful checks*\n${checksList(failedChecks, f)}` }
          : {}),
      };
    }
    case "checks-running":
      return {
        line: () => `🧪 ${event.running ?? "?"} checks running`,
        plain: `${event.running ?? "?"} checks running`,
      };
    case "checks-not-started":
      return {
        line: (f) => `⏳ Checks not started${event.reason ? `: ${f.escape(event.reason)}` : ""}`,
        plain: `checks not started${event.reason ? `: ${event.reason}` : ""}`,
      };
    case "bisection-started": {
      const pulls = event.pulls.map((n) => `#${n}`).join(", ");
      return {
        line: () => `🔍 Bisecting a failed batch (${pulls}) into ${event.parts ?? "?"} sub-batches`,
        plain: `bisecting a failed batch (${pulls})`,
      };
    }
    case "bisection-ended": {
      const culprits = event.culprits.map((n) => `#${n}`).join(", ");
      return event.culprits.length
        ? { line: () => `🔍 Bisection found the culprit: ${culprits}`, plain: `bisection found ${culprits}` }
        : { line: () => "🔍 Bisection ended without a culprit", plain: "bisection ended without a culprit" };
    }
    case "paused":
      return describePaused(event, ctx);
    case "drained": {
      const branch = branchShown(event) ?? event.branch ?? "";
      const who = (f: TextFormat) =>
        event.by ? ` (${f.escape(event.by)}'s drain: ${f.escape(event.reason)})` : "";
      return {
        line: (f) =>
          `🏁 ${f.code(repoName)} ${f.code(branch)} drained: every pull request queued before the drain has left the queue, which stays held until unpaused${who(f)}`,
        plain: `${branch} drained: every pull request queued before the drain has left the queue, which stays held until unpaused${event.by ? ` (${event.by}'s drain: ${event.reason})` : ""}`,
        unpause: true,
      };
    }
    case "let-through": {
      const branch = branchShown(event);
      const named = event.pulls.at(-1);
      const ahead = event.pulls.slice(0, -1);
      const withAhead = ahead.length ? ` with ${pullList(ahead)} ahead of it` : "";
      return {
        line: (f) =>
          `⏩ ${f.escape(event.by)} let #${named ?? "?"} through the held merge queue of ${f.code(repoName)}${branch ? ` (branch ${f.code(branch)})` : ""}${withAhead}: its merge group passes the gate`,
        plain: `${event.by} let #${named ?? "?"} through the held merge queue${branch ? `, branch ${branch}` : ""}${withAhead}`,
      };
    }
    case "resumed": {
      const who = ctx.pausedBy ? `${ctx.pausedBy} (through Yardmaster)` : event.by;
      const how = ctx.scheduled ? "resumed as scheduled" : "resumed";
      const branch = branchShown(event);
      return {
        line: (f) =>
          `▶️ The merge queue of ${f.code(repoName)}${branch ? ` (branch ${f.code(branch)})` : ""} was ${how}${who ? ` by ${f.escape(who)}` : ""}`,
        plain: `merge queue ${how}${who ? ` by ${who}` : ""}${branch ? `, branch ${branch}` : ""}`,
      };
    }
    case "merged-outside-queue":
      return describeOutsideMerge(event, ctx);
    case "other":
      return { line: (f) => `ℹ️ ${f.escape(event.what)}`, plain: event.what };
    default:
      // A kind a later version wrote (a rolling upgrade): said plainly rather than not at all.
      return unknownKind(event);
  }
}

/**
 * "acme/ships#31 was merged into main by @dana without going through the merge queue: it was not tested
 * with the rest of the queue.", linked, with what to do (docs/notifications.md, "Merged outside the queue").
 */
function describeOutsideMerge(
  event: QueueEventOf<"merged-outside-queue">,
  ctx: NotificationContext,
): Described {
  const name = `${ctx.repo.fullName}#${event.pull ?? "?"}`;
  const url = `${ctx.githubWebUrl}/${ctx.repo.fullName}/pull/${event.pull ?? ""}`;
  const title = (f: TextFormat) => (event.title ? ` ${f.escape(clip(event.title, 200))}` : "");
  const branch = event.branch ?? "its branch";
  const { sha } = event;
  const commit = (f: TextFormat) =>
    sha ? ` as ${f.link(`${ctx.githubWebUrl}/${ctx.repo.fullName}/commit/${sha}`, shortSha(sha))}` : "";
  const by = event.by ? ` by @${event.by}` : "";
  const why = "without going through the merge queue: it was not tested with the rest of the queue.";
  const todo = `Check that ${branch} still passes its checks.`;
  return {
    line: (f) =>
      `⚠️ ${f.link(url, name)}${title(f)} was merged into ${f.code(branch)}${commit(f)}${f.escape(by)} ${why}`,
    plain: `${name} was merged into ${branch}${by} ${why} ${todo}`,
    detail: (f) =>
      `Check that ${f.code(branch)} still passes its checks: what the queue tests next is built on it.`,
    namesPull: true,
  };
}

/** A pause (or a drain, or one with exemptions), with who and until when. */
function describePaused(event: QueueEventOf<"paused">, ctx: NotificationContext): Described {
  const who = ctx.pausedBy ? `${ctx.pausedBy} (through Yardmaster)` : event.by;
  const ends = ctx.resumesAt ? ` · ${resumesText(ctx.resumesAt, ctx.now)}` : "";
  const branch = branchShown(event);
  const exceptLine = (f: TextFormat) => exceptLabels(event.except, (l) => f.code(l));
  const exceptPlain = exceptLabels(event.except, (l) => l);
  const where = (f: TextFormat) =>
    `${f.code(ctx.repo.fullName)}${branch ? ` (branch ${f.code(branch)})` : ""}`;
  const by = (f: TextFormat) => (who ? ` by ${f.escape(who)}` : "");
  if (event.drain)
    return {
      line: (f) =>
        `⏬ The merge queue of ${where(f)} is draining${by(f)}: ${f.escape(event.reason)} · what is queued merges, nothing queued from now on starts until unpaused`,
      plain: `merge queue draining${who ? ` by ${who}` : ""}${branch ? `, branch ${branch} only` : ""}: ${event.reason} · what is queued merges, nothing queued from now on starts until unpaused`,
      unpause: true,
    };
  const verb = event.update ? "pause updated" : "paused";
  return {
    line: (f) =>
      `⏸️ The merge queue of ${where(f)} was ${verb}${by(f)}: ${f.escape(event.reason)}${ends}${exceptLine(f)}`,
    plain: `merge queue ${verb}${who ? ` by ${who}` : ""}${branch ? `, branch ${branch} only` : ""}: ${event.reason}${ends}${exceptPlain}`,
    unpause: true,
  };
}

/** An event of a kind this version does not know. */
function unknownKind(event: { kind: string }): Described {
  const what = `the merge queue: ${String(event.kind)}`;
  return { line: (f) => `ℹ️ ${f.escape(what)}`, plain: what };
}

/** The branch a pause holds alone (its Unpause resumes that branch); undefined for a repository's pause. */
function pausedBranch(event: QueueEvent): string | undefined {
  return event.kind === "paused" || event.kind === "drained" ? heldBranch(event) : undefined;
}

/** The branch a pause or resume is of, as a notice shows it. */
function branchShown(event: QueueEvent): string | undefined {
  const branch = heldBranch(event);
  return branch === undefined ? undefined : clip(branch, 255);
}

/** The branch a pause or resume is of, where one pause holds one branch (the gate); else undefined. */
function heldBranch(event: QueueEvent): string | undefined {
  if (!("scope" in event)) return undefined;
  return event.scope === "branch" && event.branch ? event.branch : undefined;
}

const written = (text: Text): Span => ({ written: text });

/** A notice's buttons: Unpause on a pause (of its branch where it held one alone), Requeue on a removal. */
function buttonsOf(event: QueueEvent, d: Described, ctx: NotificationContext): Button[] {
  const branch = pausedBranch(event);
  const unpause: Button = {
    label: "Unpause",
    runs: { name: "unpause", repo: ctx.repo, ...(branch ? { branch } : {}) },
    style: "primary",
  };
  return [
    ...(d.unpause ? [unpause] : []),
    ...(d.requeue && event.pull !== null ? [requeueButton(ctx, event.pull)] : []),
  ];
}

const requeueButton = (ctx: NotificationContext, pull: number): Button => ({
  label: `Requeue #${pull}`,
  runs: { name: "requeue", repo: ctx.repo, pull },
});

export const notificationRenderer: NotificationRenderer = {
  event(event, pull, ctx): ChatMessage {
    const d = describeEvent(event, ctx);
    const subject = (f: TextFormat) =>
      event.pull === null || d.namesPull ? "" : `${pullText(f, pull, event.pull)} · `;
    const lines: Inline[] = [
      written((f) => `${subject(f)}${d.line(f)}`),
      ...(d.failures ?? []).map(written),
      ...(d.detail ? [written(d.detail)] : []),
    ];
    const who = event.pull === null ? "" : `#${event.pull} `;
    return {
      lines,
      notes: [[{ text: ctx.repo.fullName }, ` · ${formatTime(event.at)}`]],
      buttons: buttonsOf(event, d, ctx),
      summary: d.namesPull ? { text: d.plain } : [`${ctx.repo.fullName} ${who}`, { text: d.plain }],
      naming: { name: `ev${event.id}` },
    };
  },

  parent(state, ctx): ChatMessage {
    const { pull, queueName } = state;
    const title = pull.title ? ` ${pull.title}` : "";
    return {
      lines: [[{ bold: written((f) => pullText(f, pull, pull.number)) }, "\n", { text: state.latest }]],
      notes: [
        [
          { text: ctx.repo.fullName },
          ...(queueName ? [" · queue ", { code: queueName }] : []),
          ` · updated ${formatTime(state.updatedAt)}`,
        ],
      ],
      buttons: state.canRequeue ? [requeueButton(ctx, pull.number)] : [],
      summary: [`${ctx.repo.fullName} #${pull.number}`, { text: title }, ": ", { text: state.latest }],
      naming: { name: `pr${pull.number}`, at: ctx.now },
    };
  },

  stateAfter(previous, event, pull, repo): ThreadState {
    // Queue-size and running-check counts say nothing of this pull request's own state.
    if (previous && QUEUE_WIDE_KINDS.has(event.kind)) return { ...previous, pull };
    const d = describeEvent(event, {
      repo,
      githubWebUrl: "",
      now: new Date(event.at),
    });
    return {
      pull,
      latestType: event.kind,
      latest: d.plain.charAt(0).toUpperCase() + d.plain.slice(1),
      queueName: event.queue ?? previous?.queueName ?? null,
      canRequeue: d.requeue === true,
      updatedAt: event.at,
    };
  },
};
