import { randomBytes } from "node:crypto";
import { validateBlocks } from "./block-kit-limits.js";
import type { SlackState } from "./state.js";
import type { SlackMessage } from "./types.js";

/**
 * Link unfurls as Slack keeps them: `chat.unfurl` attaches one unfurl to each link of a message (or of
 * a message being composed, by its `unfurl_id`); calling it again for the same link replaces that
 * unfurl in place, never adds a second one.
 */

export interface StoredUnfurl {
  url: string;
  blocks: unknown[];
  /** How many times chat.unfurl set it (1: set once; more: updated in place). */
  updates: number;
}

/** A link being composed: what the composer event named, until the message is posted. */
interface Composing {
  channel: string;
  user: string;
  links: string[];
}

export class UnfurlStore {
  readonly #byKey = new Map<string, Map<string, StoredUnfurl>>();
  readonly #composing = new Map<string, Composing>();

  startComposing(composing: Composing): string {
    const id = `${composing.user}-${randomBytes(16).toString("hex")}`;
    this.#composing.set(id, composing);
    return id;
  }

  composing(unfurlId: string): Composing | undefined {
    return this.#composing.get(unfurlId);
  }

  /** The unfurls of a posted message, or of a message being composed (`composer:<unfurl_id>`). */
  of(key: string): StoredUnfurl[] {
    return [...(this.#byKey.get(key)?.values() ?? [])].map((u) => structuredClone(u));
  }

  set(key: string, url: string, blocks: unknown[]): void {
    let map = this.#byKey.get(key);
    if (!map) {
      map = new Map();
      this.#byKey.set(key, map);
    }
    const before = map.get(url);
    map.set(url, { url, blocks, updates: (before?.updates ?? 0) + 1 });
  }
}

export function messageKey(channel: string, ts: string): string {
  return `${channel}:${ts}`;
}

export class UnfurlError extends Error {
  constructor(
    readonly error: string,
    readonly messages: string[] = [],
  ) {
    super(error);
  }
}

/** The links Slack finds in a message's text: `<url>` or `<url|label>`, or bare http(s) URLs. */
export function linksOf(text: string): string[] {
  const links: string[] = [];
  for (const match of text.matchAll(/<(https?:\/\/[^|>\s]+)(?:\|[^>]*)?>|(https?:\/\/[^\s<>]+)/g)) {
    const url = match[1] ?? match[2];
    if (url && !links.includes(url)) links.push(url);
  }
  return links;
}

/**
 * chat.unfurl: `channel` and `ts` of a posted message, or `unfurl_id` and `source` of one being
 * composed; `unfurls` maps links of that message to `{blocks}`. Every link must be in the message, and
 * every unfurl's blocks must pass Block Kit's checks, else nothing is attached.
 */
export function chatUnfurl(args: Record<string, unknown>, state: SlackState, store: UnfurlStore): void {
  const text = (key: string) => (typeof args[key] === "string" ? (args[key] as string) : undefined);
  let links: string[];
  let key: string;
  const unfurlId = text("unfurl_id");
  const channel = text("channel");
  const ts = text("ts");
  if (unfurlId !== undefined || text("source") !== undefined) {
    const composing = unfurlId === undefined ? undefined : store.composing(unfurlId);
    if (text("source") !== "composer" || !composing) throw new UnfurlError("cannot_unfurl_message");
    links = composing.links;
    key = `composer:${unfurlId}`;
  } else {
    if (channel === undefined || ts === undefined) throw new UnfurlError("missing_channel_or_ts");
    const message: SlackMessage | undefined = state.find(channel, ts);
    if (!message) throw new UnfurlError("cannot_find_message");
    links = linksOf(message.text);
    key = messageKey(channel, ts);
  }
  let unfurls: unknown = args.unfurls;
  if (typeof unfurls === "string") {
    try {
      unfurls = JSON.parse(unfurls);
    } catch {
      throw new UnfurlError("invalid_unfurls_format");
    }
  }
  if (typeof unfurls !== "object" || unfurls === null || Array.isArray(unfurls)) {
    throw new UnfurlError("invalid_unfurls_format");
  }
  const entries = Object.entries(unfurls as Record<string, unknown>);
  const checked: [string, unknown[]][] = [];
  for (const [url, unfurl] of entries) {
    if (!links.includes(url)) throw new UnfurlError("cannot_unfurl_url");
    const blocks = (unfurl as { blocks?: unknown } | null)?.blocks;
    if (!Array.isArray(blocks)) throw new UnfurlError("invalid_unfurls_format");
    const errors = validateBlocks(blocks);
    if (errors.length > 0)
      throw new UnfurlError(
        "invalid_blocks",
        errors.map((e) => `[ERROR] ${e}`),
      );
    checked.push([url, blocks]);
  }
  for (const [url, blocks] of checked) store.set(key, url, blocks);
}
