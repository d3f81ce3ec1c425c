/**
 * RFC 8288 (formerly 5988) `Link` header parsing: `<url>; rel="next", <url>; rel=prev; title="x"`.
 * Copes with any spacing, quoted or bare parameter values, several relation types in one `rel`
 * (`rel="next last"`), extra parameters, any order, and commas or semicolons inside `<...>`.
 * Relation types are matched case-insensitively; the first link of a relation wins (RFC 8288 3.3).
 * Hand-written: no declared dependency parses Link headers (Octokit's pagination keeps its regex private).
 */
export interface LinkValue {
  url: string;
  rels: string[];
  params: Record<string, string>;
}

export function parseLinkHeader(value: string | null | undefined): LinkValue[] {
  if (value === null || value === undefined) return [];
  const header: string = value;
  const links: LinkValue[] = [];
  let i = 0;
  const n = header.length;
  const skip = (chars: string) => {
    while (i < n && chars.includes(header.charAt(i))) i++;
  };
  while (i < n) {
    skip(" \t\r\n,");
    if (i >= n) break;
    if (header.charAt(i) !== "<") {
      // Not a link-value: drop everything up to the next top-level comma.
      skipToComma();
      continue;
    }
    const end = header.indexOf(">", i + 1);
    if (end === -1) break;
    const url = header.slice(i + 1, end).trim();
    i = end + 1;
    const params: Record<string, string> = {};
    for (;;) {
      skip(" \t\r\n");
      if (header.charAt(i) !== ";") break;
      i++;
      skip(" \t\r\n");
      const nameStart = i;
      while (i < n && !"=;, \t".includes(header.charAt(i))) i++;
      const name = header.slice(nameStart, i).toLowerCase();
      skip(" \t");
      let value = "";
      if (header.charAt(i) === "=") {
        i++;
        skip(" \t");
        value = header.charAt(i) === '"' ? readQuoted() : readToken();
      }
      if (name !== "" && !(name in params)) params[name] = value;
    }
    const rels = (params.rel ?? "")
      .split(/\s+/)
      .filter((rel) => rel !== "")
      .map((rel) => rel.toLowerCase());
    links.push({ url, rels, params });
    skipToComma();
  }
  return links;

  function readQuoted(): string {
    i++; // opening quote
    let value = "";
    while (i < n && header.charAt(i) !== '"') {
      if (header.charAt(i) === "\\" && i + 1 < n) i++;
      value += header.charAt(i);
      i++;
    }
    i++; // closing quote
    return value;
  }

  function readToken(): string {
    const start = i;
    while (i < n && !";, \t".includes(header.charAt(i))) i++;
    return header.slice(start, i);
  }

  function skipToComma(): void {
    while (i < n && header.charAt(i) !== ",") {
      if (header.charAt(i) === '"') readQuoted();
      else i++;
    }
  }
}

/** The URL of the first link with relation `rel`, or null. */
export function findLink(header: string | null | undefined, rel: string): string | null {
  const wanted = rel.toLowerCase();
  return parseLinkHeader(header).find((link) => link.rels.includes(wanted))?.url ?? null;
}
