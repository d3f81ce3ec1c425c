import type { TextFormat } from "./description.js";
import { encodeBidiControls, withoutBidiControls } from "./words.js";

/**
 * GitHub-flavoured Markdown that stays inert whatever a person typed: bidirectional controls are
 * removed, Markdown punctuation is backslash-escaped, HTML characters become entities, and `@` is
 * followed by a zero-width space so no login or team is mentioned. Line breaks become spaces (the text
 * is always shown inline).
 */
export function escapeMarkdown(text: string): string {
  return withoutBidiControls(text)
    .replace(/[\r\n]+/g, " ")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/[\\`*_{}[\]()#+\-.!|~=:]/g, "\\$&")
    .replace(/@/g, "@\u200b");
}

/** An inline code span that no backtick inside the text can close early (no bidirectional controls). */
export function codeSpan(text: string): string {
  const clean = withoutBidiControls(text).replace(/[\r\n]+/g, " ");
  const runs = clean.match(/`+/g) ?? [];
  const fence = "`".repeat(Math.max(0, ...runs.map((r) => r.length)) + 1);
  const pad = clean.startsWith("`") || clean.endsWith("`") ? " " : "";
  return `${fence}${pad}${clean}${pad}${fence}`;
}

export function markdownFormat(appSlug: string): TextFormat {
  return {
    escape: escapeMarkdown,
    code: codeSpan,
    bold: (text) => `**${escapeMarkdown(text)}**`,
    italic: (text) => `_${escapeMarkdown(text)}_`,
    strong: (markup) => `**${markup}**`,
    link: (url, label) =>
      /^https?:\/\//i.test(url)
        ? `[${escapeMarkdown(label)}](${encodeBidiControls(url).replace(/[\s()<>]/g, (c) => encodeURIComponent(c))})`
        : escapeMarkdown(label),
    invocation: `@${appSlug}`,
  };
}
