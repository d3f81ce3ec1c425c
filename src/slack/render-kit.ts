import type { types as slack } from "@slack/bolt";
import type { Repo } from "../repo.js";
import type { Button as CommandButton } from "../wording/description.js";
import { clip, withoutBidiControls } from "../wording/words.js";

import {
  ACTION_IDS,
  type ActionId,
  actionIdOf,
  buttonValue,
  jsonSafe,
  refreshValue,
  requeueValue,
  unpauseValue,
} from "./actions.js";
import { escapeMrkdwn } from "./mrkdwn.js";

/** Block Kit types, from @slack/types (re-exported by @slack/bolt). */
export type KnownBlock = slack.KnownBlock;
export type SectionBlock = slack.SectionBlock;
export type ContextBlock = slack.ContextBlock;
export type ActionsBlock = slack.ActionsBlock;
export type HeaderBlock = slack.HeaderBlock;
export type Button = slack.Button;
export type MrkdwnElement = slack.MrkdwnElement;

export interface SlackMessage {
  /** Plain-words fallback: notifications, screen readers, clients without Block Kit. */
  text: string;
  blocks: KnownBlock[];
}

export interface RenderContext {
  now: Date;
  /** e.g. "https://github.com", for links to repositories and pull requests. */
  githubWebUrl: string;
  /** Slack user id of the person who ran the command: when set, the message names them. */
  ranBy?: string;
}

/** Slack's limits (https://docs.slack.dev/reference/block-kit), kept with some room where text is cut. */
export const SLACK_LIMITS = {
  blocks: 50,
  sectionText: 3000,
  fields: 10,
  fieldText: 2000,
  headerText: 150,
  contextElements: 10,
  buttonText: 75,
  buttonValue: 2000,
  messageText: 40_000,
} as const;

/** A mrkdwn text object. `verbatim` stops Slack linking names and URLs by itself in what was escaped. */
export function mrkdwn(text: string): MrkdwnElement {
  return { type: "mrkdwn", text: clampMrkdwn(text, SLACK_LIMITS.sectionText), verbatim: true };
}

export function section(text: string, accessory?: Button): SectionBlock {
  return accessory
    ? { type: "section", text: mrkdwn(text), accessory }
    : { type: "section", text: mrkdwn(text) };
}

/** Label-and-value fields (two columns), at most 10. */
export function fieldsSection(fields: [label: string, value: string][]): SectionBlock {
  return {
    type: "section",
    fields: fields.slice(0, SLACK_LIMITS.fields).map(([label, value]) => ({
      type: "mrkdwn",
      text: clampMrkdwn(`*${label}*\n${value}`, SLACK_LIMITS.fieldText),
      verbatim: true,
    })),
  };
}

export function context(...texts: string[]): ContextBlock {
  return { type: "context", elements: texts.slice(0, SLACK_LIMITS.contextElements).map(mrkdwn) };
}

/** A header: plain text, so only our own words and validated names (`owner/repo`) go in it (no bidirectional controls). */
export function header(text: string): HeaderBlock {
  return {
    type: "header",
    text: { type: "plain_text", text: clip(withoutBidiControls(text), SLACK_LIMITS.headerText), emoji: true },
  };
}

export function button(
  actionId: ActionId,
  text: string,
  value: string,
  style?: "primary" | "danger",
): Button {
  return {
    type: "button",
    action_id: actionId,
    text: { type: "plain_text", text: clip(withoutBidiControls(text), SLACK_LIMITS.buttonText), emoji: true },
    value: jsonSafe(value),
    ...(style ? { style } : {}),
  };
}

export function actions(...elements: Button[]): ActionsBlock {
  return { type: "actions", elements };
}

/** Unpause of the repository's queue (its default branch's), or of one branch's (a branch fits a value). */
export function unpauseButton(repo: Repo, branch?: string): Button {
  return button(ACTION_IDS.unpause, "Unpause", unpauseValue(repo, branch), "primary");
}

export function requeueButton(repo: Repo, pull: number): Button {
  return button(ACTION_IDS.requeue, `Requeue #${pull}`, requeueValue(repo, pull));
}

/** Refresh of a status; without the branch if it would not fit in a value (it cannot, at 255 characters). */
export function refreshButton(repo: Repo, branch?: string): Button {
  const value = refreshValue(repo, branch);
  return button(
    ACTION_IDS.refresh,
    "Refresh",
    value.length <= SLACK_LIMITS.buttonValue ? value : refreshValue(repo),
  );
}

/** A button of a command's description: the command it runs goes in its value. */
export function commandButton(b: CommandButton): Button {
  const runs = b.runs;
  if (runs.name === "status") return refreshButton(runs.repo, runs.branch);
  return button(actionIdOf(runs), b.label, buttonValue(runs), b.style);
}

/** Gives every block a unique id; a new one for each rendering (Slack asks for it when a message is updated). */
export function withBlockIds(kind: string, blocks: KnownBlock[], now?: Date): KnownBlock[] {
  const suffix = now ? `.${now.getTime().toString(36)}` : "";
  return blocks.map((block, i) => ({ ...block, block_id: `${kind}.${i}${suffix}` }));
}

export function message(text: string, kind: string, blocks: KnownBlock[], now?: Date): SlackMessage {
  let fitted = blocks;
  if (fitted.length > SLACK_LIMITS.blocks) {
    // Renderers cut their lists before this; keep the last block (the buttons) if it ever happens.
    const last = fitted[fitted.length - 1];
    fitted = [...fitted.slice(0, SLACK_LIMITS.blocks - 1), ...(last ? [last] : [])];
  }
  return { text: clip(text, SLACK_LIMITS.messageText), blocks: withBlockIds(kind, fitted, now) };
}

/**
 * A safety net for mrkdwn that is already built: cut at `max` without leaving half a `<url|label>`
 * link or half an `&entity;`. Renderers size their text to stay inside the limits; this only ever
 * applies if they did not.
 */
export function clampMrkdwn(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = clip(text, max).slice(0, -1);
  const open = cut.lastIndexOf("<");
  if (open > cut.lastIndexOf(">")) cut = cut.slice(0, open);
  const amp = cut.lastIndexOf("&");
  if (amp > cut.lastIndexOf(";") && cut.length - amp < 8) cut = cut.slice(0, amp);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/**
 * Lines packed into section texts of at most `max` characters, in at most `maxSections` sections.
 * Items are kept whole (a batch with its pull requests, possibly over two sections); items that do
 * not fit are counted with those left out before, and `moreLine(n)` ends the last section.
 */
export function packItems(
  items: readonly string[][],
  options: {
    heading?: string;
    maxSections: number;
    moreLine: (n: number) => string;
    /** How many there are in all, when `items` is already a cut of them. */
    total?: number;
    max?: number;
  },
): string[] {
  const max = options.max ?? SLACK_LIMITS.sectionText;
  // Room kept in every section for the "…and N more" line, so that it always fits where it lands.
  const room = max - 400;
  let state: Packing = options.heading
    ? { done: [], current: [options.heading], length: options.heading.length }
    : { done: [], current: [], length: 0 };
  let placed = 0;
  for (const item of items) {
    const next = place(state, item, room);
    if (next.done.length + 1 > options.maxSections) break;
    state = next;
    placed += 1;
  }
  const more = (options.total ?? items.length) - placed;
  const last = more > 0 ? [...state.current, options.moreLine(more)] : state.current;
  return [...state.done, ...(last.length ? [last] : [])].map((lines) => lines.join("\n"));
}

interface Packing {
  done: string[][];
  current: string[];
  length: number;
}

/** The packing with one more item; it starts a new section when it does not fit in the current one. */
function place(state: Packing, item: readonly string[], room: number): Packing {
  const lines = item.map((line) => clampMrkdwn(line, room));
  const itemLength = lines.reduce((n, line) => n + line.length + 1, 0);
  let { done, current, length } = state;
  const flush = () => {
    if (current.length) done = [...done, current];
    current = [];
    length = 0;
  };
  if (length && length + itemLength > room) flush();
  for (const line of lines) {
    if (length && length + line.length + 1 > room) flush();
    current = [...current, line];
    length += line.length + 1;
  }
  return { done, current, length };
}

/** `<@U123>` for a Slack user id; anything else is escaped text (never a mention). */
export function mention(userId: string): string {
  return /^[UWB][A-Z0-9]{2,40}$/.test(userId) ? `<@${userId}>` : escapeMrkdwn(userId);
}
