import type { SlackState } from "./state.js";
import type { SlackMessage } from "./types.js";

/** A message as Slack's API shows it; `metadata` only when asked for (`include_all_metadata`). */
export function toApiMessage(
  state: SlackState,
  message: SlackMessage,
  includeMetadata: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = { type: "message" };
  if (message.thread_ts !== undefined && message.reply_broadcast) out.subtype = "thread_broadcast";
  out.user = message.user;
  if (message.bot_id !== undefined) {
    out.bot_id = message.bot_id;
    out.app_id = message.app_id;
  }
  out.text = message.text;
  out.ts = message.ts;
  out.team = state.identity.teamId;
  if (message.blocks !== undefined) out.blocks = message.blocks;
  if (message.attachments !== undefined) out.attachments = message.attachments;
  if (message.edited !== undefined) out.edited = message.edited;
  if (message.thread_ts !== undefined) {
    out.thread_ts = message.thread_ts;
    const parent = state.find(message.channel, message.thread_ts);
    if (parent) out.parent_user_id = parent.user;
  } else {
    const replies = state.repliesOf(message.channel, message.ts);
    const last = replies.at(-1);
    if (last) {
      const replyUsers = [...new Set(replies.map((reply) => reply.user))];
      out.thread_ts = message.ts;
      out.reply_count = replies.length;
      out.reply_users_count = replyUsers.length;
      out.reply_users = replyUsers;
      out.latest_reply = last.ts;
    }
  }
  if (includeMetadata && message.metadata !== undefined) out.metadata = message.metadata;
  return out;
}
