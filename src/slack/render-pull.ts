import { cut, formatEta, formatTime } from "../commands/present.js";
import type { CommandResult, QueueState } from "../commands/result.js";
import type { TextFormat } from "../commands/text-format.js";
import type { MergeabilityCheck, PullRequestQueueDetails } from "../merge-queue/index.js";
import type { Repo } from "../repo.js";
import { mrkdwnFormat, plainFormat } from "./mrkdwn.js";
import {
  actions,
  byWhom,
  clip,
  context,
  describe,
  fieldsSection,
  type KnownBlock,
  message,
  moreLine,
  packItems,
  pullLink,
  pullUrl,
  type RenderContext,
  requeueButton,
  type SlackMessage,
  section,
} from "./render-kit.js";

type Relayed = Extract<CommandResult, { name: "queue" | "dequeue" | "requeue" }>;

const PAST: Record<Relayed["name"], string> = { queue: "queued", requeue: "requeued", dequeue: "dequeued" };

function place(f: TextFormat, details: PullRequestQueueDetails, now: Date | null): string {
  const at = `at position ${details.position + 1} in the merge queue ${f.code(clip(details.queue_rule_name, 100))}`;
  return now ? `${at}, ETA ${formatEta(details.estimated_time_of_merge, now)}` : at;
}

/**
 * What is known after a relayed command, truthfully (PRODUCT.md section 1): where the pull request is,
 * or that the merge queue has not picked the command up yet, or that its state could not be read.
 */
function relayedSentence(result: Relayed, f: TextFormat, ctx: RenderContext): string {
  const by = byWhom(ctx);
  const pr = pullLink(f, result.pull);
  const relayed = f.code(result.relayed);
  const asked = by
    ? `📨 ${by} relayed ${relayed} for ${pr} to the merge queue`
    : `📨 Relayed ${relayed} for ${pr} to the merge queue`;
  const queue = result.queue;
  if (queue.state === "unknown") return `${asked}; its state is unknown: ${describe(queue.error, f)}`;
  if (result.name === "dequeue") {
    if (queue.state === "not_queued") {
      return by
        ? `✅ ${by} dequeued ${pr}: it is not in the merge queue any more.`
        : `✅ ${pr} is not in the merge queue any more.`;
    }
    return `${asked}; it is still listed ${place(f, queue.details, null)} until the merge queue processes the command.`;
  }
  if (queue.state === "not_queued") return `${asked}; the merge queue has not picked it up yet.`;
  return by
    ? `✅ ${by} ${PAST[result.name]} ${pr}: it is ${place(f, queue.details, ctx.now)}.`
    : `✅ ${pr} is ${place(f, queue.details, ctx.now)}.`;
}

export function renderRelayedMessage(result: Relayed, ctx: RenderContext): SlackMessage {
  const f = mrkdwnFormat();
  const blocks: KnownBlock[] = [
    section(relayedSentence(result, f, ctx)),
    context(
      `${f.code(result.repo.fullName)} · relayed as ${f.code(result.relayed)} in ${f.link(result.relayCommentUrl, "a comment")} on #${result.pull.number}`,
    ),
  ];
  const leftWithoutMerging =
    result.name === "dequeue" &&
    result.queue.state === "not_queued" &&
    !result.pull.merged &&
    result.pull.state === "open";
  if (leftWithoutMerging) blocks.push(actions(requeueButton(result.repo, result.pull.number)));
  return message(relayedSentence(result, plainFormat(), ctx), result.name, blocks, ctx.now);
}

const CHECK_ICONS: Record<string, string> = {
  success: "✅",
  failure: "❌",
  error: "❌",
  timed_out: "❌",
  cancelled: "⛔",
  action_required: "⚠️",
  pending: "⏳",
  neutral: "⚪",
  skipped: "⚪",
  stale: "⚪",
  failed: "❌",
};

function icon(state: string): string {
  return CHECK_ICONS[state] ?? "•";
}

const CHECK_TYPES: Record<string, string> = {
  in_place: "in place",
  draft_pr: "in draft pull request",
  trusted: "trusted",
};

function ciField(f: TextFormat, check: MergeabilityCheck): string {
  const where = CHECK_TYPES[check.check_type] ?? f.escape(check.check_type);
  const draft = check.check_type === "draft_pr" ? ` #${check.queue_pull_request_number}` : "";
  return `${icon(check.ci_state)} ${f.escape(check.ci_state)} (${where}${draft})`;
}

function checkLine(f: TextFormat, check: MergeabilityCheck["checks"][number]): string {
  const url = check.url ?? check.details_url ?? "";
  const name = clip(check.name, 100);
  const label = url ? f.link(url, name) : f.bold(name);
  const description = check.description ? `: ${f.escape(clip(check.description, 150))}` : "";
  return `• ${icon(check.state)} ${label} — ${f.escape(check.state)}${description}`;
}

function prSentence(f: TextFormat, repo: Repo, pull: number, queue: QueueState, ctx: RenderContext): string {
  const pr = `${f.link(pullUrl(ctx, repo, pull), `#${pull}`)} of ${f.code(repo.fullName)}`;
  if (queue.state === "queued") return `📍 ${pr} is ${place(f, queue.details, ctx.now)}.`;
  if (queue.state === "not_queued") return `${pr} is not in any merge queue.`;
  return `⚠️ The merge-queue state of ${pr} could not be read: ${describe(queue.error, f)}`;
}

/** A pull request's place: position, queue, ETA, its mergeability check with its checks, CI state. */
export function renderPullMessage(
  repo: Repo,
  pull: number,
  queue: QueueState,
  ctx: RenderContext,
): SlackMessage {
  const f = mrkdwnFormat();
  const blocks: KnownBlock[] = [section(prSentence(f, repo, pull, queue, ctx))];
  if (queue.state === "queued") {
    const d = queue.details;
    const check = d.mergeability_check;
    blocks.push(
      fieldsSection([
        ["Position", `${d.position + 1}`],
        ["Queue", f.code(clip(d.queue_rule_name, 100))],
        ["ETA", formatEta(d.estimated_time_of_merge, ctx.now)],
        ["Queued", formatTime(d.queued_at)],
        ["Priority rule", f.code(clip(d.priority_rule_name, 100))],
        ...(check ? [["CI", ciField(f, check)] as [string, string]] : []),
        ...(d.checks_timeout_at
          ? [["Checks time out", formatTime(d.checks_timeout_at)] as [string, string]]
          : []),
      ]),
    );
    if (check?.checks.length) {
      const { shown } = cut(check.checks, 20);
      const texts = packItems(
        shown.map((c) => [checkLine(f, c)]),
        {
          heading: "*Checks*",
          total: check.checks.length,
          maxSections: 3,
          moreLine: (n) => moreLine(f, ctx, repo, n, n === 1 ? "check" : "checks"),
        },
      );
      blocks.push(...texts.map((t) => section(t)));
    }
  }
  const p = plainFormat();
  let text = prSentence(p, repo, pull, queue, ctx);
  const check = queue.state === "queued" ? queue.details.mergeability_check : null;
  if (check) text += ` CI: ${ciField(p, check)}.`;
  return message(text, "pr", blocks, ctx.now);
}
