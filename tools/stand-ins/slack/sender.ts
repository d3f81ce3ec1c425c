import { createHash, randomBytes } from "node:crypto";
import { request } from "node:http";
import { performance } from "node:perf_hooks";
import type { Logger } from "pino";
import { toApiMessage } from "./message-json.js";
import {
  applyResponse,
  checkResponsePayload,
  type ResponseUrlEntry,
  type ResponseUrls,
} from "./response-urls.js";
import { signSlackRequest, unixSeconds } from "./signing.js";
import { envelopeOf, type SocketModeHub } from "./socket-mode.js";
import type { SlackState } from "./state.js";
import { microsToTs } from "./timestamps.js";
import type { EphemeralMessage, SlackMessage } from "./types.js";

/**
 * What Slack sends to the app's request URL (Yardmaster's `POST /slack/events`): slash commands and
 * `block_actions` button clicks, form-encoded and signed with the signing secret, as Slack does.
 */

export interface SenderContext {
  state: SlackState;
  responseUrls: ResponseUrls;
  signingSecret: string;
  teamDomain: string;
  /** The legacy verification token sent in the `token` field (Bolt ignores it). */
  verificationToken: string;
  eventsUrl: () => string | undefined;
  /** Socket Mode: while the app holds a connection, everything goes there, not to eventsUrl. */
  socket?: SocketModeHub;
  timeoutMs: number;
  logger?: Logger | undefined;
}

export interface SlashCommandArgs {
  /** Default "/mq". */
  command?: string;
  text: string;
  userId: string;
  channelId: string;
  userName?: string;
  teamId?: string;
  /** Unix seconds for `X-Slack-Request-Timestamp` (the signature is made with it): send a stale one. */
  timestamp?: number;
  /** The `X-Slack-Signature` to send instead of the right one. */
  signature?: string;
}

export interface ButtonClickArgs {
  actionId: string;
  value: string;
  userId: string;
  channelId: string;
  /**
   * The message the button is on. Default: the newest message (channel, thread or the user's ephemerals)
   * that has a button with this action_id (and value, if one matches).
   */
  messageTs?: string;
  /** Default: the block_id of the button found in the message. */
  blockId?: string;
  userName?: string;
  teamId?: string;
  timestamp?: number;
  signature?: string;
}

export interface DeliveryResult {
  /** Yardmaster's HTTP status. */
  status: number;
  /** Yardmaster's response body (Bolt: empty, or JSON for an immediate response). */
  body: string;
  json?: unknown;
  durationMs: number;
  responseUrl: string;
  /** The signed body that was sent. */
  sentBody: string;
  /** Its signature headers (`x-slack-request-timestamp`, `x-slack-signature`), as sent. */
  sentHeaders: Record<string, string>;
}

export interface ResendArgs {
  /** Where to send it; default the events URL (another replica's, say). */
  url?: string;
  /** Headers to add, e.g. Slack's `x-slack-retry-num` and `x-slack-retry-reason` on a retry. */
  headers?: Record<string, string>;
}

export async function sendSlashCommand(ctx: SenderContext, args: SlashCommandArgs): Promise<DeliveryResult> {
  const { state } = ctx;
  const teamId = args.teamId ?? state.identity.teamId;
  const entry = ctx.responseUrls.create({
    kind: "slash_command",
    user: args.userId,
    channel: args.channelId,
  });
  const form = new URLSearchParams([
    ["token", ctx.verificationToken],
    ["team_id", teamId],
    ["team_domain", ctx.teamDomain],
    ["channel_id", args.channelId],
    ["channel_name", channelName(state, args.channelId)],
    ["user_id", args.userId],
    ["user_name", args.userName ?? state.user(args.userId)?.name ?? args.userId],
    ["command", args.command ?? "/mq"],
    ["text", args.text],
    ["api_app_id", state.identity.appId],
    ["is_enterprise_install", "false"],
    ["response_url", entry.url],
    ["trigger_id", state.views.issueTrigger(args.userId)],
  ]);
  return deliver(ctx, entry, form.toString(), args);
}

export async function clickButton(ctx: SenderContext, args: ButtonClickArgs): Promise<DeliveryResult> {
  const { state } = ctx;
  const teamId = args.teamId ?? state.identity.teamId;
  const target = findTarget(state, args);
  const messageTs = target?.ts ?? args.messageTs ?? microsToTs(Date.now() * 1000);
  const found = target ? findButton(target.blocks, target.ts, args.actionId, args.value) : undefined;
  const blockId = args.blockId ?? found?.blockId ?? generatedBlockId(messageTs, 0);
  const isEphemeral = target?.ephemeral ?? false;
  const entry = ctx.responseUrls.create({
    kind: "block_actions",
    user: args.userId,
    channel: args.channelId,
    messageTs,
    isEphemeral,
  });
  const userName = args.userName ?? state.user(args.userId)?.name ?? args.userId;
  const container: Record<string, unknown> = {
    type: "message",
    message_ts: messageTs,
    channel_id: args.channelId,
    is_ephemeral: isEphemeral,
  };
  if (target?.threadTs !== undefined) container.thread_ts = target.threadTs;
  const payload: Record<string, unknown> = {
    type: "block_actions",
    user: { id: args.userId, username: userName, name: userName, team_id: teamId },
    api_app_id: state.identity.appId,
    token: ctx.verificationToken,
    container,
    trigger_id: triggerId(),
    team: { id: teamId, domain: ctx.teamDomain },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: args.channelId, name: channelName(state, args.channelId) },
    ...(target?.message ? { message: toApiMessage(state, target.message, false) } : {}),
    state: { values: {} },
    response_url: entry.url,
    actions: [
      {
        action_id: args.actionId,
        block_id: blockId,
        text: { type: "plain_text", text: found?.text ?? args.actionId, emoji: true },
        value: args.value,
        type: "button",
        action_ts: microsToTs(Date.now() * 1000),
      },
    ],
  };
  const body = new URLSearchParams([["payload", JSON.stringify(payload)]]).toString();
  return deliver(ctx, entry, body, args);
}

export interface AppHomeOpenedArgs {
  userId: string;
  teamId?: string;
  timestamp?: number;
  signature?: string;
}

/** What Yardmaster answered to an Events API event (no response_url: an event is answered by calls). */
export interface EventDelivery {
  status: number;
  body: string;
  sentBody: string;
  sentHeaders: Record<string, string>;
}

/**
 * The Events API's `app_home_opened` (the person opened the app's Home tab), JSON signed with the
 * signing secret as Slack signs it.
 */
export async function sendAppHomeOpened(ctx: SenderContext, args: AppHomeOpenedArgs): Promise<EventDelivery> {
  const { state } = ctx;
  const teamId = args.teamId ?? state.identity.teamId;
  const view = state.homeView(args.userId);
  const now = Date.now();
  const body = JSON.stringify({
    token: ctx.verificationToken,
    team_id: teamId,
    api_app_id: state.identity.appId,
    event: {
      type: "app_home_opened",
      user: args.userId,
      channel: state.directChannel(args.userId)?.id ?? `D${args.userId.replace(/^[UW]/, "")}`,
      tab: "home",
      event_ts: microsToTs(now * 1000),
      ...(view ? { view: { id: view.id, type: "home", blocks: view.view.blocks } } : {}),
    },
    type: "event_callback",
    event_id: `Ev${randomBytes(6).toString("hex").toUpperCase()}`,
    event_time: Math.floor(now / 1000),
    authorizations: [
      { team_id: teamId, user_id: state.identity.botUserId, is_bot: true, is_enterprise_install: false },
    ],
    is_ext_shared_channel: false,
  });
  return postSigned(ctx, body, "application/json", args);
}

export interface HomeClickArgs {
  actionId: string;
  value: string;
  userId: string;
  teamId?: string;
  timestamp?: number;
  signature?: string;
}

/**
 * A button clicked in the person's Home tab: `block_actions` from a view, which (unlike a message's)
 * carries no response_url. The button must be in the Home tab the app last published for them.
 */
export async function clickHomeButton(ctx: SenderContext, args: HomeClickArgs): Promise<EventDelivery> {
  const { state } = ctx;
  const view = state.homeView(args.userId);
  const found = view ? findButton(view.view.blocks, view.id, args.actionId, args.value) : undefined;
  if (!view || !found?.valueMatches)
    throw new Error(
      `Slack stand-in: no ${args.actionId} button with that value in ${args.userId}'s Home tab`,
    );
  const teamId = args.teamId ?? state.identity.teamId;
  const userName = state.user(args.userId)?.name ?? args.userId;
  const payload = {
    type: "block_actions",
    user: { id: args.userId, username: userName, name: userName, team_id: teamId },
    api_app_id: state.identity.appId,
    token: ctx.verificationToken,
    container: { type: "view", view_id: view.id },
    trigger_id: triggerId(),
    team: { id: teamId, domain: ctx.teamDomain },
    enterprise: null,
    is_enterprise_install: false,
    view: {
      id: view.id,
      type: "home",
      blocks: view.view.blocks,
      team_id: teamId,
      app_id: state.identity.appId,
    },
    state: { values: {} },
    actions: [
      {
        action_id: args.actionId,
        block_id: found.blockId,
        text: { type: "plain_text", text: found.text, emoji: true },
        value: args.value,
        type: "button",
        action_ts: microsToTs(Date.now() * 1000),
      },
    ],
  };
  const body = new URLSearchParams([["payload", JSON.stringify(payload)]]).toString();
  return postSigned(ctx, body, "application/x-www-form-urlencoded", args);
}

export async function postSigned(
  ctx: SenderContext,
  body: string,
  contentType: string,
  overrides: { timestamp?: number; signature?: string; headers?: Record<string, string> },
): Promise<EventDelivery> {
  if (ctx.socket && ctx.socket.connections > 0) {
    const answer = await overSocket(ctx, body, contentType);
    return { ...answer, sentBody: body, sentHeaders: {} };
  }
  const eventsUrl = ctx.eventsUrl();
  if (eventsUrl === undefined) throw new Error("Slack stand-in: no eventsUrl (pass it or call setEventsUrl)");
  const timestamp = overrides.timestamp ?? unixSeconds();
  const signature = overrides.signature ?? signSlackRequest(ctx.signingSecret, timestamp, body);
  const sentHeaders = { "x-slack-request-timestamp": String(timestamp), "x-slack-signature": signature };
  const answer = await postForm(
    eventsUrl,
    body,
    { ...sentHeaders, ...overrides.headers, "content-type": contentType },
    ctx.timeoutMs,
  );
  return { status: answer.status, body: answer.body, sentBody: body, sentHeaders };
}

/**
 * Sends a request delivered before again, byte for byte with its signature headers: what an attacker
 * who captured it would send, or (with `x-slack-retry-num`) what a retry of it looks like.
 */
export async function resend(
  ctx: SenderContext,
  delivery: DeliveryResult,
  args: ResendArgs = {},
): Promise<DeliveryResult> {
  const eventsUrl = args.url ?? ctx.eventsUrl();
  if (eventsUrl === undefined) throw new Error("Slack stand-in: no eventsUrl (pass it or call setEventsUrl)");
  const started = performance.now();
  const answer = await postForm(
    eventsUrl,
    delivery.sentBody,
    { ...delivery.sentHeaders, ...args.headers },
    ctx.timeoutMs,
  );
  const json = parseJson(answer.body);
  return {
    status: answer.status,
    body: answer.body,
    ...(json !== undefined ? { json } : {}),
    durationMs: performance.now() - started,
    responseUrl: delivery.responseUrl,
    sentBody: delivery.sentBody,
    sentHeaders: delivery.sentHeaders,
  };
}

export async function deliver(
  ctx: SenderContext,
  entry: ResponseUrlEntry,
  body: string,
  overrides: { timestamp?: number; signature?: string },
): Promise<DeliveryResult> {
  const socket = ctx.socket && ctx.socket.connections > 0;
  const eventsUrl = ctx.eventsUrl();
  if (!socket && eventsUrl === undefined)
    throw new Error("Slack stand-in: no eventsUrl (pass it or call setEventsUrl)");
  const timestamp = overrides.timestamp ?? unixSeconds();
  const signature = overrides.signature ?? signSlackRequest(ctx.signingSecret, timestamp, body);
  const sentHeaders: Record<string, string> = socket
    ? {}
    : { "x-slack-request-timestamp": String(timestamp), "x-slack-signature": signature };
  const started = performance.now();
  const answer = socket
    ? await overSocket(ctx, body, "application/x-www-form-urlencoded")
    : await postForm(eventsUrl as string, body, sentHeaders, ctx.timeoutMs);
  const durationMs = performance.now() - started;
  const json = parseJson(answer.body);
  ctx.logger?.debug(
    { kind: entry.kind, status: answer.status, durationMs: Math.round(durationMs) },
    "slack stand-in: delivered to Yardmaster",
  );
  if (answer.status === 200) recordAck(ctx.state, entry, answer.body, json);
  return {
    status: answer.status,
    body: answer.body,
    ...(json !== undefined ? { json } : {}),
    durationMs,
    responseUrl: entry.url,
    sentBody: body,
    sentHeaders,
  };
}

/**
 * An immediate response in the HTTP answer: JSON with `text`/`blocks`, or (slash commands) plain text,
 * which Slack shows to the user as an ephemeral message.
 */
function recordAck(state: SlackState, entry: ResponseUrlEntry, body: string, json: unknown): void {
  let payload: Record<string, unknown> | undefined;
  if (typeof json === "object" && json !== null && !Array.isArray(json)) {
    const object = json as Record<string, unknown>;
    if (object.text !== undefined || object.blocks !== undefined) payload = object;
  } else if (json === undefined && body.trim() !== "" && entry.kind === "slash_command") {
    payload = { text: body };
  }
  if (!payload) return;
  const problem = checkResponsePayload(payload);
  if (problem) {
    state.rejectedResponses.push({ id: entry.id, status: 200, error: problem, body, at: Date.now() });
    return;
  }
  applyResponse(state, entry, payload, "ack");
}

function parseJson(body: string): unknown {
  const trimmed = body.trim();
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return undefined;
  }
}

/** Socket Mode: the delivery as an envelope; its acknowledgement's payload is the answer's body. */
async function overSocket(
  ctx: SenderContext,
  body: string,
  contentType: string,
): Promise<{ status: number; body: string }> {
  const { type, payload } = envelopeOf(body, contentType);
  const ack = await (ctx.socket as SocketModeHub).send(type, payload, { timeoutMs: ctx.timeoutMs });
  return { status: 200, body: ack.payload === undefined ? "" : JSON.stringify(ack.payload) };
}

function postForm(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  if (target.protocol !== "http:") {
    return Promise.reject(new Error(`Slack stand-in: eventsUrl must be http:, got ${url}`));
  }
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "content-length": String(Buffer.byteLength(body)),
          "user-agent": "Slackbot 1.0 (+https://api.slack.com/robots)",
          accept: "application/json,*/*",
          ...headers,
        },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
      },
    );
    req.on("timeout", () =>
      req.destroy(new Error(`Slack stand-in: no answer from ${url} in ${timeoutMs} ms`)),
    );
    req.on("error", reject);
    req.end(body);
  });
}

export function channelName(state: SlackState, channelId: string): string {
  const channel = state.channel(channelId);
  if (channel) return channel.name;
  if (channelId.startsWith("D")) return "directmessage";
  return "privategroup";
}

export function triggerId(): string {
  const digits = (n: number) => String(Math.floor(Math.random() * 10 ** n)).padStart(n, "0");
  return `${digits(13)}.${digits(12)}.${randomBytes(16).toString("hex")}`;
}

/** Slack gives blocks without a block_id a random one; ours is stable for a message and block index. */
function generatedBlockId(messageTs: string, index: number): string {
  return createHash("sha1").update(`${messageTs}:${index}`).digest("base64url").slice(0, 5);
}

interface Target {
  ts: string;
  blocks?: unknown[];
  threadTs?: string;
  ephemeral: boolean;
  message?: SlackMessage;
}

function fromMessage(message: SlackMessage): Target {
  return {
    ts: message.ts,
    ...(message.blocks ? { blocks: message.blocks } : {}),
    ...(message.thread_ts !== undefined ? { threadTs: message.thread_ts } : {}),
    ephemeral: false,
    message,
  };
}

function fromEphemeral(ephemeral: EphemeralMessage): Target {
  return {
    ts: ephemeral.message_ts,
    ...(ephemeral.blocks ? { blocks: ephemeral.blocks } : {}),
    ...(ephemeral.thread_ts !== undefined ? { threadTs: ephemeral.thread_ts } : {}),
    ephemeral: true,
  };
}

function findTarget(state: SlackState, args: ButtonClickArgs): Target | undefined {
  if (args.messageTs !== undefined) {
    const message = state.find(args.channelId, args.messageTs);
    if (message) return fromMessage(message);
    const ephemeral = state.findEphemeral(args.channelId, args.messageTs);
    return ephemeral ? fromEphemeral(ephemeral) : undefined;
  }
  const candidates: Target[] = [
    ...state.channelMessages(args.channelId).map(fromMessage),
    ...state
      .ephemerals(args.channelId, args.userId)
      .map((ephemeral) => state.findEphemeral(args.channelId, ephemeral.message_ts))
      .filter((ephemeral): ephemeral is EphemeralMessage => ephemeral !== undefined && !ephemeral.deleted)
      .map(fromEphemeral),
  ].sort((a, b) => (a.ts < b.ts ? 1 : a.ts > b.ts ? -1 : 0));
  const withAction = candidates.filter((candidate) =>
    findButton(candidate.blocks, candidate.ts, args.actionId, undefined),
  );
  return (
    withAction.find(
      (candidate) => findButton(candidate.blocks, candidate.ts, args.actionId, args.value)?.valueMatches,
    ) ?? withAction[0]
  );
}

/** The button with this action_id in a message's blocks (preferring one with this value). */
export function findButton(
  blocks: unknown[] | undefined,
  messageTs: string,
  actionId: string,
  value: string | undefined,
): { blockId: string; text: string; valueMatches: boolean } | undefined {
  let fallback: { blockId: string; text: string; valueMatches: boolean } | undefined;
  for (const [index, block] of (blocks ?? []).entries()) {
    if (typeof block !== "object" || block === null) continue;
    const record = block as Record<string, unknown>;
    const elements = [...(Array.isArray(record.elements) ? record.elements : []), record.accessory];
    for (const element of elements) {
      if (typeof element !== "object" || element === null) continue;
      const button = element as Record<string, unknown>;
      if (button.action_id !== actionId) continue;
      const text = button.text as { text?: unknown } | undefined;
      const found = {
        blockId: typeof record.block_id === "string" ? record.block_id : generatedBlockId(messageTs, index),
        text: typeof text?.text === "string" ? text.text : actionId,
        valueMatches: value !== undefined && button.value === value,
      };
      if (found.valueMatches || value === undefined) return found;
      fallback ??= found;
    }
  }
  return fallback;
}
