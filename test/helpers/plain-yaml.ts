/**
 * Reads the plain YAML that `deploy/` is written in, for the tests (the project declares no YAML
 * package): block mappings and sequences, comments, plain, single- and double-quoted scalars, JSON-like
 * flow collections on one line (`["sleep", "5"]`, `{ name: x, key: y }`), and `|`/`>` block scalars with
 * their `-` chomping. Anything else (anchors, tags, several documents, multi-line flow collections) is
 * refused with the line, so that the files stay plain enough to read, and to check.
 */
export function parseYaml(text: string, where = "yaml"): unknown {
  const lines = text.split("\n").map((raw) => raw.replace(/\r$/, ""));
  const reader = new Reader(lines, where);
  const first = reader.next(0);
  if (first === -1) return null;
  const value = reader.block(first, indentOf(lines[first] ?? ""));
  const rest = reader.next(reader.at);
  if (rest !== -1) reader.fail(rest, "unexpected content (indentation?)");
  return value;
}

type Value = unknown;

const indentOf = (line: string) => line.length - line.trimStart().length;

class Reader {
  at = 0;
  constructor(
    private readonly lines: string[],
    private readonly where: string,
  ) {}

  fail(index: number, why: string): never {
    throw new Error(`${this.where}:${index + 1}: ${why}: ${this.lines[index]?.trim()}`);
  }

  /** The index of the next line with content at or after `from`, or -1. */
  next(from: number): number {
    for (let i = from; i < this.lines.length; i++) {
      const content = stripComment(this.lines[i] ?? "").trim();
      if (content === "---" && i === 0) continue;
      if (content === "---" || content === "...") this.fail(i, "one document per file");
      if (content !== "") return i;
    }
    return -1;
  }

  block(index: number, indent: number): Value {
    const content = stripComment(this.lines[index] ?? "").trim();
    return content === "-" || content.startsWith("- ")
      ? this.sequence(index, indent)
      : this.mapping(index, indent);
  }

  private sequence(start: number, indent: number): Value[] {
    const out: Value[] = [];
    let i = start;
    while (i !== -1 && indentOf(this.lines[i] ?? "") === indent) {
      const content = stripComment(this.lines[i] ?? "").trim();
      if (!(content === "-" || content.startsWith("- "))) break;
      const rest = content.slice(1).trimStart();
      if (rest === "") {
        const child = this.next(i + 1);
        if (child === -1 || indentOf(this.lines[child] ?? "") <= indent) this.fail(i, "empty item");
        out.push(this.block(child, indentOf(this.lines[child] ?? "")));
      } else if (isMappingLine(rest)) {
        // "- key: value": a mapping whose first line starts after the dash.
        this.lines[i] = `${" ".repeat(indent + 2)}${this.lines[i]?.trimStart().slice(1).trimStart()}`;
        out.push(this.mapping(i, indent + 2));
      } else {
        out.push(this.scalar(rest, i));
        this.at = i + 1;
      }
      i = this.next(this.at);
    }
    this.at = i === -1 ? this.lines.length : i;
    return out;
  }

  private mapping(start: number, indent: number): Record<string, Value> {
    const out: Record<string, Value> = {};
    let i = start;
    while (i !== -1 && indentOf(this.lines[i] ?? "") === indent) {
      const content = stripComment(this.lines[i] ?? "").trim();
      if (content.startsWith("- ")) break;
      const match = /^("(?:[^"\\]|\\.)*"|'[^']*'|[^\s:'"][^:]*?):(?:\s+(.*))?$/.exec(content);
      if (!match) this.fail(i, "expected `key: value`");
      const key = String(this.scalar(match[1] ?? "", i));
      if (key in out) this.fail(i, `duplicate key ${key}`);
      const rest = (match[2] ?? "").trim();
      if (rest === "") {
        const child = this.next(i + 1);
        const childIndent = child === -1 ? -1 : indentOf(this.lines[child] ?? "");
        const childIsList = child !== -1 && /^-(\s|$)/.test((this.lines[child] ?? "").trim());
        if (child !== -1 && (childIndent > indent || (childIndent === indent && childIsList))) {
          out[key] = this.block(child, childIndent);
        } else {
          out[key] = null;
          this.at = i + 1;
        }
      } else if (/^[|>][-+]?$/.test(rest)) {
        out[key] = this.blockScalar(i, indent, rest);
      } else {
        out[key] = this.scalar(rest, i);
        this.at = i + 1;
      }
      i = this.next(this.at);
    }
    this.at = i === -1 ? this.lines.length : i;
    return out;
  }

  /** `|` keeps the lines, `>` folds them into one (a blank line stays a line break); `-` drops the last. */
  private blockScalar(index: number, indent: number, header: string): string {
    const body: string[] = [];
    let i = index + 1;
    let inner = -1;
    for (; i < this.lines.length; i++) {
      const line = this.lines[i] ?? "";
      if (line.trim() === "") {
        body.push("");
        continue;
      }
      const lineIndent = indentOf(line);
      if (lineIndent <= indent) break;
      if (inner === -1) inner = lineIndent;
      if (lineIndent < inner) this.fail(i, "a block scalar's lines must keep its indentation");
      body.push(line.slice(inner));
    }
    while (body.length > 0 && body.at(-1) === "") body.pop();
    this.at = i;
    const text = header.startsWith("|") ? body.join("\n") : fold(body);
    return header.endsWith("-") ? text : `${text}\n`;
  }

  private scalar(text: string, index: number): Value {
    if (/^[&*!]/.test(text)) this.fail(index, "anchors, aliases and tags are not plain YAML here");
    if (text.startsWith("[") || text.startsWith("{")) return this.flow(text, index);
    if (text.startsWith('"')) {
      try {
        return JSON.parse(text);
      } catch {
        this.fail(index, "a double-quoted string must end on its line");
      }
    }
    if (text.startsWith("'")) {
      if (!/^'(?:[^']|'')*'$/.test(text)) this.fail(index, "a single-quoted string must end on its line");
      return text.slice(1, -1).replaceAll("''", "'");
    }
    // YAML 1.1, which Kubernetes' reader follows, reads these as booleans: quoted, they are not ambiguous.
    if (/^(y|n|yes|no|on|off)$/i.test(text))
      this.fail(index, `quote ${text}: YAML 1.1 reads it as a boolean`);
    if (text === "null" || text === "~") return null;
    if (text === "true" || text === "false") return text === "true";
    if (/^-?(0|[1-9]\d*)$/.test(text)) return Number(text);
    if (/^-?(0|[1-9]\d*)?\.\d+([eE][-+]?\d+)?$/.test(text)) return Number(text);
    return text;
  }

  /** A one-line flow collection: its bare words are quoted, then it is read as JSON. */
  private flow(text: string, index: number): Value {
    const json = text.replace(
      /("(?:[^"\\]|\\.)*")|([^\s,:[\]{}"][^,:[\]{}]*?)(?=\s*[,:\]}])/g,
      (_all, quoted, bare) => {
        if (quoted) return quoted;
        const value = this.scalar(String(bare).trim(), index);
        return JSON.stringify(value);
      },
    );
    try {
      return JSON.parse(json);
    } catch {
      this.fail(index, "a flow collection must be on one line, of plain words or double-quoted strings");
    }
  }
}

/** `>`: the lines of a paragraph joined by spaces; paragraphs (between blank lines) by line breaks. */
function fold(lines: string[]): string {
  const paragraphs: string[][] = [[]];
  for (const line of lines) {
    if (line === "") paragraphs.push([]);
    else paragraphs.at(-1)?.push(line);
  }
  return paragraphs.map((p) => p.join(" ")).join("\n");
}

function isMappingLine(text: string): boolean {
  return /^("(?:[^"\\]|\\.)*"|'[^']*'|[^\s:'"[{][^:]*?):(\s|$)/.test(text);
}

/** The line without a `#` comment (a `#` that starts the line or follows a space, outside quotes). */
function stripComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") {
      if (i === 0 || /[\s:[{,-]/.test(line[i - 1] ?? "")) quote = c;
    } else if (c === "#" && (i === 0 || /\s/.test(line[i - 1] ?? ""))) return line.slice(0, i);
  }
  return line;
}
