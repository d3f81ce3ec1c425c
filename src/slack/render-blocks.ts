import type { CommandResult } from "../commands/catalog.js";
import { describeFailure, describeResult, describeUnexpected } from "../commands/describe.js";
import type { CommandError } from "../commands/errors.js";
import type { BatchRow, Description, Part, TextFormat } from "../wording/description.js";
import { cut } from "../wording/words.js";
import { mrkdwnFormat, plainFormat } from "./mrkdwn.js";
import {
  actions,
  commandButton,
  context,
  fieldsSection,
  header,
  type KnownBlock,
  mention,
  message,
  packItems,
  type RenderContext,
  type SlackMessage,
  section,
} from "./render-kit.js";

export type { KnownBlock, RenderContext, SlackMessage } from "./render-kit.js";

/**
 * Slack's layout of the core's descriptions: Block Kit, with the description's plain-words summary as
 * the `text` fallback, within Slack's limits. The core wrote every word; this file only places them.
 * When `ctx.ranBy` is set (results posted in the channel), the message names who ran the command.
 */
export function renderResultMessage(result: CommandResult, ctx: RenderContext): SlackMessage {
  const description = describeResult(result, {
    surface: "slack",
    now: ctx.now,
    githubWebUrl: ctx.githubWebUrl,
    ...(ctx.ranBy ? { by: mention(ctx.ranBy) } : {}),
  });
  // Help reads the same whenever it is asked and is never updated in place: its block ids need no time.
  return layout(description, result.name, result.name === "help" ? undefined : ctx.now);
}

/** Every Slack command with its usage, summary and what it needs; ephemeral. */
export function renderHelpMessage(): SlackMessage {
  return renderResultMessage({ name: "help", surface: "slack" }, { now: new Date(), githubWebUrl: "" });
}

export function renderErrorMessage(error: CommandError, ctx: RenderContext): SlackMessage {
  return layout(describeFailure(error, "slack"), "error", ctx.now);
}

/** For errors that are not CommandErrors (bugs): nothing of their internals is shown. */
export function renderUnexpectedMessage(): SlackMessage {
  return layout(describeUnexpected(), "unexpected");
}

const MRKDWN = mrkdwnFormat();
const PLAIN = plainFormat();

/**
 * How much of each list one message shows (Slack allows 50 blocks in all, 3,000 characters a
 * section): at most `items`, packed into at most `sections`; the list's "…and N more" says the rest.
 */
const LIST_LIMITS: Record<string, { items: number; sections: number }> = {
  batches: { items: 15, sections: 12 },
  waiting: { items: 25, sections: 10 },
  scopes: { items: 20, sections: 2 },
  checks: { items: 20, sections: 3 },
  branches: { items: 100, sections: 5 },
  subscriptions: { items: 50, sections: 5 },
  commands: { items: 50, sections: 5 },
  setup: { items: 60, sections: 12 },
};
/** Within a batch: its pull requests, and its sub-batches. */
const BATCH_LIMITS = { pulls: 5, subBatches: 5 };

const INDENT = "\u2003";

/** A description laid out as a command's answer, its blocks named after `kind` (and `now`, when edited). */
export function layout(description: Description, kind: string, now?: Date): SlackMessage {
  return message(description.summary(PLAIN), kind, description.parts.flatMap(blocksOf), now);
}

function blocksOf(part: Part): KnownBlock[] {
  const f = MRKDWN;
  switch (part.kind) {
    case "title":
      return [header(part.text)];
    case "sentence":
      return [section(part.text(f), part.button && commandButton(part.button))];
    case "note":
      return [context(...part.texts.map((text) => text(f)))];
    case "fields":
      return [fieldsSection(part.fields.map(([label, value]) => [label, value(f)]))];
    case "list": {
      if (!part.items.length) return part.empty ? [section(part.empty(f))] : [];
      const limits = LIST_LIMITS[part.name] ?? { items: 20, sections: 3 };
      const texts = packItems(
        cut(part.items, limits.items).shown.map((item) => [`• ${item(f)}`]),
        {
          ...(part.heading ? { heading: part.heading(f) } : {}),
          total: part.items.length,
          maxSections: limits.sections,
          moreLine: (n) => part.more(n)(f),
        },
      );
      return texts.map((text) => section(text));
    }
    case "batches": {
      if (!part.rows.length) return [section(part.empty(f))];
      const limits = LIST_LIMITS.batches ?? { items: 15, sections: 12 };
      const texts = packItems(
        cut(part.rows, limits.items).shown.map((row) => batchItem(f, part, row)),
        {
          heading: part.heading(f),
          total: part.rows.length,
          maxSections: limits.sections,
          moreLine: (n) => part.more(n)(f),
        },
      );
      return texts.map((text) => section(text));
    }
    case "buttons":
      return [actions(...part.buttons.map(commandButton))];
    case "divider":
      return [{ type: "divider" }];
  }
}

type Batches = Extract<Part, { kind: "batches" }>;

function batchLine(f: TextFormat, batch: BatchRow): string {
  const checks = `checks ${batch.checks.passed}/${batch.checks.total}`;
  return `${f.bold(batch.name)} — ${f.escape(batch.status)} · ${checks} · ETA ${batch.eta}`;
}

function pullLines(f: TextFormat, part: Batches, batch: BatchRow, indent: string): string[] {
  const { shown, more } = cut(batch.pulls, BATCH_LIMITS.pulls);
  const lines = shown.map((pull) => `${indent}• ${pull(f)}`);
  if (more) lines.push(`${indent}${part.morePulls(more)(f)}`);
  return lines;
}

/** A batch with its pull requests and its sub-batches (indented): kept together in one section. */
function batchItem(f: TextFormat, part: Batches, batch: BatchRow): string[] {
  const lines = [batchLine(f, batch), ...pullLines(f, part, batch, INDENT)];
  const { shown, more } = cut(batch.subBatches, BATCH_LIMITS.subBatches);
  for (const sub of shown) {
    lines.push(`${INDENT}↳ ${batchLine(f, sub)}`, ...pullLines(f, part, sub, INDENT.repeat(3)));
  }
  if (more) lines.push(`${INDENT}↳ ${part.moreSubBatches(more)(f)}`);
  return lines;
}
