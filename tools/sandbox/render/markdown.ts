// GitHub comment Markdown to HTML, for the sandbox page: the subset Yardmaster and people write
// (headings, paragraphs with line breaks, lists, tables, quotes, fenced code; bold, italics, code
// spans, links, entities, and the inline tags <br>, <sub>, <sup>). Safe by construction: every
// character of the source reaches the output through escapeHtml, or becomes one of a fixed set of tags;
// link targets must be http(s) and are escaped as attribute values.

import { anchor, decodeEntity, ENTITY, escapeHtml } from "./html.js";

const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/;
const INLINE_TAG = /^<(\/?)(sub|sup|b|strong|em|i|kbd|br)\s*\/?>/i;
const LINK = /^\[((?:\\.|[^\]\\])*)\]\(([^()\s]*)\)/;
const AUTOLINK = /^https?:\/\/[^\s<>)\]]+[^\s<>)\].,;:!?'"]/;

/** Renders a comment body. */
export function markdownToHtml(source: string): string {
  const lines = source.replace(/<!--[\s\S]*?-->/g, "").split(/\r?\n/);
  return blocks(lines);
}

function blocks(lines: string[]): string {
  const out: string[] = [];
  let i = 0;
  const at = (n: number) => lines[n] ?? "";
  while (i < lines.length) {
    const line = at(i);
    if (line.trim() === "") {
      i += 1;
      continue;
    }
    const fence = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence?.[1]) {
      const body: string[] = [];
      i += 1;
      while (i < lines.length && !at(i).trim().startsWith(fence[1])) body.push(at(i++));
      i += 1;
      out.push(`<pre><code>${escapeHtml(body.join("\n"))}</code></pre>`);
      continue;
    }
    const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading?.[1]) {
      const level = Math.min(6, heading[1].length + 1);
      out.push(`<h${level}>${inline(heading[2] ?? "")}</h${level}>`);
      i += 1;
      continue;
    }
    if (isTableStart(line, at(i + 1))) {
      const rows: string[] = [line];
      i += 2;
      while (i < lines.length && at(i).trim().startsWith("|")) rows.push(at(i++));
      out.push(table(rows));
      continue;
    }
    if (/^\s*>/.test(line)) {
      const quoted: string[] = [];
      while (i < lines.length && /^\s*>/.test(at(i))) quoted.push(at(i++).replace(/^\s*>\s?/, ""));
      out.push(`<blockquote>${blocks(quoted)}</blockquote>`);
      continue;
    }
    const item = listItem(line);
    if (item) {
      const items: string[] = [];
      while (i < lines.length) {
        const next = listItem(at(i));
        if (!next || next.ordered !== item.ordered) break;
        items.push(`<li>${inline(next.text)}</li>`);
        i += 1;
      }
      const tag = item.ordered ? "ol" : "ul";
      out.push(`<${tag}>${items.join("")}</${tag}>`);
      continue;
    }
    const paragraph: string[] = [];
    while (i < lines.length && at(i).trim() !== "" && !startsBlock(at(i), at(i + 1))) {
      paragraph.push(inline(at(i).trim()));
      i += 1;
    }
    if (paragraph.length === 0) {
      paragraph.push(inline(line.trim()));
      i += 1;
    }
    // GitHub comments keep line breaks.
    out.push(`<p>${paragraph.join("<br>")}</p>`);
  }
  return out.join("\n");
}

function startsBlock(line: string, next: string): boolean {
  return (
    /^\s*(`{3,}|~{3,}|>|#{1,6}\s)/.test(line) || listItem(line) !== undefined || isTableStart(line, next)
  );
}

function listItem(line: string): { ordered: boolean; text: string } | undefined {
  const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
  if (bullet) return { ordered: false, text: bullet[1] ?? "" };
  const numbered = /^\s*\d{1,9}[.)]\s+(.*)$/.exec(line);
  return numbered ? { ordered: true, text: numbered[1] ?? "" } : undefined;
}

function isTableStart(line: string, next: string): boolean {
  return line.trim().startsWith("|") && /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(next);
}

/** Cells of a table row: split on `|` that is neither escaped nor inside a code span. */
function cells(row: string): string[] {
  const out: string[] = [];
  let cell = "";
  let inCode = false;
  const text = row.trim().replace(/^\|/, "").replace(/\|$/, "");
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i] ?? "";
    if (ch === "\\" && text[i + 1] === "|") {
      cell += "\\|";
      i += 1;
    } else if (ch === "`") {
      inCode = !inCode;
      cell += ch;
    } else if (ch === "|" && !inCode) {
      out.push(cell.trim());
      cell = "";
    } else {
      cell += ch;
    }
  }
  out.push(cell.trim());
  return out;
}

function table(rows: string[]): string {
  const [head = "", ...body] = rows;
  const th = cells(head)
    .map((c) => `<th>${inline(c)}</th>`)
    .join("");
  const trs = body.map(
    (r) =>
      `<tr>${cells(r)
        .map((c) => `<td>${inline(c)}</td>`)
        .join("")}</tr>`,
  );
  return `<table><thead><tr>${th}</tr></thead><tbody>${trs.join("")}</tbody></table>`;
}

interface Token {
  html: string;
  length: number;
}

/** One inline construct at the start of `rest` (`before`: the character just before it). */
type Rule = (rest: string, before: string) => Token | undefined;

const WORD = /[\p{L}\p{N}]/u;

const RULES: Rule[] = [
  (rest) => {
    const m = /^\\([\s\S])/.exec(rest);
    return m && PUNCTUATION.test(m[1] ?? "") ? { html: escapeHtml(m[1] ?? ""), length: 2 } : undefined;
  },
  (rest) => {
    const m = /^(`+)([\s\S]*?[^`])\1(?!`)/.exec(rest);
    const code = (m?.[2] ?? "").replace(/^ (.*) $/, "$1");
    return m ? { html: `<code>${escapeHtml(code)}</code>`, length: m[0].length } : undefined;
  },
  (rest) => {
    const m = ENTITY.exec(rest);
    const decoded = m ? decodeEntity(m[0]) : undefined;
    return m && decoded !== undefined ? { html: escapeHtml(decoded), length: m[0].length } : undefined;
  },
  (rest) => {
    const m = LINK.exec(rest);
    return m ? { html: anchor(m[2] ?? "", inline(m[1] ?? "")), length: m[0].length } : undefined;
  },
  (rest) => {
    const m = /^\*\*(?=\S)([\s\S]*?\S)\*\*/.exec(rest);
    return m ? { html: `<strong>${inline(m[1] ?? "")}</strong>`, length: m[0].length } : undefined;
  },
  (rest, before) => {
    const m = /^([_*])(?=[^\s_*])([^_*]*?[^\s\\])\1(?![\p{L}\p{N}])/u.exec(rest);
    if (!m || WORD.test(before)) return undefined;
    return { html: `<em>${inline(m[2] ?? "")}</em>`, length: m[0].length };
  },
  (rest, before) => {
    const m = AUTOLINK.exec(rest);
    if (!m || WORD.test(before)) return undefined;
    return { html: anchor(m[0], escapeHtml(m[0])), length: m[0].length };
  },
];

/** Inline Markdown of one line (or table cell). */
export function inline(source: string): string {
  let out = "";
  let i = 0;
  const open: string[] = [];
  while (i < source.length) {
    const rest = source.slice(i);
    const token = inlineTag(rest, open) ?? firstToken(rest, source[i - 1] ?? "");
    out += token?.html ?? escapeHtml(rest.charAt(0));
    i += token?.length ?? 1;
  }
  // Tags left open are closed here, so that nothing spills over what follows.
  return (
    out +
    open
      .reverse()
      .map((name) => `</${name}>`)
      .join("")
  );
}

function firstToken(rest: string, before: string): Token | undefined {
  for (const rule of RULES) {
    const token = rule(rest, before);
    if (token) return token;
  }
  return undefined;
}

/** `<br>`, and `<sub>` and the like when balanced (a closing tag that closes nothing is dropped). */
function inlineTag(rest: string, open: string[]): Token | undefined {
  const m = INLINE_TAG.exec(rest);
  if (!m) return undefined;
  const name = (m[2] ?? "").toLowerCase();
  const length = m[0].length;
  if (name === "br") return { html: "<br>", length };
  if (!m[1]) {
    open.push(name);
    return { html: `<${name}>`, length };
  }
  if (open.at(-1) !== name) return { html: "", length };
  open.pop();
  return { html: `</${name}>`, length };
}
