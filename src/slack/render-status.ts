import { batchStatusLabel, cut, formatEta, formatTime } from "../commands/present.js";
import type { TextFormat } from "../commands/text-format.js";
import type { Batch, QueuedPullRequest, QueueStatus, SubBatch } from "../merge-queue/index.js";
import type { Repo } from "../repo.js";
import { mrkdwnFormat, plainFormat } from "./mrkdwn.js";
import {
  actions,
  byWhom,
  clip,
  context,
  header,
  type KnownBlock,
  message,
  moreLine,
  packItems,
  plural,
  pullLink,
  type RenderContext,
  refreshButton,
  type SlackMessage,
  section,
  unpauseButton,
} from "./render-kit.js";

/** How much of a queue one message shows; the rest is "…and N more" with a link to GitHub. */
export const STATUS_LIMITS = {
  batches: 15,
  subBatches: 5,
  pullsPerBatch: 5,
  waiting: 25,
  scopeQueues: 20,
  /** Sections for the batches, and for the waiting pull requests (Slack allows 50 blocks in all). */
  batchSections: 12,
  waitingSections: 10,
  nameMax: 80,
} as const;

const INDENT = "\u2003";

function hasNamedScopes(status: QueueStatus): boolean {
  const scopes = Object.keys(status.scope_queues ?? {});
  return scopes.length > 1 || (scopes.length === 1 && !scopes[0]?.startsWith("__"));
}

function batchLine(f: TextFormat, batch: Batch | SubBatch, now: Date): string {
  const checks = `checks ${batch.checks_summary.passed}/${batch.checks_summary.total}`;
  return `${f.bold(clip(batch.name, STATUS_LIMITS.nameMax))} — ${f.escape(batchStatusLabel(batch.status.code))} · ${checks} · ETA ${formatEta(batch.estimated_merge_at, now)}`;
}

function pullLines(f: TextFormat, pulls: readonly QueuedPullRequest[], indent: string): string[] {
  const { shown, more } = cut(pulls, STATUS_LIMITS.pullsPerBatch);
  const lines = shown.map((p) => `${indent}• ${pullLink(f, p)}`);
  if (more) lines.push(`${indent}…and ${plural(more, "more pull request", "more pull requests")}`);
  return lines;
}

/** A batch with its pull requests and its sub-batches (indented): kept together in one section. */
function batchItem(f: TextFormat, batch: Batch, now: Date): string[] {
  const lines = [batchLine(f, batch, now), ...pullLines(f, batch.pull_requests, INDENT)];
  const { shown, more } = cut(batch.sub_batches ?? [], STATUS_LIMITS.subBatches);
  for (const sub of shown) {
    lines.push(`${INDENT}↳ ${batchLine(f, sub, now)}`, ...pullLines(f, sub.pull_requests, INDENT.repeat(3)));
  }
  if (more) lines.push(`${INDENT}↳ …and ${plural(more, "more sub-batch", "more sub-batches")}`);
  return lines;
}

function waitingLine(f: TextFormat, p: QueuedPullRequest, now: Date): string {
  const { shown, more } = cut(p.scopes, 5);
  const scopes = shown.length
    ? ` · scopes ${shown.map((s) => f.code(clip(s, STATUS_LIMITS.nameMax))).join(", ")}${more ? ` and ${more} more` : ""}`
    : "";
  return `• ${pullLink(f, p)} — queued ${formatTime(p.queued_at)}, ETA ${formatEta(p.estimated_merge_at, now)}${scopes}`;
}

/**
 * The status of a merge queue: header, pause (with Unpause), batches with their sub-batches, waiting
 * pull requests, named scope queues, and Refresh. Within Slack's limits whatever the queue's length.
 */
export function renderStatusMessage(
  repo: Repo,
  branch: string | undefined,
  status: QueueStatus,
  ctx: RenderContext,
): SlackMessage {
  const f = mrkdwnFormat();
  const now = ctx.now;
  const by = byWhom(ctx);
  const blocks: KnownBlock[] = [header(`Merge queue of ${repo.fullName}`)];

  const facts = [
    ...(branch ? [`branch ${f.code(clip(branch, STATUS_LIMITS.nameMax * 2))}`] : []),
    plural(status.batches.length, "batch", "batches"),
    `${status.waiting_pull_requests.length} waiting`,
    `as of ${formatTime(now.toISOString())}`,
    ...(by ? [`asked by ${by}`] : []),
  ];
  blocks.push(context(facts.join(" · ")));

  const pause = status.pause;
  if (pause?.paused) {
    const since = pause.paused_at ? ` since ${formatTime(pause.paused_at)}` : "";
    blocks.push(
      section(
        `⏸️ *Paused*${since}: ${f.escape(clip(pause.reason ?? "no reason given", 300))}`,
        unpauseButton(repo),
      ),
    );
  }

  blocks.push({ type: "divider" });
  if (status.batches.length) {
    const { shown } = cut(status.batches, STATUS_LIMITS.batches);
    const texts = packItems(
      shown.map((b) => batchItem(f, b, now)),
      {
        heading: `*Batches* (${status.batches.length})`,
        total: status.batches.length,
        maxSections: STATUS_LIMITS.batchSections,
        moreLine: (n) => moreLine(f, ctx, repo, n, n === 1 ? "batch" : "batches"),
      },
    );
    blocks.push(...texts.map((t) => section(t)));
  } else {
    blocks.push(section("No batch is running."));
  }

  const waiting = status.waiting_pull_requests;
  if (waiting.length) {
    const { shown } = cut(waiting, STATUS_LIMITS.waiting);
    const texts = packItems(
      shown.map((p) => [waitingLine(f, p, now)]),
      {
        heading: `*Waiting* (${waiting.length})`,
        total: waiting.length,
        maxSections: STATUS_LIMITS.waitingSections,
        moreLine: (n) => moreLine(f, ctx, repo, n, n === 1 ? "pull request" : "pull requests"),
      },
    );
    blocks.push(...texts.map((t) => section(t)));
  } else {
    blocks.push(section("No pull request is waiting."));
  }

  if (hasNamedScopes(status)) {
    const scopes = Object.entries(status.scope_queues ?? {});
    const { shown } = cut(scopes, STATUS_LIMITS.scopeQueues);
    const texts = packItems(
      shown.map(([name, ids]) => [
        `• ${f.code(clip(name, STATUS_LIMITS.nameMax))} ${plural(ids.length, "batch", "batches")}`,
      ]),
      {
        heading: "*Scope queues*",
        total: scopes.length,
        maxSections: 2,
        moreLine: (n) => `…and ${plural(n, "more scope queue", "more scope queues")}`,
      },
    );
    blocks.push(...texts.map((t) => section(t)));
  }

  blocks.push(actions(refreshButton(repo, branch)));
  return message(statusText(repo, branch, status, ctx), "status", blocks, now);
}

/** The fallback: the same facts in plain words, without the lists. */
function statusText(repo: Repo, branch: string | undefined, status: QueueStatus, ctx: RenderContext): string {
  const p = plainFormat();
  const parts = [`Merge queue of ${repo.fullName}${branch ? ` (branch ${p.code(clip(branch, 160))})` : ""}`];
  const pause = status.pause;
  if (pause?.paused) {
    parts.push(
      `paused${pause.paused_at ? ` since ${formatTime(pause.paused_at)}` : ""}: ${p.escape(clip(pause.reason ?? "no reason given", 300))}`,
    );
  }
  const { shown, more } = cut(status.batches, 5);
  const batches = shown.map(
    (b) => `${p.escape(clip(b.name, STATUS_LIMITS.nameMax))} ${p.escape(batchStatusLabel(b.status.code))}`,
  );
  parts.push(
    status.batches.length
      ? `${plural(status.batches.length, "batch", "batches")} (${batches.join(", ")}${more ? `, and ${more} more` : ""})`
      : "no batch running",
  );
  parts.push(`${plural(status.waiting_pull_requests.length, "pull request")} waiting`);
  const by = byWhom(ctx);
  return `${parts.join("; ")}.${by ? ` Asked by ${by}.` : ""}`;
}
