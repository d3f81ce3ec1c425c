import { COMMANDS } from "../commands/catalog.js";
import { describeError } from "../commands/describe-error.js";
import { batchStatusLabel, cut, formatEta, formatTime } from "../commands/present.js";
import type { CommandOutcome, CommandResult, QueueState } from "../commands/result.js";
import type { TextFormat } from "../commands/text-format.js";
import type { Batch, QueuedPullRequest, QueueStatus } from "../merge-queue/index.js";

/** GitHub's limit is 65,536 characters per comment; stay well inside it. */
export const MAX_COMMENT_LENGTH = 60_000;
const MAX_BATCH_ROWS = 25;
const MAX_WAITING = 30;

function pullLink(f: TextFormat, pr: { number: number; title: string; url: string }): string {
  return `${f.link(pr.url, `#${pr.number}`)} ${f.escape(pr.title)}`;
}

function queuePlace(f: TextFormat, number: number, queue: QueueState, now: Date): string {
  if (queue.state !== "queued") return "";
  const d = queue.details;
  return `#${number} is in the merge queue ${f.code(d.queue_rule_name)} at position ${d.position + 1}, ETA ${formatEta(d.estimated_time_of_merge, now)}.`;
}

export function renderResult(result: CommandResult, f: TextFormat, now = new Date()): string {
  switch (result.name) {
    case "queue":
    case "requeue": {
      const n = result.pull.number;
      if (result.queue.state === "queued") return `✅ ${queuePlace(f, n, result.queue, now)}`;
      const relayed = `📨 Relayed ${f.code(result.relayed)} to the merge queue (${f.link(result.relayCommentUrl, "comment")})`;
      if (result.queue.state === "not_queued") return `${relayed}; it has not picked #${n} up yet.`;
      return `${relayed}; its state could not be read: ${describeError(result.queue.error, f, "github")}`;
    }
    case "dequeue": {
      const n = result.pull.number;
      if (result.queue.state === "not_queued") return `✅ #${n} is not in the merge queue any more.`;
      const relayed = `📨 Relayed ${f.code("dequeue")} to the merge queue (${f.link(result.relayCommentUrl, "comment")})`;
      if (result.queue.state === "queued") {
        return `${relayed}; #${n} is still listed at position ${result.queue.details.position + 1} until the merge queue processes it.`;
      }
      return `${relayed}; its state could not be read: ${describeError(result.queue.error, f, "github")}`;
    }
    case "pause":
      return `⏸️ The merge queue of ${f.code(result.repo.fullName)} is **paused**: ${f.escape(result.pause.reason ?? "")}${result.pause.paused_at ? ` (since ${formatTime(result.pause.paused_at)})` : ""}.`;
    case "unpause":
      return `▶️ The merge queue of ${f.code(result.repo.fullName)} is running again.`;
    case "status":
      return renderStatus(
        result.status,
        f,
        `${result.repo.fullName}${result.branch ? ` (${result.branch})` : ""}`,
        now,
      );
    case "pr":
      return result.queue.state === "queued"
        ? queuePlace(f, result.pull, result.queue, now)
        : `#${result.pull} is not in any merge queue.`;
    case "branches":
      return result.branches.length
        ? `Branches with a merge queue: ${result.branches.map((b) => f.code(b)).join(", ")}.`
        : "No branch has an active merge queue.";
    case "help":
      return renderHelp(f);
    case "subscribe":
    case "unsubscribe":
    case "subscriptions":
    case "login":
    case "logout":
    case "whoami":
      // Slack-only commands: the GitHub grammar never produces them.
      return `${f.code(result.name)} is a Slack command.`;
  }
}

export function renderHelp(f: TextFormat): string {
  const rows = Object.values(COMMANDS)
    .filter((c) => c.surfaces.includes("github"))
    .map((c) => {
      const aliases = c.aliases.length ? ` (or ${c.aliases.map((a) => f.code(a)).join(", ")})` : "";
      const needs = c.permission === "none" ? "" : ` — needs ${c.permission}`;
      return `- ${f.code(`${f.invocation} ${c.usage.github}`)}${aliases}: ${c.summary}${needs}`;
    });
  return `Commands (one per comment, on the first line):\n\n${rows.join("\n")}`;
}

function batchRow(
  f: TextFormat,
  batch: Batch | NonNullable<Batch["sub_batches"]>[number],
  indent: string,
  now: Date,
) {
  const pulls = batch.pull_requests.map((p) => pullLink(f, p)).join("<br>");
  const checks = `${batch.checks_summary.passed}/${batch.checks_summary.total}`;
  return `| ${indent}${f.escape(batch.name)} | ${f.escape(batchStatusLabel(batch.status.code))} | ${pulls || "—"} | ${checks} | ${formatEta(batch.estimated_merge_at, now)} |`;
}

export function renderStatus(status: QueueStatus, f: TextFormat, title: string, now = new Date()): string {
  const lines = [`#### Merge queue of ${f.code(title)}`];
  if (status.pause?.paused) {
    lines.push(
      `⏸️ **Paused**${status.pause.paused_at ? ` since ${formatTime(status.pause.paused_at)}` : ""}: ${f.escape(status.pause.reason ?? "no reason given")}`,
    );
  }
  const rows: string[] = [];
  for (const batch of status.batches) {
    rows.push(batchRow(f, batch, "", now));
    for (const sub of batch.sub_batches ?? []) rows.push(batchRow(f, sub, "↳ ", now));
  }
  if (rows.length) {
    const { shown, more } = cut(rows, MAX_BATCH_ROWS);
    lines.push("", "| Batch | Status | Pull requests | Checks | ETA |", "|---|---|---|---|---|", ...shown);
    if (more) lines.push("", `…and ${more} more batches.`);
  } else {
    lines.push("", "No batch is running.");
  }
  const waiting = status.waiting_pull_requests;
  if (waiting.length) {
    const { shown, more } = cut(waiting, MAX_WAITING);
    lines.push(
      "",
      `**Waiting** (${waiting.length}):`,
      ...shown.map((p: QueuedPullRequest) => `- ${waitingLine(f, p, now)}`),
    );
    if (more) lines.push(`- …and ${more} more`);
  } else {
    lines.push("", "No pull request is waiting.");
  }
  const scopes = Object.entries(status.scope_queues ?? {});
  if (scopes.length > 1 || (scopes.length === 1 && !scopes[0]?.[0].startsWith("__"))) {
    lines.push(
      "",
      `**Scope queues:** ${scopes.map(([name, ids]) => `${f.code(name)} ${ids.length} batch${ids.length === 1 ? "" : "es"}`).join(", ")}`,
    );
  }
  return lines.join("\n");
}

function waitingLine(f: TextFormat, p: QueuedPullRequest, now: Date): string {
  const scopes = p.scopes.length ? ` · scopes ${p.scopes.map((s) => f.code(s)).join(", ")}` : "";
  return `${pullLink(f, p)} — queued ${formatTime(p.queued_at)}, ETA ${formatEta(p.estimated_merge_at, now)}${scopes}`;
}

export interface SummaryInput {
  marker: string;
  /** What was typed, e.g. "queue urgent". */
  typed: string;
  author: string;
  commentUrl: string;
  outcome: CommandOutcome;
  at: Date;
}

/** The one summary comment per pull request or issue, rewritten by each command. */
export function renderSummary(input: SummaryInput, f: TextFormat): string {
  const { outcome } = input;
  const mark = outcome.ok ? "✅" : outcome.error.isRefusal ? "🚫" : "😕";
  const body = outcome.ok
    ? renderResult(outcome.result, f, input.at)
    : `${mark} ${describeError(outcome.error, f, "github")}`;
  const header = `**Yardmaster** · latest command ${f.code(`${f.invocation} ${input.typed}`)} by ${f.bold(input.author)} · ${f.link(input.commentUrl, formatTime(input.at.toISOString()))}`;
  const text = `${input.marker}\n${header}\n\n${body}\n`;
  return text.length <= MAX_COMMENT_LENGTH
    ? text
    : `${text.slice(0, MAX_COMMENT_LENGTH - 40)}\n\n…(cut to fit GitHub's limit)\n`;
}
