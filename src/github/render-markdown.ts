import { describeOutcome } from "../commands/describe.js";
import type { CommandOutcome } from "../commands/run.js";
import type { BatchRow, Description, Part, TextFormat } from "../wording/description.js";
import { cut, formatTime } from "../wording/words.js";

/** GitHub's limit is 65,536 characters per comment; stay well inside it. */
export const MAX_COMMENT_LENGTH = 60_000;
/** How much of a list one comment shows; the description's own "…and N more" says the rest. */
const MAX_LIST_ITEMS = 30;
const MAX_BATCH_ROWS = 25;

/**
 * A description as GitHub-flavoured Markdown: the core wrote every word; this is only layout. A
 * comment has no buttons (the commands they stand for are in help), so buttons are left out.
 */
export function renderMarkdown(description: Description, f: TextFormat): string {
  return description.parts
    .map((part) => renderPart(part, f))
    .filter((text) => text !== "")
    .join("\n\n");
}

function renderPart(part: Part, f: TextFormat): string {
  switch (part.kind) {
    case "title":
      return `#### ${f.escape(part.text)}`;
    case "sentence":
      return part.text(f);
    case "note":
      return part.texts.map((text) => text(f)).join("\n");
    case "fields":
      return part.fields.map(([label, value]) => `**${label}:** ${value(f)}`).join(" · ");
    case "list": {
      if (!part.items.length) return part.empty?.(f) ?? "";
      const { shown, more } = cut(part.items, MAX_LIST_ITEMS);
      const lines = shown.map((item) => `- ${item(f)}`);
      if (more) lines.push(`- ${part.more(more)(f)}`);
      return [...(part.heading ? [part.heading(f), ""] : []), ...lines].join("\n");
    }
    case "batches":
      return batchTable(part, f);
    case "buttons":
    case "divider":
      return "";
  }
}

function batchTable(part: Extract<Part, { kind: "batches" }>, f: TextFormat): string {
  if (!part.rows.length) return part.empty(f);
  const row = (batch: BatchRow, indent: string) => {
    const pulls = batch.pulls.map((pull) => pull(f)).join("<br>");
    return `| ${indent}${f.escape(batch.name)} | ${f.escape(batch.status)} | ${pulls || "—"} | ${batch.checks.passed}/${batch.checks.total} | ${batch.eta} |`;
  };
  const rows = part.rows.flatMap((batch) => [
    row(batch, ""),
    ...batch.subBatches.map((sub) => row(sub, "↳ ")),
  ]);
  const { shown, more } = cut(rows, MAX_BATCH_ROWS);
  const lines = [
    part.heading(f),
    "",
    "| Batch | Status | Pull requests | Checks | ETA |",
    "|---|---|---|---|---|",
  ];
  lines.push(...shown);
  if (more) lines.push("", part.more(more)(f));
  return lines.join("\n");
}

export interface SummaryInput {
  marker: string;
  /** What was typed, e.g. "queue urgent". */
  typed: string;
  author: string;
  commentUrl: string;
  outcome: CommandOutcome;
  at: Date;
  /** e.g. "https://github.com" (or a GitHub Enterprise Server), for links. */
  githubWebUrl?: string;
}

/** The one summary comment per pull request or issue, rewritten by each command. */
export function renderSummary(input: SummaryInput, f: TextFormat): string {
  const description = describeOutcome(input.outcome, {
    surface: "github",
    now: input.at,
    githubWebUrl: input.githubWebUrl ?? "https://github.com",
  });
  const header = `**Yardmaster** · latest command ${f.code(`${f.invocation} ${input.typed}`)} by ${f.bold(input.author)} · ${f.link(input.commentUrl, formatTime(input.at.toISOString()))}`;
  const text = `${input.marker}\n${header}\n\n${renderMarkdown(description, f)}\n`;
  return text.length <= MAX_COMMENT_LENGTH
    ? text
    : `${text.slice(0, MAX_COMMENT_LENGTH - 40)}\n\n…(cut to fit GitHub's limit)\n`;
}
