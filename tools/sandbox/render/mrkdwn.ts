// Slack mrkdwn to HTML, for the sandbox page: `<url|label>` links, `<@U…>` mentions, `<#C…|name>`
// channels, `<!here>`-style specials, *bold*, _italics_, ~strike~, `code`, ```pre```, `>` quotes, and
// line breaks; `&lt;` `&gt;` `&amp;` shown as the characters they stand for. Safe by construction:
// every character of the source reaches the output through escapeHtml, or becomes one of a fixed set of
// tags; link targets must be http(s) and are escaped as attribute values.

import { anchor, decodeEntity, escapeHtml } from "./html.js";

/** Slack user id -> display name, for mentions. */
export type UserNames = (userId: string) => string | undefined;

const SLACK_ENTITY = /^&(?:lt|gt|amp);/;
/** Slack formats only at word boundaries; the zero-width space Yardmaster puts around `*` counts as none. */
const WORDISH = /[\p{L}\p{N}\u200b]/u;

export function mrkdwnToHtml(source: string, names: UserNames = () => undefined): string {
  const chunks: string[] = [];
  let quote: string[] = [];
  let afterLine = false;
  const flushQuote = () => {
    if (quote.length === 0) return;
    chunks.push(`<blockquote>${quote.join("<br>")}</blockquote>`);
    quote = [];
    afterLine = false;
  };
  // Preformatted blocks first: nothing inside them is formatted.
  const parts = source.split(/```([\s\S]*?)```/);
  for (const [index, part] of parts.entries()) {
    if (index % 2 === 1) {
      flushQuote();
      afterLine = false;
      chunks.push(`<pre>${escapeHtml(decodeSlack(part.replace(/^\n|\n$/g, "")))}</pre>`);
      continue;
    }
    const text = index > 0 ? part.replace(/^\n/, "") : part;
    const lines = (index < parts.length - 1 ? text.replace(/\n$/, "") : text).split("\n");
    for (const line of lines) {
      // A `>` typed by a person arrives as `&gt;`: only a real `>` starts a quote.
      const quoted = /^>\s?(.*)$/.exec(line);
      if (quoted) {
        quote.push(inline(quoted[1] ?? "", names));
        continue;
      }
      flushQuote();
      if (afterLine) chunks.push("<br>");
      chunks.push(inline(line, names));
      afterLine = true;
    }
    flushQuote();
  }
  return chunks.join("");
}

/** Slack's three entities back to characters (for preformatted text). */
function decodeSlack(text: string): string {
  return text.replace(/&(lt|gt|amp);/g, (entity) => decodeEntity(entity) ?? entity);
}

function inline(source: string, names: UserNames): string {
  let out = "";
  let i = 0;
  while (i < source.length) {
    const rest = source.slice(i);
    const token = inlineToken(rest, source[i - 1] ?? "", names);
    out += token?.html ?? escapeHtml(rest.charAt(0));
    i += token?.length ?? 1;
  }
  return out;
}

function inlineToken(
  rest: string,
  before: string,
  names: UserNames,
): { html: string; length: number } | undefined {
  const first = rest.charAt(0);
  if (first === "<") {
    const m = /^<([^<>]*)>/.exec(rest);
    return m ? { html: special(m[1] ?? "", names), length: m[0].length } : undefined;
  }
  if (first === "&") {
    const m = SLACK_ENTITY.exec(rest);
    return m ? { html: escapeHtml(decodeEntity(m[0]) ?? m[0]), length: m[0].length } : undefined;
  }
  if (first === "`") {
    const m = /^`([^`]+)`/.exec(rest);
    return m
      ? { html: `<code>${escapeHtml(decodeSlack(m[1] ?? ""))}</code>`, length: m[0].length }
      : undefined;
  }
  if ((first === "*" || first === "_" || first === "~") && !WORDISH.test(before)) {
    const span = formatted(rest, first);
    if (span === undefined) return undefined;
    const tag = first === "*" ? "strong" : first === "_" ? "em" : "s";
    return { html: `<${tag}>${inline(span, names)}</${tag}>`, length: span.length + 2 };
  }
  return undefined;
}

/** The text between `marker`s at the start of `rest`, when Slack would format it. */
function formatted(rest: string, marker: string): string | undefined {
  const first = rest[1] ?? "";
  if (first === "" || /\s|\u200b/.test(first) || first === marker) return undefined;
  for (let j = 2; j < rest.length; j += 1) {
    if (rest[j] === "\n") return undefined;
    if (rest[j] !== marker) continue;
    const before = rest[j - 1] ?? "";
    if (/\s|\u200b/.test(before)) continue;
    if (WORDISH.test(rest[j + 1] ?? "")) continue;
    return rest.slice(1, j);
  }
  return undefined;
}

/** What is inside `<...>`: a link, a mention, a channel, or a special such as `!here`. */
function special(inner: string, names: UserNames): string {
  const [target = "", ...labelParts] = inner.split("|");
  const label = labelParts.join("|");
  if (target.startsWith("@")) {
    const id = target.slice(1);
    const name = label || names(id) || id;
    return `<span class="mention">@${escapeHtml(decodeSlack(name))}</span>`;
  }
  if (target.startsWith("#")) {
    const name = label || target.slice(1);
    return `<span class="mention">#${escapeHtml(decodeSlack(name))}</span>`;
  }
  if (target.startsWith("!")) {
    const name = label || target.slice(1).split("^")[0] || "";
    return `<span class="mention">@${escapeHtml(decodeSlack(name))}</span>`;
  }
  const url = decodeSlack(target);
  const text = label ? inline(label, names) : escapeHtml(url);
  return anchor(url, text);
}
