import type { TextFormat } from "../wording/description.js";
import { encodeBidiControls, withoutBidiControls } from "../wording/words.js";

/**
 * Slack mrkdwn that stays inert whatever a person typed (docs/commands.md, "Input limits").
 *
 * Slack's own rule is that `&`, `<` and `>` become entities: that alone stops `<!channel>`, `<!here>`,
 * `<!everyone>`, `<@U…>` mentions, `<#C…>` channel links and `<url|label>` links. On top of it:
 * - bidirectional controls (U+202A–U+202E, U+2066–U+2069) are removed, so that nothing typed can
 *   reverse the rest of a line;
 * - line breaks and other control characters become spaces (the text is always shown inline, so it
 *   cannot start a `>` quote or a list, or push our own markup onto another line);
 * - `@` is followed by a zero-width space, so `@channel` / `@here` are never parsed as mentions even
 *   where Slack links names by itself;
 * - `*`, `_`, `~` that could open or close bold, italic or strike-through (at a word boundary) are
 *   wrapped in zero-width spaces, so they cannot pair with each other or with our own markup;
 *   inside a word (`snake_case`) they are left alone, as Slack does not format there;
 * - a backtick becomes `ˋ` (U+02CB), so it can neither open a code span nor close one of ours.
 */
export function escapeMrkdwn(text: string): string {
  return escapeEntities(singleLine(text))
    .replace(/`/g, "\u02cb")
    .replace(FORMATTING_AT_BOUNDARY, "\u200b$&\u200b")
    .replace(/@/g, "@\u200b");
}

/** Only Slack's three entities, for text that must keep its characters (inside a code span). */
function escapeEntities(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

const FORMATTING_AT_BOUNDARY = /(?<![\p{L}\p{N}])[*_~]|[*_~](?![\p{L}\p{N}])/gu;
const LINE_BREAKS = /(?:\r\n|[\n\r\u0085\u2028\u2029])+/g;

/** Line breaks and control characters become spaces; bidirectional controls go. */
function singleLine(text: string): string {
  let out = "";
  for (const ch of withoutBidiControls(text).replace(LINE_BREAKS, " ")) {
    const code = ch.codePointAt(0) ?? 0;
    out += code < 0x20 || code === 0x7f ? " " : ch;
  }
  return out;
}

/**
 * Inline code: the text keeps its characters (a branch `feature_x` can be copied as it is) except that
 * entities are escaped, a backtick cannot close the span and `@` cannot mention.
 */
export function codeMrkdwn(text: string): string {
  const inner = escapeEntities(singleLine(text)).replace(/`/g, "\u02cb").replace(/@/g, "@\u200b");
  return `\`${inner || " "}\``;
}

/** A `<url|label>` link for http(s) URLs only; anything else is shown as its (escaped) label. */
export function linkMrkdwn(url: string, label: string): string {
  const text = escapeMrkdwn(label.replace(/\|/g, ""));
  if (!/^https?:\/\/[^\s/]/i.test(url)) return text;
  const safeUrl = encodeBidiControls(url)
    .replace(/[\s<>|"]/g, (c) => encodeURIComponent(c))
    .replace(/&/g, "&amp;");
  return text.trim() ? `<${safeUrl}|${text}>` : `<${safeUrl}>`;
}

export function mrkdwnFormat(): TextFormat {
  return {
    escape: escapeMrkdwn,
    code: codeMrkdwn,
    bold: (text) => `*${escapeMrkdwn(text)}*`,
    italic: (text) => `_${escapeMrkdwn(text)}_`,
    strong: (markup) => `*${markup}*`,
    link: linkMrkdwn,
    invocation: "/mq",
  };
}

/**
 * The same sentences without markup, for a message's `text` fallback (notifications, screen readers,
 * clients without Block Kit). Slack still parses that text, so what came from outside is escaped the
 * same way.
 */
export function plainFormat(): TextFormat {
  return {
    escape: escapeMrkdwn,
    code: (text) => escapeMrkdwn(text),
    bold: (text) => escapeMrkdwn(text),
    italic: (text) => escapeMrkdwn(text),
    strong: (markup) => markup,
    link: (_url, label) => escapeMrkdwn(label),
    invocation: "/mq",
  };
}
