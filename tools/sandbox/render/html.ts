/** HTML escaping for the sandbox page's renderers: text and attribute values alike. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** A link to an http(s) URL, opened in a new tab; anything else is just its label. */
export function anchor(url: string, labelHtml: string): string {
  if (!/^https?:\/\//i.test(url)) return labelHtml;
  return `<a href="${escapeHtml(url)}" target="_blank" rel="noopener noreferrer">${labelHtml}</a>`;
}

const NAMED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'", nbsp: "\u00a0" };

/** The character an entity such as `&lt;`, `&#39;` or `&#x27;` stands for, or undefined. */
export function decodeEntity(entity: string): string | undefined {
  const name = entity.slice(1, -1);
  if (name.startsWith("#x") || name.startsWith("#X")) return fromCode(Number.parseInt(name.slice(2), 16));
  if (name.startsWith("#")) return fromCode(Number.parseInt(name.slice(1), 10));
  return NAMED[name.toLowerCase()];
}

function fromCode(code: number): string | undefined {
  return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}

export const ENTITY = /^&(?:[a-z]+|#\d{1,7}|#x[0-9a-f]{1,6});/i;
