import type { Button, Description, Text } from "./description.js";

/**
 * What a feature says in a chat (a health alert, a freeze's notice, a personal notice…), whatever the
 * chat: the feature writes it here in neutral parts, and a chat surface alone lays it out and posts it
 * (Slack: `src/slack/render-message.ts`, Block Kit with a mrkdwn fallback; docs/architecture.md, "The
 * message model"). A feature never writes a surface's markup: its text is spans, which the surface
 * formats and escapes.
 */
export interface ChatMessage {
  /** A heading in plain words (our own words and validated names only). */
  headline?: string;
  /** Lines of the message, in order; each one a paragraph. */
  lines?: Inline[];
  /** Label-and-value pairs, shown side by side where the surface can. */
  fields?: [label: string, value: Inline][];
  /** Links shown after the lines (a pull request, a check run). */
  links?: { url: string; label: string }[];
  /** Small print after the links (where and when: `acme/widgets · 16:00 UTC`), each a part of its own. */
  notes?: Inline[];
  /** What a person can do from the message: each button runs a command, with the same checks as typing it. */
  buttons?: Button[];
  /**
   * The whole in one paragraph, for notifications and screen readers (Slack's `text`); without it, the
   * lines are. A message of a summary alone is shown as that text, with no layout.
   */
  summary?: Inline;
  /** Messages with the same thread key are said in one thread (the surface keeps where it is). */
  threadKey?: string;
  /**
   * What the message is (a notice's `ev42`, a thread parent's `pr42`), where the surface names a
   * message's parts after it (Slack: block ids); `at`: the time of this version, for a message edited
   * again, whose parts the surface names anew each time (Slack asks for it on an update).
   */
  naming?: { name: string; at?: Date };
  /**
   * A command's answer said in a chat as it is (the weekly digest is the stats result): the surface lays
   * it out as it lays out that command's answer, its parts named after `naming`; the message's other
   * parts are then not used.
   */
  description?: Description;
}

/**
 * A piece of a line:
 * - a string: our own words, as they are (no markup of any surface in them);
 * - `text`: words from outside (a person typed them, or a service said them), made inert and shown on one line;
 * - `plain`: words from outside shown with their characters as they are, only what would be the surface's
 *   own syntax made inert (Slack: `&`, `<`, `>`): the freeze notices' older, lighter escaping;
 * - `bold`; `code` of a string keeps its characters (a branch to copy), of a run (e.g. `{ text }`) shows
 *   it as that run is shown; `link` (http(s) only, else its label, escaped);
 * - `mention`: a person, by identity: the surface names them its own way (Slack: `<@U…>` for its user id),
 *   else their login, escaped;
 * - `written`: words the core writes through a surface's `TextFormat` (src/wording/description.ts: a
 *   check's failure, the flake shield's line), written out in the surface's own format. Not kept in the
 *   store (a function): for messages said as they are made.
 */
export type Span =
  | string
  | { text: string }
  | { plain: string }
  | { bold: Inline }
  | { code: string | Exclude<Inline, string> }
  | { link: string; label: string }
  | { mention: Person }
  | { written: Text };

/** A run of spans (nested runs are flattened). */
export type Inline = Span | readonly Inline[];

/** Who a mention names: their chat user id where known, else their GitHub login. */
export interface Person {
  chatUserId?: string;
  login?: string;
}

/** `a`, `a and b`, `a, b and c` as one run of spans. */
export function joinSpans(items: readonly Inline[]): Inline {
  if (items.length <= 1) return [...items];
  const out: Inline[] = [];
  items.forEach((item, i) => {
    if (i > 0) out.push(i === items.length - 1 ? " and " : ", ");
    out.push(item);
  });
  return out;
}

/** The spans of a run, in order. */
export function spansOf(inline: Inline): Span[] {
  return typeof inline === "string" || !Array.isArray(inline)
    ? [inline as Span]
    : (inline as readonly Inline[]).flatMap(spansOf);
}

/** Whether a value read back (e.g. from the store, as JSON) is a run of spans. */
export function isInline(value: unknown): value is Inline {
  if (typeof value === "string") return true;
  if (Array.isArray(value)) return value.every(isInline);
  if (!value || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  if (typeof v.text === "string" || typeof v.plain === "string") return true;
  if ("code" in v) return isInline(v.code);
  if (typeof v.link === "string" && typeof v.label === "string") return true;
  if ("bold" in v) return isInline(v.bold);
  return typeof v.mention === "object" && v.mention !== null;
}
