import type { Repo } from "../repo.js";
import type { NotifyChange } from "./notify-change.js";

/**
 * How a result reads, whatever the surface: a few parts (sentences, notes, fields, lists, buttons),
 * each written once here in the core. A surface only lays them out: GitHub as Markdown in its summary
 * comment, Slack as Block Kit with a plain-words fallback.
 */

/** How a surface writes text: the core writes sentences through this, never raw markup. */
export interface TextFormat {
  /** Makes text that a person typed (or that came from outside) inert in this surface's markup. */
  escape(text: string): string;
  /** Inline code, for commands and names. The text is escaped as needed. */
  code(text: string): string;
  bold(text: string): string;
  italic(text: string): string;
  /** Makes markup already written through this format (a link) stand out. */
  strong(markup: string): string;
  link(url: string, label: string): string;
  /** How a command is addressed on this surface, e.g. "@yardmaster" or "/mq". */
  invocation: string;
}

/** A sentence (or a line) in the core's words, written out in a surface's format. */
export type Text = (f: TextFormat) => string;

/** What a button can run: the same command, with the same checks, as typing it. */
export type ButtonCommand =
  | { name: "unpause"; repo: Repo; branch?: string }
  | { name: "requeue"; repo: Repo; pull: number }
  | { name: "dequeue"; repo: Repo; pull: number }
  | { name: "status"; repo: Repo; branch?: string }
  | { name: "let"; repo: Repo; pull: number; confirm: boolean }
  | { name: "notify"; change: NotifyChange }
  | { name: "login" }
  | { name: "logout" };

export interface Button {
  label: string;
  runs: ButtonCommand;
  style?: "primary";
}

/** A batch of the merge queue, with its pull requests and sub-batches, for a surface to lay out. */
export interface BatchRow {
  /** The service's own words: a surface escapes them. */
  name: string;
  status: string;
  checks: { passed: number; total: number };
  eta: string;
  pulls: Text[];
  subBatches: BatchRow[];
}

export type Part =
  /** A heading in plain words (our own words and validated names only). */
  | { kind: "title"; text: string }
  | { kind: "sentence"; text: Text; button?: Button }
  /** Small print under or between the rest. */
  | { kind: "note"; texts: Text[] }
  | { kind: "fields"; fields: [label: string, value: Text][] }
  /**
   * One line per item. `name` says which list it is, so that a surface can size it; `more(n)` ends it
   * when a surface shows only part of it.
   */
  | {
      kind: "list";
      name: string;
      heading?: Text;
      items: Text[];
      more: (n: number) => Text;
      empty?: Text;
    }
  | {
      kind: "batches";
      heading: Text;
      rows: BatchRow[];
      more: (n: number) => Text;
      morePulls: (n: number) => Text;
      moreSubBatches: (n: number) => Text;
      empty: Text;
    }
  | { kind: "buttons"; buttons: Button[] }
  | { kind: "divider" };

export interface Description {
  parts: Part[];
  /** The whole in plain words, in one paragraph (Slack's fallback text). */
  summary: Text;
}

/** The simplest description: one sentence, which is also its summary. */
export function sentence(text: Text): Description {
  return { parts: [{ kind: "sentence", text }], summary: text };
}
