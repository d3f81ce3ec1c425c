import { type CheckFailure, FAILURE_LIMITS, type FailureDetails } from "../core/check-failures.js";
import type { Text, TextFormat } from "./description.js";
import { clip, plural } from "./words.js";

/**
 * A removal's failed checks in the check's own words (docs/notifications.md, "Why a check failed"), in a
 * surface's format: Slack mrkdwn or GitHub Markdown, through the surface's TextFormat, which escapes
 * everything (nothing the check's author wrote becomes a mention). A summary's Markdown is read here
 * into the format's own markup (bold, italic, code, links); a link is kept only to GitHub itself or to
 * the host of the run's own `details_url`, and a bare address elsewhere is broken so no surface links it.
 */

/** The hosts a check's text may link to: GitHub's, and that of the run's own details page. */
export function allowedLinks(githubWebUrl: string, detailsUrl: string | null): (url: string) => boolean {
  const origins = new Set([originOf(githubWebUrl), originOf(detailsUrl ?? "")].filter(Boolean));
  return (url) => {
    const origin = originOf(url);
    return origin !== "" && origins.has(origin);
  };
}

function originOf(url: string): string {
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? u.origin : "";
  } catch {
    return "";
  }
}

const CONCLUSION_WORDS: Readonly<Record<string, string>> = {
  failure: "failed",
  timed_out: "timed out",
  cancelled: "was cancelled",
  action_required: "needs an action",
  startup_failure: "failed to start",
  stale: "went stale",
  error: "errored",
};

/** "failed", "timed out", "was cancelled"; a conclusion not listed reads as its own words. */
export function conclusionWords(conclusion: string | null): string {
  if (!conclusion) return "failed";
  return CONCLUSION_WORDS[conclusion] ?? conclusion.replace(/_/g, " ");
}

/**
 * One failed check, as lines: its name (linked) and conclusion, its title, the first lines of its
 * summary, its failure annotations (`path:line — message`, linked to the file at that line), or a
 * status's description.
 */
export function failureLines(check: CheckFailure, f: TextFormat, githubWebUrl: string): string[] {
  const name = check.url ? f.link(check.url, check.name) : f.escape(check.name);
  const head = `❌ ${f.strong(name)} ${conclusionWords(check.conclusion)}${check.title ? `: ${f.bold(clip(check.title, FAILURE_LIMITS.lineChars))}` : ""}`;
  const lines = [head];
  if (check.summary)
    lines.push(...summaryLines(check.summary, f, allowedLinks(githubWebUrl, check.detailsUrl)));
  const onGitHub = allowedLinks(githubWebUrl, null);
  for (const a of check.annotations.slice(0, FAILURE_LIMITS.annotations)) {
    const where = `${clip(a.path, FAILURE_LIMITS.lineChars)}${a.line ? `:${a.line}` : ""}`;
    const link = onGitHub(a.url) ? f.link(a.url, where) : f.escape(where);
    const message = firstLine(a.message);
    lines.push(`• ${link}${message ? ` — ${f.escape(clip(message, FAILURE_LIMITS.lineChars))}` : ""}`);
  }
  if (check.kind === "status" && check.description)
    lines.push(f.escape(clip(firstLine(check.description), FAILURE_LIMITS.lineChars)));
  return lines;
}

/** Each detailed check as its lines (one block each), then "…and N more failed checks". */
export function failureBlocks(details: FailureDetails, f: TextFormat, githubWebUrl: string): string[] {
  return failureTexts(details, githubWebUrl).map((text) => text(f));
}

/** The same, in any surface's format (a notice's lines: src/notifier/render-notification.ts). */
export function failureTexts(details: FailureDetails, githubWebUrl: string): Text[] {
  const texts: Text[] = details.checks.map((check) => (f) => failureLines(check, f, githubWebUrl).join("\n"));
  if (details.more > 0) texts.push(() => `…and ${plural(details.more, "more failed check")}`);
  return texts;
}

/** A one-line plain mention of the details, for a message's fallback text: "ci/test: 3 tests failed". */
export function failurePlain(details: FailureDetails): string {
  return details.checks
    .filter((c) => c.title ?? c.description)
    .map((c) => `${c.name}: ${clip(firstLine(c.title ?? c.description ?? ""), 80)}`)
    .join("; ");
}

const firstLine = (text: string) => text.split(/\r?\n/, 1)[0]?.trim() ?? "";

// ---- a summary's Markdown, read into a surface's markup -------------------------------------------------

/** How many of a summary's lines are shown at most. */
const SUMMARY_LINES = 5;

type Inline =
  | { kind: "text"; text: string }
  | { kind: "bold"; text: string }
  | { kind: "italic"; text: string }
  | { kind: "code"; text: string }
  | { kind: "link"; url: string; text: string };

/**
 * The first lines of a summary (at most FAILURE_LIMITS.summaryChars characters of text, at most
 * SUMMARY_LINES lines), each in the format's markup.
 */
export function summaryLines(markdown: string, f: TextFormat, allow: (url: string) => boolean): string[] {
  let budget: number = FAILURE_LIMITS.summaryChars;
  const out: string[] = [];
  for (const line of blockLines(markdown)) {
    if (out.length >= SUMMARY_LINES || budget <= 0) break;
    const { text, used } = renderInline(line.inline, f, allow, budget);
    if (!text.trim()) continue;
    budget -= used;
    out.push(`${line.prefix}${text}`);
  }
  return out;
}

interface BlockLine {
  prefix: string;
  inline: Inline[];
}

/** The summary's lines as text blocks: headings bold, list items bulleted, tables' cells joined; no HTML. */
function blockLines(markdown: string): BlockLine[] {
  const lines = withoutHtml(markdown).split(/\r?\n/);
  const out: BlockLine[] = [];
  let fenced = false;
  for (const raw of lines) {
    const line = raw.replace(/\t/g, "  ");
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) {
      if (line.trim()) out.push({ prefix: "", inline: [{ kind: "code", text: line.trim() }] });
      continue;
    }
    const trimmed = line.trim();
    if (
      !trimmed ||
      /^([-*_]\s*){3,}$/.test(trimmed) ||
      /^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$/.test(trimmed)
    )
      continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*$/.exec(trimmed);
    if (heading) {
      out.push({ prefix: "", inline: [{ kind: "bold", text: plainOf(parseInline(heading[1] ?? "")) }] });
      continue;
    }
    const quote = trimmed.replace(/^(>\s?)+/, "");
    const item = /^(?:[-*+]|\d{1,9}[.)])\s+(.*)$/.exec(quote);
    if (item) {
      out.push({ prefix: "• ", inline: parseInline(item[1] ?? "") });
      continue;
    }
    const cells = quote.startsWith("|")
      ? quote
          .replace(/^\||\|$/g, "")
          .split("|")
          .map((c) => c.trim())
      : null;
    out.push({ prefix: "", inline: parseInline(cells ? cells.filter(Boolean).join(" · ") : quote) });
  }
  return out;
}

/** HTML comments and tags go (a `<br>` is a line break); the few entities Markdown writers use are read. */
function withoutHtml(text: string): string {
  return text
    .replace(/<!--[\s\S]*?(-->|$)/g, "")
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<\/?[a-zA-Z][^>]*>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&nbsp;/g, " ")
    .replace(/&amp;/g, "&");
}

const INLINE =
  /!\[([^\]]*)\]\(([^)\s]*)[^)]*\)|\[([^\]]+)\]\(([^)\s]+)[^)]*\)|<(https?:\/\/[^>\s]+)>|`([^`]+)`|\*\*([^*]+)\*\*|__([^_]+)__|(?<![\p{L}\p{N}])\*([^*\s][^*]*)\*|(?<![\p{L}\p{N}])_([^_\s][^_]*)_(?![\p{L}\p{N}])|(https?:\/\/[^\s<>()]+)/gu;

/** A line's inline Markdown: links (images by their alt text), code, bold, italic, bare addresses. */
function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    const at = m.index ?? 0;
    if (at > last) out.push({ kind: "text", text: text.slice(last, at) });
    last = at + m[0].length;
    const [, alt, , label, url, auto, code, bold1, bold2, it1, it2, bare] = m;
    if (alt !== undefined) out.push({ kind: "text", text: alt });
    else if (label !== undefined && url !== undefined) out.push({ kind: "link", url, text: label });
    else if (auto !== undefined) out.push({ kind: "link", url: auto, text: auto });
    else if (code !== undefined) out.push({ kind: "code", text: code });
    else if ((bold1 ?? bold2) !== undefined) out.push({ kind: "bold", text: bold1 ?? bold2 ?? "" });
    else if ((it1 ?? it2) !== undefined) out.push({ kind: "italic", text: it1 ?? it2 ?? "" });
    else if (bare !== undefined) out.push({ kind: "link", url: bare, text: bare });
  }
  if (last < text.length) out.push({ kind: "text", text: text.slice(last) });
  return out;
}

function plainOf(inline: readonly Inline[]): string {
  return inline.map((i) => i.text).join("");
}

/**
 * The inline parts in the format, within `budget` characters of text (the last part cut with "…"). A link
 * not allowed is its text; an address in text is broken after its scheme (`https:\u200b//…`), so that
 * neither Slack nor GitHub links it by itself.
 */
function renderInline(
  inline: readonly Inline[],
  f: TextFormat,
  allow: (url: string) => boolean,
  budget: number,
): { text: string; used: number } {
  let left = budget;
  let out = "";
  for (const part of inline) {
    if (left <= 0) break;
    const text = part.text.length > left ? clip(part.text, left) : part.text;
    left -= text.length;
    const inert = (s: string) => f.escape(s.replace(/:\/\//g, ":\u200b//"));
    switch (part.kind) {
      case "text":
        out += inert(text);
        break;
      case "bold":
        out += text.trim() ? f.bold(text.replace(/:\/\//g, ":\u200b//")) : inert(text);
        break;
      case "italic":
        out += text.trim() ? f.italic(text.replace(/:\/\//g, ":\u200b//")) : inert(text);
        break;
      case "code":
        out += f.code(text);
        break;
      case "link":
        out += allow(part.url) ? f.link(part.url, text) : inert(text);
        break;
    }
  }
  return { text: out, used: budget - left };
}
