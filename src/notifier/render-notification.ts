import { QUEUE_WIDE_KINDS, type QueueCheck, type QueueEvent, type QueueEventOf } from "../core/queue.js";
import { shieldLine } from "../shield/words.js";
import { codeMrkdwn as code, escapeMrkdwn, linkMrkdwn, mrkdwnFormat } from "../slack/mrkdwn.js";
import {
  actions,
  context,
  type KnownBlock,
  message,
  requeueButton,
  type SlackMessage,
  section,
  unpauseButton,
} from "../slack/render-kit.js";
import { failureBlocks, failurePlain } from "../wording/check-failures.js";
import { exceptLabels, joinList } from "../wording/lists.js";
import { clip, formatDuration, formatTime, resumesText } from "../wording/words.js";
import type { NotificationContext, NotificationRenderer, PullInfo, ThreadState } from "./types.js";

const MAX_CHECKS = 10;
/** Pull requests named in an "also failed" line; the rest are counted. */
const MAX_PULLS = 5;

type Check = QueueCheck;

function checksList(checks: readonly Check[] | undefined): string {
  if (!checks?.length) return "";
  const shown = checks.slice(0, MAX_CHECKS).map((c) => {
    const url = c.url;
    const label = `${c.name}${c.state ? ` (${c.state})` : ""}`;
    return `• ${url ? linkMrkdwn(url, label) : escapeMrkdwn(label)}`;
  });
  const more = checks.length > MAX_CHECKS ? [`• …and ${checks.length - MAX_CHECKS} more`] : [];
  return [...shown, ...more].join("\n");
}

/** Failed checks within a sentence: " (ci/test, lint)", each linked to its page where known. */
function checksInline(checks: readonly Check[] | undefined, mrkdwn: boolean): string {
  if (!checks?.length) return "";
  const names = checks.slice(0, MAX_CHECKS).map((c) => {
    const url = c.url;
    if (!mrkdwn) return c.name;
    return url ? linkMrkdwn(url, c.name) : escapeMrkdwn(c.name);
  });
  const more = checks.length > MAX_CHECKS ? [`and ${checks.length - MAX_CHECKS} more`] : [];
  return ` (${[...names, ...more].join(", ")})`;
}

function pullText(pull: PullInfo | null, number: number | null): string {
  if (!pull) return number === null ? "" : `#${number}`;
  return `${linkMrkdwn(pull.url, `#${pull.number}`)}${pull.title ? ` ${escapeMrkdwn(pull.title)}` : ""}`;
}

const shortSha = (sha: string) => sha.slice(0, 7);

interface Described {
  /** One line, mrkdwn (escaped). */
  line: string;
  /** The same in plain words, for fallbacks and the thread parent's state. */
  plain: string;
  /** More detail: failed checks and the like. */
  detail?: string;
  /** Why each failed check failed, in its own words: a section each (src/wording/check-failures.ts). */
  failures?: string[];
  requeue?: boolean;
  unpause?: boolean;
  /** The line names its pull request itself (a top-level message about one): no "#12 · " before it. */
  namesPull?: boolean;
}

const queueName = (name: string | null) => (name ? ` ${code(name)}` : "");

/**
 * A leave: merged, or why not, in one sentence (src/core/removal-reasons.ts), then the checks that failed;
 * and each of them that also failed for other pull requests within the hour (notes.ts).
 */
function describeLeft(event: QueueEventOf<"left">, ctx: NotificationContext): Described {
  if (event.merged)
    return {
      line: `✅ Left the merge queue${queueName(event.queue)}: merged`,
      plain: "left the queue: merged",
    };
  const lead = `without merging${event.reason ? `: ${event.reason}` : ""}`;
  const also = [alsoFailedLines(event, ctx), shieldLine(event, mrkdwnFormat())].filter(Boolean).join("\n");
  const failures = ctx.failures ? failureBlocks(ctx.failures, mrkdwnFormat(), ctx.githubWebUrl) : [];
  const why = ctx.failures ? failurePlain(ctx.failures) : "";
  return {
    line: `❌ Left the merge queue${queueName(event.queue)} ${escapeMrkdwn(lead)}${checksInline(event.failedChecks, true)}`,
    plain: `left the queue ${lead}${checksInline(event.failedChecks, false)}${why ? ` — ${why}` : ""}`,
    ...(also ? { detail: also } : {}),
    ...(failures.length ? { failures } : {}),
    requeue: true,
  };
}

/** "⚠️ ci/test also failed for #204 and #207 in the last hour: probably not this change", linked. */
function alsoFailedLines(event: QueueEvent, ctx: NotificationContext): string {
  const pullLink = (n: number) => linkMrkdwn(`${ctx.githubWebUrl}/${ctx.repo.fullName}/pull/${n}`, `#${n}`);
  return (event.notes?.alsoFailed ?? [])
    .slice(0, MAX_CHECKS)
    .map(({ check, pulls }) => {
      const shown = pulls.slice(0, MAX_PULLS).map(pullLink);
      const more = pulls.length - shown.length;
      const names = more > 0 ? [...shown, `${more} more`] : shown;
      const list = joinList(names);
      return `⚠️ ${escapeMrkdwn(check)} also failed for ${list} in the last hour: probably not this change`;
    })
    .join("\n");
}

/** Checks started; for its people, the first of the entry says "you're next", with the estimate (notes.ts). */
function describeChecksStarted(event: QueueEventOf<"checks-started">): Described {
  const where = event.batch ? ` in ${code(event.batch)}` : "";
  const next = event.notes?.next;
  if (!next) return { line: `🧪 Checks started${where}`, plain: "checks started" };
  const eta = next.estimatedMergeAt
    ? `expected to merge around ${formatTime(next.estimatedMergeAt)} (about ${formatDuration(
        Math.max(0, Date.parse(next.estimatedMergeAt) - Date.parse(event.at)) / 1000,
      )} after its checks start, as usual this week)`
    : "no estimate yet (no merge this week to go by)";
  return {
    line: `🚦 You're next: checks started in the merge queue${queueName(event.queue)} · ${eta}`,
    plain: `you're next: checks started · ${eta}`,
  };
}

/** What one event says, in words (docs/notifications.md). */
export function describeEvent(event: QueueEvent, ctx: NotificationContext): Described {
  const repoName = ctx.repo.fullName;
  const queue = (name: string | null) => (name ? ` ${code(name)}` : "");
  switch (event.kind) {
    case "entered":
      return {
        // GitHub's queue is named after its branch: the branch is said once.
        line: `📥 Entered the merge queue${queue(event.queue)}${event.branch && event.branch !== event.queue ? ` for ${code(event.branch)}` : ""}`,
        plain: `entered the merge queue ${event.queue ?? ""}`.trim(),
      };
    case "left":
      return describeLeft(event, ctx);
    case "merged": {
      const { sha } = event;
      const branch = event.branch ?? "";
      const commit = sha
        ? ` as ${linkMrkdwn(`${ctx.githubWebUrl}/${repoName}/commit/${sha}`, shortSha(sha))}`
        : "";
      return {
        line: `🎉 Merged into ${code(branch)}${commit}`,
        plain: `merged into ${branch}${sha ? ` (${shortSha(sha)})` : ""}`,
      };
    }
    case "queue-size":
      return {
        line: `🔁 The merge queue${queue(event.queue)} now holds ${event.size ?? "?"} pull request${event.size === 1 ? "" : "s"}`,
        plain: `queue ${event.queue ?? ""} now holds ${event.size ?? "?"}`,
      };
    case "checks-started":
      return describeChecksStarted(event);
    case "checks-ended": {
      const why = event.reason;
      if (event.aborted)
        return {
          line: `⏹️ Checks aborted${why ? `: ${escapeMrkdwn(why)}` : ""}`,
          plain: `checks aborted${why ? `: ${why}` : ""}`,
        };
      const failed = checksList(event.failedChecks);
      const ok = event.conclusion === "success";
      return {
        line: `${ok ? "✅" : "❌"} Checks ended: ${code(event.conclusion)}`,
        plain: `checks ended: ${event.conclusion}`,
        ...(failed ? { detail: `*Unsuccessful checks*\n${failed}` } : {}),
      };
    }
    case "checks-running":
      return {
        line: `🧪 ${event.running ?? "?"} checks running`,
        plain: `${event.running ?? "?"} checks running`,
      };
    case "checks-not-started":
      return {
        line: `⏳ Checks not started${event.reason ? `: ${escapeMrkdwn(event.reason)}` : ""}`,
        plain: `checks not started${event.reason ? `: ${event.reason}` : ""}`,
      };
    case "bisection-started": {
      const pulls = event.pulls.map((n) => `#${n}`).join(", ");
      return {
        line: `🔍 Bisecting a failed batch (${pulls}) into ${event.parts ?? "?"} sub-batches`,
        plain: `bisecting a failed batch (${pulls})`,
      };
    }
    case "bisection-ended": {
      const culprits = event.culprits.map((n) => `#${n}`).join(", ");
      return event.culprits.length
        ? { line: `🔍 Bisection found the culprit: ${culprits}`, plain: `bisection found ${culprits}` }
        : { line: "🔍 Bisection ended without a culprit", plain: "bisection ended without a culprit" };
    }
    case "paused":
      return describePaused(event, ctx);
    case "drained": {
      const branch = branchShown(event) ?? event.branch ?? "";
      const who = event.by ? ` (${escapeMrkdwn(event.by)}'s drain: ${escapeMrkdwn(event.reason)})` : "";
      return {
        line: `🏁 ${code(repoName)} ${code(branch)} drained: every pull request queued before the drain has left the queue, which stays held until unpaused${who}`,
        plain: `${branch} drained: every pull request queued before the drain has left the queue, which stays held until unpaused${event.by ? ` (${event.by}'s drain: ${event.reason})` : ""}`,
        unpause: true,
      };
    }
    case "let-through": {
      const branch = branchShown(event);
      const named = event.pulls.at(-1);
      const ahead = event.pulls.slice(0, -1);
      const pulls = (n: readonly number[]) => n.map((p) => `#${p}`).join(", ");
      const withAhead = ahead.length ? ` with ${pulls(ahead)} ahead of it` : "";
      return {
        line: `⏩ ${escapeMrkdwn(event.by)} let #${named ?? "?"} through the held merge queue of ${code(repoName)}${branch ? ` (branch ${code(branch)})` : ""}${withAhead}: its merge group passes the gate`,
        plain: `${event.by} let #${named ?? "?"} through the held merge queue${branch ? `, branch ${branch}` : ""}${withAhead}`,
      };
    }
    case "resumed": {
      const who = ctx.pausedBy ? `${ctx.pausedBy} (through Yardmaster)` : event.by;
      const how = ctx.scheduled ? "resumed as scheduled" : "resumed";
      const branch = branchShown(event);
      return {
        line: `▶️ The merge queue of ${code(repoName)}${branch ? ` (branch ${code(branch)})` : ""} was ${how}${who ? ` by ${escapeMrkdwn(who)}` : ""}`,
        plain: `merge queue ${how}${who ? ` by ${who}` : ""}${branch ? `, branch ${branch}` : ""}`,
      };
    }
    case "merged-outside-queue":
      return describeOutsideMerge(event, ctx);
    case "other":
      return { line: `ℹ️ ${escapeMrkdwn(event.what)}`, plain: event.what };
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
  const title = event.title ? ` ${escapeMrkdwn(clip(event.title, 200))}` : "";
  const branch = event.branch ?? "its branch";
  const commit = event.sha
    ? ` as ${linkMrkdwn(`${ctx.githubWebUrl}/${ctx.repo.fullName}/commit/${event.sha}`, shortSha(event.sha))}`
    : "";
  const by = event.by ? ` by @${event.by}` : "";
  const why = "without going through the merge queue: it was not tested with the rest of the queue.";
  const todo = `Check that ${branch} still passes its checks.`;
  return {
    line: `⚠️ ${linkMrkdwn(url, name)}${title} was merged into ${code(branch)}${commit}${escapeMrkdwn(by)} ${why}`,
    plain: `${name} was merged into ${branch}${by} ${why} ${todo}`,
    detail: `Check that ${code(branch)} still passes its checks: what the queue tests next is built on it.`,
    namesPull: true,
  };
}

/** A pause (or a drain, or one with exemptions), with who and until when. */
function describePaused(event: QueueEventOf<"paused">, ctx: NotificationContext): Described {
  const who = ctx.pausedBy ? `${ctx.pausedBy} (through Yardmaster)` : event.by;
  const ends = ctx.resumesAt ? ` · ${resumesText(ctx.resumesAt, ctx.now)}` : "";
  const branch = branchShown(event);
  const exceptLine = exceptLabels(event.except, code);
  const exceptPlain = exceptLabels(event.except, (l) => l);
  const where = `${code(ctx.repo.fullName)}${branch ? ` (branch ${code(branch)})` : ""}`;
  const by = who ? ` by ${escapeMrkdwn(who)}` : "";
  if (event.drain)
    return {
      line: `⏬ The merge queue of ${where} is draining${by}: ${escapeMrkdwn(event.reason)} · what is queued merges, nothing queued from now on starts until unpaused`,
      plain: `merge queue draining${who ? ` by ${who}` : ""}${branch ? `, branch ${branch} only` : ""}: ${event.reason} · what is queued merges, nothing queued from now on starts until unpaused`,
      unpause: true,
    };
  const verb = event.update ? "pause updated" : "paused";
  return {
    line: `⏸️ The merge queue of ${where} was ${verb}${by}: ${escapeMrkdwn(event.reason)}${ends}${exceptLine}`,
    plain: `merge queue ${verb}${who ? ` by ${who}` : ""}${branch ? `, branch ${branch} only` : ""}: ${event.reason}${ends}${exceptPlain}`,
    unpause: true,
  };
}

/** An event of a kind this version does not know. */
function unknownKind(event: { kind: string }): Described {
  const what = `the merge queue: ${String(event.kind)}`;
  return { line: `ℹ️ ${escapeMrkdwn(what)}`, plain: what };
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

export const notificationRenderer: NotificationRenderer = {
  event(event, pull, ctx): SlackMessage {
    const d = describeEvent(event, ctx);
    const subject = event.pull === null || d.namesPull ? "" : `${pullText(pull, event.pull)} · `;
    const blocks: KnownBlock[] = [section(`${subject}${d.line}`)];
    for (const failure of d.failures ?? []) blocks.push(section(failure));
    if (d.detail) blocks.push(section(d.detail));
    blocks.push(context(`${escapeMrkdwn(ctx.repo.fullName)} · ${formatTime(event.at)}`));
    const buttons = [
      ...(d.unpause ? [unpauseButton(ctx.repo, pausedBranch(event))] : []),
      ...(d.requeue && event.pull !== null ? [requeueButton(ctx.repo, event.pull)] : []),
    ];
    if (buttons.length) blocks.push(actions(...buttons));
    if (d.namesPull) return message(escapeMrkdwn(d.plain), `ev${event.id}`, blocks);
    const who = event.pull === null ? "" : `#${event.pull} `;
    return message(`${ctx.repo.fullName} ${who}${escapeMrkdwn(d.plain)}`, `ev${event.id}`, blocks);
  },

  parent(state, ctx): SlackMessage {
    const blocks: KnownBlock[] = [
      section(`*${pullText(state.pull, state.pull.number)}*\n${escapeMrkdwn(state.latest)}`),
      context(
        `${escapeMrkdwn(ctx.repo.fullName)}${state.queueName ? ` · queue ${code(state.queueName)}` : ""} · updated ${formatTime(state.updatedAt)}`,
      ),
    ];
    if (state.canRequeue) {
      blocks.push(actions(requeueButton(ctx.repo, state.pull.number)));
    }
    const title = state.pull.title ? ` ${state.pull.title}` : "";
    return message(
      `${ctx.repo.fullName} #${state.pull.number}${escapeMrkdwn(title)}: ${escapeMrkdwn(state.latest)}`,
      `pr${state.pull.number}`,
      blocks,
      ctx.now,
    );
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
