/** Shapes shared by the Slack stand-in's modules. Slack's own fields keep Slack's (snake_case) names. */

export interface MessageMetadata {
  event_type: string;
  event_payload: Record<string, unknown>;
}

export interface Channel {
  id: string;
  name: string;
  botIsMember: boolean;
  /** A private channel the bot is not in is invisible to it: `channel_not_found`, as on Slack. */
  isPrivate: boolean;
  /** A direct-message conversation between the app and one person (`conversations.open`). */
  im?: { user: string };
}

/** The Home tab the app published for a person (`views.publish`), the latest. */
export interface HomeView {
  user: string;
  view: { type: "home"; blocks: unknown[]; [key: string]: unknown };
  /** The view's id (`V...`), kept across publishes as Slack keeps it. */
  id: string;
  /** How many times it was published. */
  publishes: number;
  at: number;
}

export interface User {
  id: string;
  name: string;
  realName: string;
  isBot: boolean;
  /** The time zone the user's profile sets (users.info's `tz`), an IANA name; Slack's default is "America/Los_Angeles". */
  tz: string;
}

/** How a message came to be in the stand-in. */
export type MessageOrigin = "chat.postMessage" | "response_url" | "test";

/** A message in a channel's history (top level, thread reply, or both when broadcast). */
export interface SlackMessage {
  channel: string;
  ts: string;
  text: string;
  blocks?: unknown[];
  attachments?: unknown[];
  user: string;
  bot_id?: string;
  app_id?: string;
  /** Set on replies (the parent's ts). Parents get it in API output once they have replies. */
  thread_ts?: string;
  reply_broadcast?: boolean;
  metadata?: MessageMetadata;
  edited?: { user: string; ts: string };
  /** Blocks were sent without a top-level `text` fallback (Slack accepts this with a warning). */
  missingFallback: boolean;
  origin: MessageOrigin;
}

export interface ThreadedMessage extends SlackMessage {
  replies: SlackMessage[];
}

export interface EphemeralMessage {
  channel: string;
  user: string;
  text: string;
  blocks?: unknown[];
  thread_ts?: string;
  message_ts: string;
  missingFallback: boolean;
  origin: "chat.postEphemeral" | "response_url" | "ack";
  /** Replaced later through a response_url (`replace_original`) or deleted (`delete_original`). */
  replaced?: boolean;
  deleted?: boolean;
}

export type InteractionKind = "slash_command" | "block_actions";

/** What Slack did with a response: shown to the user only, posted in the channel, etc. */
export type ResponseEffect = "ephemeral" | "in_channel" | "replaced" | "deleted" | "ignored";

/** A response to a slash command or a button click, through its response_url or the HTTP ack. */
export interface ResponseRecord {
  /** The response_url id this response belongs to. */
  id: string;
  responseUrl: string;
  kind: InteractionKind;
  via: "response_url" | "ack";
  user: string;
  channel: string;
  /** The JSON that arrived, as sent. */
  payload: Record<string, unknown>;
  response_type: "ephemeral" | "in_channel";
  text?: string;
  blocks?: unknown[];
  replace_original?: boolean;
  delete_original?: boolean;
  thread_ts?: string;
  effect: ResponseEffect;
  /** ts of the channel message posted or replaced, or message_ts of the ephemeral. */
  messageTs?: string;
  missingFallback: boolean;
  at: number;
}

/** A POST to a response_url that Slack would have refused. */
export interface RejectedResponse {
  id: string;
  status: number;
  error: string;
  body: string;
  at: number;
}

export interface RecordedCall {
  method: string;
  /** Arguments as parsed: JSON-encoded form fields (`blocks`, `metadata`, ...) decoded; the token left out. */
  args: Record<string, unknown>;
  /** When it was answered (Date.now()). */
  at: number;
  /** Answered 429, by the rate limits or a fault. */
  rateLimited: boolean;
  /** With a 429: the Retry-After answered. */
  retryAfterSeconds?: number;
  httpStatus: number;
  /** The JSON body answered. */
  response: Record<string, unknown>;
  /** e.g. "missing_text_fallback" when blocks were posted without `text`. */
  warnings: string[];
}
