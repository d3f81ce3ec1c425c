import { randomBytes } from "node:crypto";
import { isTextTooLong, validateBlocks } from "./block-kit-limits.js";
import type { SlackState } from "./state.js";
import type { InteractionKind, ResponseEffect, ResponseRecord } from "./types.js";

/**
 * response_url: every slash command and button click carries one (`<url>/response/<id>`).
 *
 * Like Slack: at most 5 uses within 30 minutes. Answers are plain text: `200 ok`; errors
 * `404 no_service` (unknown id), `410 used_url` (a sixth use), `410 expired_url` (older than 30 minutes, or
 * expired on purpose with `expireResponseUrl`), `400 invalid_payload` / `no_text` / `invalid_blocks` /
 * `msg_too_long`. Refused POSTs are not uses; they are kept in `state.rejectedResponses`.
 */

export const RESPONSE_URL_MAX_USES = 5;
export const RESPONSE_URL_LIFETIME_MS = 30 * 60 * 1000;

export interface ResponseUrlEntry {
  id: string;
  url: string;
  kind: InteractionKind;
  user: string;
  channel: string;
  /** For a button click: the message the button was on. */
  messageTs?: string;
  isEphemeral: boolean;
  createdAt: number;
  uses: number;
  expired: boolean;
}

export class ResponseUrls {
  private readonly entries = new Map<string, ResponseUrlEntry>();

  constructor(private readonly baseUrl: () => string) {}

  create(init: {
    kind: InteractionKind;
    user: string;
    channel: string;
    messageTs?: string;
    isEphemeral?: boolean;
  }): ResponseUrlEntry {
    const id = randomBytes(12).toString("hex");
    const entry: ResponseUrlEntry = {
      id,
      url: `${this.baseUrl()}/response/${id}`,
      kind: init.kind,
      user: init.user,
      channel: init.channel,
      ...(init.messageTs !== undefined ? { messageTs: init.messageTs } : {}),
      isEphemeral: init.isEphemeral ?? false,
      createdAt: Date.now(),
      uses: 0,
      expired: false,
    };
    this.entries.set(id, entry);
    return entry;
  }

  get(id: string): ResponseUrlEntry | undefined {
    return this.entries.get(id);
  }

  /** Makes a response_url (its id or whole URL) answer `410 expired_url` from now on. */
  expire(idOrUrl: string): void {
    const id = idOrUrl.split("/").at(-1) ?? idOrUrl;
    const entry = this.entries.get(id);
    if (!entry) throw new Error(`Slack stand-in: unknown response_url ${idOrUrl}`);
    entry.expired = true;
  }
}

export interface PlainAnswer {
  status: number;
  body: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Parses what arrived at a response_url: JSON (as Slack documents), or a form with `payload=<JSON>`. */
function parsePayload(rawBody: string, mediaType: string): Record<string, unknown> | undefined {
  let text = rawBody;
  if (mediaType === "application/x-www-form-urlencoded") {
    text = new URLSearchParams(rawBody).get("payload") ?? "";
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function handleResponseUrlPost(
  state: SlackState,
  urls: ResponseUrls,
  id: string,
  rawBody: string,
  mediaType: string,
): PlainAnswer {
  const reject = (status: number, error: string): PlainAnswer => {
    state.rejectedResponses.push({ id, status, error, body: rawBody, at: Date.now() });
    return { status, body: error };
  };
  const entry = urls.get(id);
  if (!entry) return reject(404, "no_service");
  if (entry.expired || Date.now() - entry.createdAt > RESPONSE_URL_LIFETIME_MS)
    return reject(410, "expired_url");
  if (entry.uses >= RESPONSE_URL_MAX_USES) return reject(410, "used_url");
  const payload = parsePayload(rawBody, mediaType);
  if (!payload) return reject(400, "invalid_payload");
  const problem = checkResponsePayload(payload);
  if (problem) return reject(400, problem);
  entry.uses += 1;
  applyResponse(state, entry, payload, "response_url");
  return { status: 200, body: "ok" };
}

/** Why Slack would refuse this response, or undefined. */
export function checkResponsePayload(payload: Record<string, unknown>): string | undefined {
  if (payload.delete_original === true) return undefined;
  const text = typeof payload.text === "string" ? payload.text : "";
  const blocks = payload.blocks;
  if (blocks !== undefined && !Array.isArray(blocks)) return "invalid_blocks";
  if (text === "" && (!Array.isArray(blocks) || blocks.length === 0)) return "no_text";
  if (Array.isArray(blocks) && validateBlocks(blocks).length > 0) return "invalid_blocks";
  if (isTextTooLong(text)) return "msg_too_long";
  return undefined;
}

/**
 * Does what Slack does with a response and records it in `state.responses`:
 * - an immediate (ack) response to a button click is ignored by Slack (`effect: "ignored"`);
 * - `delete_original` / `replace_original` act on the message the button was on (channel or ephemeral);
 *   without an original message (slash commands) they fall through to a new response;
 * - `response_type: "in_channel"` posts a message in the channel as the app (in `thread_ts` if that
 *   thread exists); otherwise (`ephemeral`, the default) the user alone sees it.
 */
export function applyResponse(
  state: SlackState,
  entry: ResponseUrlEntry,
  payload: Record<string, unknown>,
  via: "response_url" | "ack",
): ResponseRecord {
  const text = typeof payload.text === "string" ? payload.text : "";
  const blocks = Array.isArray(payload.blocks) && payload.blocks.length > 0 ? payload.blocks : undefined;
  const responseType = payload.response_type === "in_channel" ? "in_channel" : "ephemeral";
  const threadTs = typeof payload.thread_ts === "string" ? payload.thread_ts : undefined;
  const missingFallback = text === "" && blocks !== undefined;
  let effect: ResponseEffect;
  let messageTs: string | undefined;

  const original = entry.messageTs === undefined ? undefined : state.find(entry.channel, entry.messageTs);
  const originalEphemeral =
    entry.messageTs === undefined ? undefined : state.findEphemeral(entry.channel, entry.messageTs);

  if (via === "ack" && entry.kind === "block_actions") {
    effect = "ignored";
  } else if (payload.delete_original === true && (original || originalEphemeral)) {
    if (original) state.remove(original.channel, original.ts);
    if (originalEphemeral) originalEphemeral.deleted = true;
    effect = "deleted";
    messageTs = entry.messageTs;
  } else if (payload.replace_original === true && (original || originalEphemeral)) {
    const target = original ?? originalEphemeral;
    if (target) {
      target.text = text;
      if (blocks) target.blocks = blocks;
      else delete target.blocks;
      target.missingFallback = missingFallback;
    }
    if (originalEphemeral) originalEphemeral.replaced = true;
    effect = "replaced";
    messageTs = entry.messageTs;
  } else if (responseType === "in_channel") {
    const parent = threadTs === undefined ? undefined : state.find(entry.channel, threadTs);
    const { identity } = state;
    const message = state.insert({
      channel: entry.channel,
      ts: state.nextTs(),
      text,
      ...(blocks ? { blocks } : {}),
      user: identity.botUserId,
      bot_id: identity.botId,
      app_id: identity.appId,
      ...(parent ? { thread_ts: parent.thread_ts ?? parent.ts } : {}),
      missingFallback,
      origin: "response_url",
    });
    effect = "in_channel";
    messageTs = message.ts;
  } else {
    messageTs = state.nextTs();
    state.addEphemeral({
      channel: entry.channel,
      user: entry.user,
      text,
      ...(blocks ? { blocks } : {}),
      ...(threadTs !== undefined ? { thread_ts: threadTs } : {}),
      message_ts: messageTs,
      missingFallback,
      origin: via,
    });
    effect = "ephemeral";
  }

  const record: ResponseRecord = {
    id: entry.id,
    responseUrl: entry.url,
    kind: entry.kind,
    via,
    user: entry.user,
    channel: entry.channel,
    payload,
    response_type: responseType,
    ...(payload.text !== undefined ? { text } : {}),
    ...(blocks ? { blocks } : {}),
    ...(typeof payload.replace_original === "boolean" ? { replace_original: payload.replace_original } : {}),
    ...(typeof payload.delete_original === "boolean" ? { delete_original: payload.delete_original } : {}),
    ...(threadTs !== undefined ? { thread_ts: threadTs } : {}),
    effect,
    ...(messageTs !== undefined ? { messageTs } : {}),
    missingFallback,
    at: Date.now(),
  };
  state.responses.push(record);
  return record;
}
