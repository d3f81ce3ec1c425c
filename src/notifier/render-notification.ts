import { formatTime, resumesText } from "../commands/present.js";
import { type LogEvent, parseEventMetadata } from "../backends/mergify/index.js";
import { removalWords } from "../backends/mergify/removal-reasons.js";
import { codeMrkdwn as code, escapeMrkdwn, linkMrkdwn } from "../slack/mrkdwn.js";
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
import { QUEUE_WIDE_TYPES } from "./routing.js";
import type { NotificationContext, NotificationRenderer, PullInfo, ThreadState } from "./types.js";

const MAX_CHECKS = 10;

interface Check {
  name: string;
  url?: string | null;
  details_url?: string | null;
  state?: string;
}

function checksList(checks: readonly Check[] | undefined): string {
  if (!checks?.length) return "";
  const shown = checks.slice(0, MAX_CHECKS).map((c) => {
    const url = c.details_url ?? c.url;
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
    const url = c.details_url ?? c.url;
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
  requeue?: boolean;
  unpause?: boolean;
}

/** What one event says, in words (docs/notifications.md). */
export function describeEvent(event: LogEvent, ctx: NotificationContext): Described {
  const typed = parseEventMetadata(event);
  const repoName = ctx.repo.fullName;
  const branch = event.base_ref ?? "";
  const queue = (name: string | undefined | null) => (name ? ` ${code(name)}` : "");
  if (!typed) {
    const what = event.type.replace(/^action\./, "").replace(/[._]/g, " ");
    return { line: `ℹ️ ${escapeMrkdwn(what)}`, plain: what };
  }
  switch (typed.type) {
    case "action.queue.enter": {
      const m = typed.metadata;
      return {
        line: `📥 Entered the merge queue${queue(m.queue_name)}${m.branch ? ` for ${code(m.branch)}` : ""}`,
        plain: `entered the merge queue ${m.queue_name ?? ""}`.trim(),
      };
    }
    case "action.queue.leave": {
      const m = typed.metadata;
      if (m.merged)
        return {
          line: `✅ Left the merge queue${queue(m.queue_name)}: merged`,
          plain: "left the queue: merged",
        };
      // One sentence: why, in words (removal-reasons.ts), then the checks that failed.
      const removedBy = (m as { removed_by?: unknown }).removed_by;
      const why = removalWords({
        code: m.dequeue_code,
        reason: m.reason,
        removedBy: typeof removedBy === "string" ? removedBy : null,
      });
      const lead = `without merging${why ? `: ${why}` : ""}`;
      return {
        line: `❌ Left the merge queue${queue(m.queue_name)} ${escapeMrkdwn(lead)}${checksInline(m.unsuccessful_checks, true)}`,
        plain: `left the queue ${lead}${checksInline(m.unsuccessful_checks, false)}`,
        requeue: true,
      };
    }
    case "action.queue.merged": {
      const m = typed.metadata;
      const sha = m.merge_commit_sha;
      const commit = sha
        ? ` as ${linkMrkdwn(`${ctx.githubWebUrl}/${repoName}/commit/${sha}`, shortSha(sha))}`
        : "";
      return {
        line: `🎉 Merged into ${code(m.branch ?? branch)}${commit}`,
        plain: `merged into ${m.branch ?? branch}${sha ? ` (${shortSha(sha)})` : ""}`,
      };
    }
    case "action.queue.change": {
      const m = typed.metadata;
      return {
        line: `🔁 The merge queue${queue(m.queue_name)} now holds ${m.size ?? "?"} pull request${m.size === 1 ? "" : "s"}`,
        plain: `queue ${m.queue_name ?? ""} now holds ${m.size ?? "?"}`,
      };
    }
    case "action.queue.checks_start": {
      const m = typed.metadata;
      const batch = m.batch_name ? ` in ${code(m.batch_name)}` : "";
      return { line: `🧪 Checks started${batch}`, plain: "checks started" };
    }
    case "action.queue.checks_end": {
      const m = typed.metadata;
      if (m.aborted) {
        const why = removalWords({ code: m.abort_code, reason: m.abort_reason });
        return {
          line: `⏹️ Checks aborted${why ? `: ${escapeMrkdwn(why)}` : ""}`,
          plain: `checks aborted${why ? `: ${why}` : ""}`,
        };
      }
      const conclusion = m.speculative_check_pull_request?.checks_conclusion ?? "unknown";
      const failed = checksList(m.speculative_check_pull_request?.unsuccessful_checks);
      const ok = conclusion === "success";
      return {
        line: `${ok ? "✅" : "❌"} Checks ended: ${code(conclusion)}`,
        plain: `checks ended: ${conclusion}`,
        ...(failed ? { detail: `*Unsuccessful checks*\n${failed}` } : {}),
      };
    }
    case "action.queue.checks.change":
      return {
        line: `🧪 ${typed.metadata.running_checks ?? "?"} checks running`,
        plain: `${typed.metadata.running_checks ?? "?"} checks running`,
      };
    case "action.queue.checks_not_started": {
      const reason = typed.metadata.reason;
      return {
        line: `⏳ Checks not started${reason ? `: ${escapeMrkdwn(reason)}` : ""}`,
        plain: `checks not started${reason ? `: ${reason}` : ""}`,
      };
    }
    case "action.queue.batch_bisection_start": {
      const m = typed.metadata;
      const pulls = (m.original_batch_pr_numbers ?? []).map((n) => `#${n}`).join(", ");
      return {
        line: `🔍 Bisecting a failed batch (${pulls}) into ${m.number_of_sub_batches ?? "?"} sub-batches`,
        plain: `bisecting a failed batch (${pulls})`,
      };
    }
    case "action.queue.batch_bisection_end": {
      const m = typed.metadata;
      const culprits = (m.culprit_pr_numbers ?? []).map((n) => `#${n}`).join(", ");
      return m.culprit_found
        ? { line: `🔍 Bisection found the culprit: ${culprits}`, plain: `bisection found ${culprits}` }
        : { line: "🔍 Bisection ended without a culprit", plain: "bisection ended without a culprit" };
    }
    case "queue.pause.create":
    case "queue.pause.update": {
      const m = typed.metadata;
      const by = ("created_by" in m ? m.created_by : (m as { updated_by?: unknown }).updated_by) as
        | { name?: string }
        | undefined;
      const verb = typed.type === "queue.pause.create" ? "paused" : "pause updated";
      const who = ctx.pausedBy ? `${ctx.pausedBy} (through Yardmaster)` : by?.name;
      const ends = ctx.resumesAt ? ` · ${resumesText(ctx.resumesAt, ctx.now)}` : "";
      return {
        line: `⏸️ The merge queue of ${code(repoName)} was ${verb}${who ? ` by ${escapeMrkdwn(who)}` : ""}: ${escapeMrkdwn(m.reason ?? "")}${ends}`,
        plain: `merge queue ${verb}${who ? ` by ${who}` : ""}: ${m.reason ?? ""}${ends}`,
        unpause: true,
      };
    }
    case "queue.pause.delete": {
      const by = typed.metadata.deleted_by as { name?: string } | undefined;
      const who = ctx.pausedBy ? `${ctx.pausedBy} (through Yardmaster)` : by?.name;
      const how = ctx.scheduled ? "resumed as scheduled" : "resumed";
      return {
        line: `▶️ The merge queue of ${code(repoName)} was ${how}${who ? ` by ${escapeMrkdwn(who)}` : ""}`,
        plain: `merge queue ${how}${who ? ` by ${who}` : ""}`,
      };
    }
    default: {
      const what = event.type.replace(/^action\./, "").replace(/[._]/g, " ");
      return { line: `ℹ️ ${escapeMrkdwn(what)}`, plain: what };
    }
  }
}

export const notificationRenderer: NotificationRenderer = {
  event(event, pull, ctx): SlackMessage {
    const d = describeEvent(event, ctx);
    const subject = event.pull_request === null ? "" : `${pullText(pull, event.pull_request)} · `;
    const blocks: KnownBlock[] = [section(`${subject}${d.line}`)];
    if (d.detail) blocks.push(section(d.detail));
    blocks.push(context(`${escapeMrkdwn(ctx.repo.fullName)} · ${formatTime(event.received_at)}`));
    const buttons = [
      ...(d.unpause ? [unpauseButton(ctx.repo)] : []),
      ...(d.requeue && event.pull_request !== null ? [requeueButton(ctx.repo, event.pull_request)] : []),
    ];
    if (buttons.length) blocks.push(actions(...buttons));
    const who = event.pull_request === null ? "" : `#${event.pull_request} `;
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
    if (previous && QUEUE_WIDE_TYPES.has(event.type)) return { ...previous, pull };
    const d = describeEvent(event, {
      repo,
      githubWebUrl: "",
      now: new Date(event.received_at),
    });
    const queueName = (event.metadata as { queue_name?: unknown } | null)?.queue_name;
    return {
      pull,
      latestType: event.type,
      latest: d.plain.charAt(0).toUpperCase() + d.plain.slice(1),
      queueName: typeof queueName === "string" ? queueName : (previous?.queueName ?? null),
      canRequeue: d.requeue === true,
      updatedAt: event.received_at,
    };
  },
};
