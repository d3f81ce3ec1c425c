import { randomBytes } from "node:crypto";
import {
  type DeliveryResult,
  deliver,
  type EventDelivery,
  findButton,
  postSigned,
  type SenderContext,
  triggerId,
} from "./sender.js";
import { microsToTs } from "./timestamps.js";
import { linksOf, messageKey } from "./unfurls.js";

/**
 * A person pastes links (docs/notifications.md, "Pull-request links"): Slack sends `link_shared` once
 * while the message is composed (`source: composer`, channel `COMPOSER`, answered by `unfurl_id`) and
 * once it is posted (`source: conversations_history`, the channel and the message's ts), each with its
 * own `event_id`. Only links whose host is one of `domains` are named, as Slack names only the app's
 * `unfurl_domains`.
 */

export interface ShareLinkArgs {
  userId: string;
  channelId: string;
  /** The message's text, links as Slack writes them (`<https://…>`) or bare. */
  text: string;
  /** The hosts the app unfurls (its manifest's unfurl_domains); default every link's. */
  domains?: readonly string[];
  /** Also send the composer event first. Default true. */
  compose?: boolean;
  teamId?: string;
}

export interface SharedLink {
  /** The posted message's ts. */
  ts: string;
  unfurlId: string | null;
  composer: (EventDelivery & { eventBody: string }) | null;
  posted: EventDelivery & { eventBody: string };
}

export async function shareLink(ctx: SenderContext, args: ShareLinkArgs): Promise<SharedLink> {
  const { state } = ctx;
  const links = linksOf(args.text).filter((url) => {
    const host = new URL(url).hostname;
    return args.domains === undefined || args.domains.includes(host);
  });
  let unfurlId: string | null = null;
  let composer: SharedLink["composer"] = null;
  if (args.compose !== false && links.length > 0) {
    unfurlId = state.unfurls.startComposing({ channel: args.channelId, user: args.userId, links });
    composer = await sendEvent(ctx, args, {
      channel: "COMPOSER",
      message_ts: unfurlId,
      unfurl_id: unfurlId,
      source: "composer",
      links,
    });
  }
  const message = state.addMessage({ channel: args.channelId, user: args.userId, text: args.text });
  if (links.length === 0) throw new Error("Slack stand-in: no link of the app's domains in the message");
  const posted = await sendEvent(ctx, args, {
    channel: args.channelId,
    message_ts: message.ts,
    unfurl_id: `${args.channelId}.${message.ts.replace(".", "")}.${randomBytes(16).toString("hex")}`,
    source: "conversations_history",
    links,
  });
  return { ts: message.ts, unfurlId, composer, posted };
}

async function sendEvent(
  ctx: SenderContext,
  args: ShareLinkArgs,
  fields: { channel: string; message_ts: string; unfurl_id: string; source: string; links: string[] },
): Promise<EventDelivery & { eventBody: string }> {
  const teamId = args.teamId ?? ctx.state.identity.teamId;
  const now = Date.now();
  const body = JSON.stringify({
    token: ctx.verificationToken,
    team_id: teamId,
    api_app_id: ctx.state.identity.appId,
    event: {
      type: "link_shared",
      ...fields,
      user: args.userId,
      is_bot_user_member: ctx.state.channel(args.channelId)?.botIsMember ?? false,
      links: fields.links.map((url) => ({ domain: new URL(url).hostname, url })),
      event_ts: microsToTs(now * 1000),
    },
    type: "event_callback",
    event_id: `Ev${randomBytes(6).toString("hex").toUpperCase()}`,
    event_time: Math.floor(now / 1000),
    authorizations: [
      { team_id: teamId, user_id: ctx.state.identity.botUserId, is_bot: true, is_enterprise_install: false },
    ],
  });
  return { ...(await postSigned(ctx, body, "application/json", {})), eventBody: body };
}

/** The same event body sent again, newly signed: how a retry that reached another replica looks. */
export async function sendEventAgain(
  ctx: SenderContext,
  eventBody: string,
  timestamp?: number,
): Promise<EventDelivery> {
  return postSigned(ctx, eventBody, "application/json", timestamp === undefined ? {} : { timestamp });
}

export interface EventRetryArgs {
  /** Slack's `X-Slack-Retry-Num`: 1, 2 or 3. Default 1. */
  retryNum?: number;
  /** Slack's `X-Slack-Retry-Reason`. Default `http_timeout`. */
  reason?: string;
}

/**
 * Slack's retry of an Events API delivery (https://api.slack.com/apis/events-api#retries): the same
 * body, a new request signed at its own later timestamp (the original's plus `retryNum` seconds, so never
 * the original's signature, however long the original took), with `X-Slack-Retry-Num` and
 * `X-Slack-Retry-Reason`.
 */
export async function retryEvent(
  ctx: SenderContext,
  original: { sentBody: string; sentHeaders: Record<string, string> },
  args: EventRetryArgs = {},
): Promise<EventDelivery> {
  const retryNum = args.retryNum ?? 1;
  const sentAt = Number(original.sentHeaders["x-slack-request-timestamp"]);
  if (!Number.isInteger(sentAt)) throw new Error("Slack stand-in: the original was not sent over HTTP");
  return postSigned(ctx, original.sentBody, "application/json", {
    timestamp: sentAt + retryNum,
    headers: {
      "x-slack-retry-num": String(retryNum),
      "x-slack-retry-reason": args.reason ?? "http_timeout",
    },
  });
}

export interface UnfurlClickArgs {
  actionId: string;
  userId: string;
  channelId: string;
  /** The message whose unfurl holds the button. */
  messageTs: string;
  /** The link unfurled; default the first of the message's unfurls with this button. */
  url?: string;
  /** Default the button's own value. */
  value?: string;
}

/** A button of an app's unfurl: `block_actions` from a message attachment, with a response_url. */
export async function clickUnfurlButton(ctx: SenderContext, args: UnfurlClickArgs): Promise<DeliveryResult> {
  const { state } = ctx;
  const unfurls = state.unfurls.of(messageKey(args.channelId, args.messageTs));
  const unfurl = unfurls.find(
    (u) =>
      (args.url === undefined || u.url === args.url) &&
      findButton(u.blocks, args.messageTs, args.actionId, undefined),
  );
  const button = unfurl ? findButton(unfurl.blocks, args.messageTs, args.actionId, undefined) : undefined;
  if (!unfurl || !button)
    throw new Error(`Slack stand-in: no ${args.actionId} button in that message's unfurls`);
  const value = args.value ?? buttonValue(unfurl.blocks, args.actionId);
  const teamId = state.identity.teamId;
  const entry = ctx.responseUrls.create({
    kind: "block_actions",
    user: args.userId,
    channel: args.channelId,
    messageTs: args.messageTs,
  });
  const userName = state.user(args.userId)?.name ?? args.userId;
  const payload = {
    type: "block_actions",
    user: { id: args.userId, username: userName, name: userName, team_id: teamId },
    api_app_id: state.identity.appId,
    token: ctx.verificationToken,
    container: {
      type: "message_attachment",
      message_ts: args.messageTs,
      attachment_id: 1,
      channel_id: args.channelId,
      is_ephemeral: false,
      is_app_unfurl: true,
      app_unfurl_url: unfurl.url,
    },
    trigger_id: triggerId(),
    team: { id: teamId, domain: ctx.teamDomain },
    is_enterprise_install: false,
    channel: { id: args.channelId, name: state.channel(args.channelId)?.name ?? "privategroup" },
    state: { values: {} },
    response_url: entry.url,
    actions: [
      {
        action_id: args.actionId,
        block_id: button.blockId,
        text: { type: "plain_text", text: button.text, emoji: true },
        value,
        type: "button",
        action_ts: microsToTs(Date.now() * 1000),
      },
    ],
  };
  const body = new URLSearchParams([["payload", JSON.stringify(payload)]]).toString();
  return deliver(ctx, entry, body, {});
}

function buttonValue(blocks: unknown[], actionId: string): string {
  for (const block of blocks) {
    const elements = (block as { elements?: unknown }).elements;
    if (!Array.isArray(elements)) continue;
    for (const element of elements as { action_id?: unknown; value?: unknown }[]) {
      if (element.action_id === actionId && typeof element.value === "string") return element.value;
    }
  }
  return "";
}
