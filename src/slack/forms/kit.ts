import type { types as slack } from "@slack/bolt";
import { clip, withoutBidiControls } from "../../wording/words.js";

/** Block Kit pieces of the forms (modals): inputs, options, and reading what was submitted. */

export type View = slack.ModalView;
export type Block = slack.KnownBlock;
export type Option = slack.PlainTextOption;

export const plain = (text: string) => ({
  type: "plain_text" as const,
  text: clip(withoutBidiControls(text), 75),
  emoji: true,
});

export function option(text: string, value: string): Option {
  return { text: plain(text), value };
}

export function input(
  blockId: string,
  label: string,
  element: slack.InputBlockElement,
  extra: { optional?: boolean; hint?: string } = {},
): slack.InputBlock {
  return {
    type: "input",
    block_id: blockId,
    label: plain(label),
    element,
    ...(extra.optional ? { optional: true } : {}),
    ...(extra.hint ? { hint: { type: "plain_text", text: extra.hint } } : {}),
  };
}

/** The submitted state of a view: `values[block_id].value` (every element's action_id is "value"). */
export type SubmittedValues = Record<string, Record<string, unknown> | undefined>;

interface Element {
  type?: unknown;
  value?: unknown;
  selected_option?: { value?: unknown } | null;
  selected_options?: { value?: unknown }[] | null;
  selected_date_time?: unknown;
  selected_conversation?: unknown;
}

function element(values: SubmittedValues, blockId: string): Element | undefined {
  const block = values[blockId];
  const found = block?.value;
  return typeof found === "object" && found !== null ? (found as Element) : undefined;
}

/** A text input's value, or a select's chosen value; "" when none. */
export function textOf(values: SubmittedValues, blockId: string): string {
  const e = element(values, blockId);
  if (!e) return "";
  if (typeof e.value === "string") return e.value;
  const chosen = e.selected_option?.value;
  if (typeof chosen === "string") return chosen;
  if (typeof e.selected_conversation === "string") return e.selected_conversation;
  return "";
}

export function choicesOf(values: SubmittedValues, blockId: string): string[] {
  const chosen = element(values, blockId)?.selected_options;
  return Array.isArray(chosen) ? chosen.flatMap((o) => (typeof o?.value === "string" ? [o.value] : [])) : [];
}

/** A datetimepicker's instant (Unix seconds), or null. */
export function instantOf(values: SubmittedValues, blockId: string): Date | null {
  const seconds = element(values, blockId)?.selected_date_time;
  return typeof seconds === "number" && Number.isSafeInteger(seconds) && seconds > 0
    ? new Date(seconds * 1000)
    : null;
}

/** Where a form's result goes: the channel it was opened from and that command's response_url. */
export interface FormPlace {
  channelId: string;
  responseUrl: string;
}

export function placeMetadata(place: FormPlace): string {
  return JSON.stringify({ c: place.channelId, u: place.responseUrl });
}

/**
 * The place a view's private_metadata holds (this app wrote it when it opened the view), or null; a
 * response_url must be on Slack's own host (`isSlackResponseUrl`, response-url.ts).
 */
export function readPlace(metadata: unknown, isSlackResponseUrl: (url: string) => boolean): FormPlace | null {
  if (typeof metadata !== "string" || metadata.length > 3000) return null;
  try {
    const parsed = JSON.parse(metadata) as { c?: unknown; u?: unknown };
    if (typeof parsed.c !== "string" || typeof parsed.u !== "string") return null;
    if (parsed.u !== "" && !isSlackResponseUrl(parsed.u)) return null;
    return { channelId: parsed.c.slice(0, 40), responseUrl: parsed.u };
  } catch {
    return null;
  }
}
