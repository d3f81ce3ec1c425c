import { toApiMessage } from "./message-json.js";
import {
  type DeliveryResult,
  deliver,
  type EventDelivery,
  postSigned,
  type SenderContext,
} from "./sender.js";

/**
 * Shortcuts as Slack sends them (signed, form-encoded): a message shortcut (`message_action`, on one
 * message, with a response_url) and a global shortcut (`shortcut`, from the composer's menu, with
 * neither channel nor response_url). Each carries a fresh trigger_id (good once, for 3 seconds).
 */

export interface MessageShortcutArgs {
  callbackId: string;
  userId: string;
  channelId: string;
  /** The message the shortcut was used on. */
  messageTs: string;
}

export async function sendMessageShortcut(
  ctx: SenderContext,
  args: MessageShortcutArgs,
): Promise<DeliveryResult> {
  const { state } = ctx;
  const message = state.find(args.channelId, args.messageTs);
  if (!message) throw new Error(`Slack stand-in: no message ${args.messageTs} in ${args.channelId}`);
  const teamId = state.identity.teamId;
  const entry = ctx.responseUrls.create({
    kind: "slash_command",
    user: args.userId,
    channel: args.channelId,
  });
  const userName = state.user(args.userId)?.name ?? args.userId;
  const payload = {
    type: "message_action",
    token: ctx.verificationToken,
    action_ts: String(Date.now() / 1000),
    team: { id: teamId, domain: ctx.teamDomain },
    user: { id: args.userId, username: userName, name: userName, team_id: teamId },
    channel: { id: args.channelId, name: state.channel(args.channelId)?.name ?? "privategroup" },
    is_enterprise_install: false,
    callback_id: args.callbackId,
    trigger_id: state.views.issueTrigger(args.userId),
    response_url: entry.url,
    message_ts: message.ts,
    message: toApiMessage(state, message, false),
  };
  const body = new URLSearchParams([["payload", JSON.stringify(payload)]]).toString();
  return deliver(ctx, entry, body, {});
}

export interface GlobalShortcutArgs {
  callbackId: string;
  userId: string;
}

export async function sendGlobalShortcut(
  ctx: SenderContext,
  args: GlobalShortcutArgs,
): Promise<EventDelivery> {
  const { state } = ctx;
  const teamId = state.identity.teamId;
  const userName = state.user(args.userId)?.name ?? args.userId;
  const payload = {
    type: "shortcut",
    token: ctx.verificationToken,
    action_ts: String(Date.now() / 1000),
    team: { id: teamId, domain: ctx.teamDomain },
    user: { id: args.userId, username: userName, team_id: teamId },
    is_enterprise_install: false,
    callback_id: args.callbackId,
    trigger_id: state.views.issueTrigger(args.userId),
  };
  const body = new URLSearchParams([["payload", JSON.stringify(payload)]]).toString();
  return postSigned(ctx, body, "application/x-www-form-urlencoded", {});
}
