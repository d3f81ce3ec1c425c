import type { Logger } from "pino";
import { argBool, argInt, argString, argText, MalformedRequestError, parseApiRequest } from "./api-args.js";
import { isTextTooLong, LIMITS, validateBlocks } from "./block-kit-limits.js";
import type { SlackFaults } from "./faults.js";
import { toApiMessage } from "./message-json.js";
import type { SlackRateLimits } from "./rate-limits.js";
import type { SlackState } from "./state.js";
import { decodeCursor, encodeCursor, tsToMicros } from "./timestamps.js";
import type { Channel, HomeView, MessageMetadata, RecordedCall, SlackMessage } from "./types.js";
import { chatUnfurl, UnfurlError } from "./unfurls.js";
import { ViewError } from "./views.js";

/**
 * Slack's Web API (`/api/<method>`), the methods Yardmaster uses. Like Slack: HTTP 200 with `{ok: ...}`
 * for everything but rate limits (HTTP 429 with `Retry-After`).
 */

export interface WebApiContext {
  state: SlackState;
  faults: SlackFaults;
  /** Slack's per-channel and per-method limits, when on. */
  limits?: SlackRateLimits;
  calls: RecordedCall[];
  botToken: string;
  /** The scopes the bot token holds: named in every answer's `x-oauth-scopes` header, as Slack does. */
  scopes: string[];
  teamName: string;
  teamDomain: string;
  logger?: Logger | undefined;
}

export interface WebApiRequest {
  method: string;
  rawBody: string;
  mediaType: string;
  query: URLSearchParams;
  authorization: string | undefined;
}

export interface WebApiAnswer {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/** A Slack error answer: `{ok: false, error, ...extra}`. */
export class SlackApiError extends Error {
  constructor(
    readonly error: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(error);
  }
}

type Args = Record<string, unknown>;
type Handler = (args: Args, ctx: WebApiContext, warnings: string[]) => Record<string, unknown>;

/** A held request or answer (a fault): it does not keep the process alive once the stand-in is closed. */
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export async function handleWebApiCall(ctx: WebApiContext, request: WebApiRequest): Promise<WebApiAnswer> {
  const { method } = request;
  const warnings: string[] = [];
  let args: Args = {};
  const answer = await (async (): Promise<WebApiAnswer> => {
    let formToken: string | undefined;
    try {
      const parsed = parseApiRequest(request.rawBody, request.mediaType, request.query);
      args = parsed.args;
      formToken = parsed.token;
    } catch (error) {
      if (error instanceof MalformedRequestError) return ok200({ ok: false, error: error.message });
      throw error;
    }

    const fault = ctx.faults.take(method);
    if (fault.delayMs > 0) await sleep(fault.delayMs);
    if (fault.outcome?.kind === "rate_limit") return rateLimited(fault.outcome.retryAfterSeconds);
    if (fault.outcome?.kind === "error") return ok200({ ok: false, error: fault.outcome.error });

    const handler = HANDLERS[method];
    if (!handler) return ok200({ ok: false, error: "unknown_method" });

    const token = bearerToken(request.authorization) ?? formToken;
    if (token === undefined || token === "") return ok200({ ok: false, error: "not_authed" });
    if (token !== ctx.botToken) return ok200({ ok: false, error: "invalid_auth" });

    const retryAfter = ctx.limits?.take(method, argText(args, "channel"));
    if (retryAfter != null) return rateLimited(retryAfter);

    const scopes = { "x-oauth-scopes": ctx.scopes.join(",") };
    try {
      const body = ok200({ ok: true, ...handler(args, ctx, warnings) });
      fault.taken?.();
      if (fault.answerDelayMs) await sleep(fault.answerDelayMs);
      return { ...body, headers: scopes };
    } catch (error) {
      if (error instanceof SlackApiError)
        return { ...ok200({ ok: false, error: error.error, ...error.extra }), headers: scopes };
      throw error;
    }
  })();

  const retryAfter = answer.headers["retry-after"];
  ctx.calls.push({
    method,
    args,
    at: Date.now(),
    rateLimited: answer.status === 429,
    ...(retryAfter !== undefined ? { retryAfterSeconds: Number(retryAfter) } : {}),
    httpStatus: answer.status,
    response: answer.body,
    warnings,
  });
  ctx.logger?.debug(
    { method, status: answer.status, ok: answer.body.ok, error: answer.body.error },
    "slack stand-in: web api call",
  );
  return answer;
}

function rateLimited(retryAfterSeconds: number): WebApiAnswer {
  return {
    status: 429,
    body: { ok: false, error: "ratelimited" },
    headers: { "retry-after": String(retryAfterSeconds) },
  };
}

function ok200(body: Record<string, unknown>): WebApiAnswer {
  return { status: 200, body, headers: {} };
}

function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(authorization ?? "");
  return match?.[1]?.trim();
}

// --- argument checks ------------------------------------------------------------------------------

function requireChannel(ctx: WebApiContext, args: Args, options: { member: boolean }): Channel {
  const id = argText(args, "channel");
  const channel = id === undefined ? undefined : ctx.state.channel(id);
  if (!channel || (channel.isPrivate && !channel.botIsMember)) throw new SlackApiError("channel_not_found");
  if (options.member && !channel.botIsMember) throw new SlackApiError("not_in_channel");
  return channel;
}

/** `present` is true when the argument was given at all (an empty array removes blocks on update). */
function readBlocks(args: Args): { present: boolean; blocks?: unknown[] } {
  const raw = args.blocks;
  if (raw === undefined || raw === null || raw === "") return { present: false };
  if (!Array.isArray(raw)) throw new SlackApiError("invalid_blocks_format");
  const errors = validateBlocks(raw);
  if (errors.length > 0) {
    throw new SlackApiError("invalid_blocks", {
      errors,
      response_metadata: { messages: errors.map((error) => `[ERROR] ${error}`) },
    });
  }
  return raw.length > 0 ? { present: true, blocks: raw } : { present: true };
}

function readAttachments(args: Args): unknown[] | undefined {
  const raw = args.attachments;
  if (raw === undefined || raw === null || raw === "") return undefined;
  if (!Array.isArray(raw)) throw new SlackApiError("invalid_attachments");
  return raw.length > 0 ? raw : undefined;
}

function readMetadata(args: Args): MessageMetadata | undefined {
  const raw = args.metadata;
  if (raw === undefined || raw === null || raw === "") return undefined;
  if (
    typeof raw !== "object" ||
    Array.isArray(raw) ||
    typeof (raw as Record<string, unknown>).event_type !== "string" ||
    typeof (raw as Record<string, unknown>).event_payload !== "object" ||
    (raw as Record<string, unknown>).event_payload === null ||
    Array.isArray((raw as Record<string, unknown>).event_payload)
  ) {
    throw new SlackApiError("invalid_metadata_format");
  }
  const { event_type, event_payload } = raw as MessageMetadata;
  return { event_type, event_payload };
}

function checkText(text: string): void {
  if (isTextTooLong(text)) throw new SlackApiError("msg_too_long");
}

function parseTsArg(args: Args, key: string, error: string): number | undefined {
  const value = argText(args, key);
  if (value === undefined) return undefined;
  const micros = tsToMicros(value);
  if (micros === undefined) throw new SlackApiError(error);
  return micros;
}

function readCursor(args: Args): number | undefined {
  const cursor = argText(args, "cursor");
  if (cursor === undefined) return undefined;
  const ts = decodeCursor(cursor);
  if (ts === undefined) throw new SlackApiError("invalid_cursor");
  return tsToMicros(ts);
}

function clampLimit(args: Args, fallback: number, max: number): number {
  const limit = argInt(args, "limit");
  if (limit === undefined || limit <= 0) return fallback;
  return Math.min(limit, max);
}

/** Keeps messages between `oldest` and `latest` (exclusive unless `inclusive`). */
function inWindow(args: Args): (message: SlackMessage) => boolean {
  const oldest = parseTsArg(args, "oldest", "invalid_ts_oldest");
  const latest = parseTsArg(args, "latest", "invalid_ts_latest");
  const inclusive = argBool(args, "inclusive") ?? false;
  return (message) => {
    const at = tsToMicros(message.ts) ?? 0;
    if (oldest !== undefined && (inclusive ? at < oldest : at <= oldest)) return false;
    if (latest !== undefined && (inclusive ? at > latest : at >= latest)) return false;
    return true;
  };
}

// --- methods ---------------------------------------------------------------------------------------

const authTest: Handler = (_args, ctx) => {
  const { identity } = ctx.state;
  return {
    url: `https://${ctx.teamDomain}.slack.com/`,
    team: ctx.teamName,
    user: identity.botName,
    team_id: identity.teamId,
    user_id: identity.botUserId,
    bot_id: identity.botId,
    is_enterprise_install: false,
  };
};

const postMessage: Handler = (args, ctx, warnings) => {
  const { state } = ctx;
  const channel = requireChannel(ctx, args, { member: true });
  const text = argString(args, "text") ?? "";
  const { blocks } = readBlocks(args);
  const attachments = readAttachments(args);
  if (text === "" && !blocks && !attachments) throw new SlackApiError("no_text");
  checkText(text);
  const metadata = readMetadata(args);
  let threadTs: string | undefined;
  const requestedThread = argText(args, "thread_ts");
  if (requestedThread !== undefined) {
    const parent = state.find(channel.id, requestedThread);
    if (!parent) throw new SlackApiError("thread_not_found");
    threadTs = parent.thread_ts ?? parent.ts; // a reply's ts threads under its parent
  }
  const missingFallback = text === "" && blocks !== undefined;
  if (missingFallback) warnings.push("missing_text_fallback");
  const { identity } = state;
  const message = state.insert({
    channel: channel.id,
    ts: state.nextTs(),
    text,
    ...(blocks ? { blocks } : {}),
    ...(attachments ? { attachments } : {}),
    user: identity.botUserId,
    bot_id: identity.botId,
    app_id: identity.appId,
    ...(threadTs !== undefined ? { thread_ts: threadTs } : {}),
    ...(threadTs !== undefined && argBool(args, "reply_broadcast") ? { reply_broadcast: true } : {}),
    ...(metadata ? { metadata } : {}),
    missingFallback,
    origin: "chat.postMessage",
  });
  return { channel: channel.id, ts: message.ts, message: toApiMessage(state, message, true) };
};

const update: Handler = (args, ctx, warnings) => {
  const { state } = ctx;
  const channel = requireChannel(ctx, args, { member: true });
  const ts = argText(args, "ts");
  const message = ts === undefined ? undefined : state.find(channel.id, ts);
  if (!message) throw new SlackApiError("message_not_found");
  if (message.user !== state.identity.botUserId) throw new SlackApiError("cant_update_message");
  const text = argString(args, "text");
  const blocks = readBlocks(args);
  const attachments = readAttachments(args);
  if ((text === undefined || text === "") && !blocks.present && !attachments)
    throw new SlackApiError("no_text");
  if (text !== undefined) checkText(text);
  const metadata = readMetadata(args);

  // Slack: blocks not given are kept only when text is not given either; text alone removes them.
  if (blocks.present) {
    if (blocks.blocks) message.blocks = blocks.blocks;
    else delete message.blocks;
  } else if (text !== undefined && text !== "") {
    delete message.blocks;
  }
  if (attachments) message.attachments = attachments;
  // Text not given: the previous text stays (and the message is flagged as missing a fresh fallback).
  if (text !== undefined && text !== "") message.text = text;
  message.missingFallback = (text === undefined || text === "") && message.blocks !== undefined;
  if (message.missingFallback) warnings.push("missing_text_fallback");
  if (metadata) message.metadata = metadata; // metadata not given is kept
  if (text !== undefined && text !== "" && !blocks.present) {
    message.edited = { user: state.identity.botUserId, ts: state.nextTs() };
  }
  return {
    channel: channel.id,
    ts: message.ts,
    text: message.text,
    message: toApiMessage(state, message, true),
  };
};

const postEphemeral: Handler = (args, ctx, warnings) => {
  const { state } = ctx;
  const channel = requireChannel(ctx, args, { member: true });
  const user = argText(args, "user");
  if (user === undefined) throw new SlackApiError("user_not_found");
  const text = argString(args, "text") ?? "";
  const { blocks } = readBlocks(args);
  if (text === "" && !blocks && !readAttachments(args)) throw new SlackApiError("no_text");
  checkText(text);
  const missingFallback = text === "" && blocks !== undefined;
  if (missingFallback) warnings.push("missing_text_fallback");
  const threadTs = argText(args, "thread_ts");
  const messageTs = state.nextTs();
  state.addEphemeral({
    channel: channel.id,
    user,
    text,
    ...(blocks ? { blocks } : {}),
    ...(threadTs !== undefined ? { thread_ts: threadTs } : {}),
    message_ts: messageTs,
    missingFallback,
    origin: "chat.postEphemeral",
  });
  return { message_ts: messageTs };
};

const history: Handler = (args, ctx) => {
  const { state } = ctx;
  const channel = requireChannel(ctx, args, { member: true });
  const includeMetadata = argBool(args, "include_all_metadata") ?? false;
  const limit = clampLimit(args, 100, 999);
  const window = inWindow(args);
  const cursor = readCursor(args);
  const listed = state
    .channelMessages(channel.id)
    .filter((message) => message.thread_ts === undefined || message.reply_broadcast === true)
    .filter(window)
    .reverse();
  const start = cursor === undefined ? 0 : firstIndex(listed, (at) => at <= cursor);
  const page = listed.slice(start, start + limit);
  const next = listed[start + limit];
  return {
    messages: page.map((message) => toApiMessage(state, message, includeMetadata)),
    has_more: next !== undefined,
    pin_count: 0,
    response_metadata: { next_cursor: next ? encodeCursor(next.ts) : "" },
  };
};

/** Parent first on every page (as Slack does), then up to `limit` replies, oldest first. */
const replies: Handler = (args, ctx) => {
  const { state } = ctx;
  const channel = requireChannel(ctx, args, { member: true });
  const ts = argText(args, "ts");
  const message = ts === undefined ? undefined : state.find(channel.id, ts);
  const parent = message ? state.find(channel.id, message.thread_ts ?? message.ts) : undefined;
  if (!parent) throw new SlackApiError("thread_not_found");
  const includeMetadata = argBool(args, "include_all_metadata") ?? false;
  const limit = clampLimit(args, 1000, 1000);
  const window = inWindow(args);
  const cursor = readCursor(args);
  const listed = state.repliesOf(channel.id, parent.ts).filter(window);
  const start = cursor === undefined ? 0 : firstIndex(listed, (at) => at >= cursor);
  const page = listed.slice(start, start + limit);
  const next = listed[start + limit];
  return {
    messages: [parent, ...page].map((entry) => toApiMessage(state, entry, includeMetadata)),
    has_more: next !== undefined,
    response_metadata: { next_cursor: next ? encodeCursor(next.ts) : "" },
  };
};

function firstIndex(messages: SlackMessage[], test: (micros: number) => boolean): number {
  const index = messages.findIndex((message) => test(tsToMicros(message.ts) ?? 0));
  return index === -1 ? messages.length : index;
}

function channelObject(channel: Channel): Record<string, unknown> {
  if (channel.im) return { id: channel.id, is_im: true, user: channel.im.user, is_open: true };
  return {
    id: channel.id,
    name: channel.name,
    is_channel: !channel.isPrivate,
    is_group: false,
    is_im: false,
    is_private: channel.isPrivate,
    is_archived: false,
    is_member: channel.botIsMember,
  };
}

const conversationsInfo: Handler = (args, ctx) => ({
  channel: channelObject(requireChannel(ctx, args, { member: false })),
});

const conversationsJoin: Handler = (args, ctx) => {
  const channel = requireChannel(ctx, args, { member: false });
  if (channel.isPrivate) throw new SlackApiError("method_not_supported_for_channel_type");
  ctx.state.setBotMembership(channel.id, true);
  return { channel: channelObject({ ...channel, botIsMember: true }) };
};

/** One person (a group DM is not what Yardmaster opens): their conversation with the app, made once. */
const conversationsOpen: Handler = (args, ctx) => {
  const users = argText(args, "users");
  if (users === undefined) throw new SlackApiError("users_list_not_supplied");
  if (users.includes(",")) throw new SlackApiError("not_supported");
  const channel = ctx.state.openDirect(users);
  if (!channel) throw new SlackApiError("user_not_found");
  return { channel: { id: channel.id } };
};

/** The Home tab of one person: a `home` view of at most 100 blocks. */
const viewsPublish: Handler = (args, ctx) => {
  const user = argText(args, "user_id");
  if (user === undefined || !ctx.state.user(user)) throw new SlackApiError("user_not_found");
  const view = args.view;
  if (typeof view !== "object" || view === null || Array.isArray(view))
    throw new SlackApiError("invalid_arguments");
  const { type, blocks } = view as { type?: unknown; blocks?: unknown };
  if (type !== "home" || !Array.isArray(blocks)) throw new SlackApiError("invalid_arguments");
  const errors = validateBlocks(blocks, LIMITS.blocksPerView);
  if (errors.length > 0) {
    throw new SlackApiError("invalid_arguments", {
      response_metadata: { messages: errors.map((error) => `[ERROR] ${error}`) },
    });
  }
  const published = ctx.state.publishHome(user, view as HomeView["view"]);
  return { view: { id: published.id, type: "home", blocks } };
};

const usersInfo: Handler = (args, ctx) => {
  const id = argText(args, "user");
  const user = id === undefined ? undefined : ctx.state.user(id);
  if (!user) throw new SlackApiError("user_not_found");
  return {
    user: {
      id: user.id,
      team_id: ctx.state.identity.teamId,
      name: user.name,
      real_name: user.realName,
      deleted: false,
      is_bot: user.isBot,
      tz: user.tz,
      profile: { real_name: user.realName, display_name: user.name },
    },
  };
};

const teamInfo: Handler = (args, ctx) => {
  const { teamId } = ctx.state.identity;
  const team = argText(args, "team");
  if (team !== undefined && team !== teamId) throw new SlackApiError("team_not_found");
  return { team: { id: teamId, name: ctx.teamName, domain: ctx.teamDomain } };
};

const getPermalink: Handler = (args, ctx) => {
  const channel = requireChannel(ctx, args, { member: false });
  const ts = argText(args, "message_ts");
  const message = ts === undefined ? undefined : ctx.state.find(channel.id, ts);
  if (!message) throw new SlackApiError("message_not_found");
  const base = `https://${ctx.teamDomain}.slack.com/archives/${channel.id}/p${message.ts.replace(".", "")}`;
  const permalink =
    message.thread_ts === undefined ? base : `${base}?thread_ts=${message.thread_ts}&cid=${channel.id}`;
  return { channel: channel.id, permalink };
};

const unfurl: Handler = (args, ctx) => {
  try {
    chatUnfurl(args, ctx.state, ctx.state.unfurls);
  } catch (error) {
    if (!(error instanceof UnfurlError)) throw error;
    const extra = error.messages.length > 0 ? { response_metadata: { messages: error.messages } } : {};
    throw new SlackApiError(error.error, extra);
  }
  return {};
};

/** A modal, opened with a trigger_id that is good once, for 3 seconds (views.ts). */
const viewsOpen: Handler = (args, ctx) => {
  try {
    const opened = ctx.state.views.open(args.trigger_id, args.view);
    return { view: { id: opened.id, hash: opened.hash, ...opened.view } };
  } catch (error) {
    if (!(error instanceof ViewError)) throw error;
    const extra = error.messages.length > 0 ? { response_metadata: { messages: error.messages } } : {};
    throw new SlackApiError(error.error, extra);
  }
};

/** A modal replaced by its view_id (no trigger needed), only if `hash`, when given, is still current. */
const viewsUpdate: Handler = (args, ctx) => {
  try {
    const hash = typeof args.hash === "string" ? args.hash : undefined;
    const updated = ctx.state.views.update(args.view_id, hash, args.view);
    return { view: { id: updated.id, hash: updated.hash, ...updated.view } };
  } catch (error) {
    if (!(error instanceof ViewError)) throw error;
    const extra = error.messages.length > 0 ? { response_metadata: { messages: error.messages } } : {};
    throw new SlackApiError(error.error, extra);
  }
};

const HANDLERS: Record<string, Handler | undefined> = {
  "views.open": viewsOpen,
  "views.update": viewsUpdate,
  "chat.unfurl": unfurl,
  "auth.test": authTest,
  "chat.postMessage": postMessage,
  "chat.update": update,
  "chat.postEphemeral": postEphemeral,
  "chat.getPermalink": getPermalink,
  "conversations.history": history,
  "conversations.replies": replies,
  "conversations.info": conversationsInfo,
  "conversations.join": conversationsJoin,
  "conversations.open": conversationsOpen,
  "views.publish": viewsPublish,
  "users.info": usersInfo,
  "team.info": teamInfo,
};

export const SUPPORTED_METHODS = Object.keys(HANDLERS);
