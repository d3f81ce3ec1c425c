import type { ChatMessage } from "../wording/message.js";

/**
 * What the notifier needs of a chat surface to say its notices (the port): a poster of the neutral
 * messages (src/wording/message.ts), the chat's rate limits as it answered them, and its pace. The
 * composition root gives a surface's (Slack's: src/slack/chat-posters.ts); the notifier imports none.
 */
export interface NoticeChat {
  poster: NotificationPoster;
  /** A person's direct conversation with the app (its channel), opened once asked. */
  openDirect(chatUserId: string): Promise<string>;
  holds: ChatHolds;
  /** Each channel's pace for posts; null: as fast as the chat answers. */
  pace: ChatPace | null;
}

/** Where a message went: its id (Slack's ts), and its thread's parent when it is a reply. */
export interface PostedMessage {
  ts: string;
  threadTs: string | null;
}

/**
 * A call the notifier makes of the chat, named neutrally (the surface names its own: Slack's
 * `chat.postMessage`, `chat.update`, `conversations.open`, `conversations.history`, `conversations.replies`).
 */
export type ChatCall = "post" | "edit" | "open-direct" | "read-channel" | "read-thread";

export enum DeliveryErrorCode {
  /** The channel is gone or the app is not in it: retried with backoff. */
  ChannelUnavailable = "channel_unavailable",
  /** The message to edit is gone, or can no longer be edited: left as it is. */
  MessageGone = "message_gone",
  RateLimited = "rate_limited",
  Failed = "failed",
}

/** A chat call that failed, as the notifier acts on it. */
export class DeliveryError extends Error {
  constructor(
    readonly code: DeliveryErrorCode,
    message: string,
    /** RateLimited: the chat's Retry-After. */
    readonly retryAfterSeconds?: number,
    /** The call that failed, when known (what a 429 holds). */
    readonly call?: ChatCall,
    /** The surface's own name of that call (Slack's method), for logs and metrics only. */
    readonly callName?: string,
  ) {
    super(message);
    this.name = "DeliveryError";
  }
}

/** How many times a top-level post goes when the chat answers it 429 (each after the Retry-After). */
export const RATE_LIMITED_TRIES = 3;

/** Posts notices, edits them, and finds those posted before a crash (by their event id). */
export interface NotificationPoster {
  post(notice: {
    channel: string;
    message: ChatMessage;
    threadTs?: string;
    eventId: number;
  }): Promise<PostedMessage>;
  update(edit: { channel: string; ts: string; message: ChatMessage }): Promise<void>;
  /** Event ids of Yardmaster's messages in a channel since `oldest` (top level, or the replies of a thread). */
  findPosted(
    channel: string,
    options: { oldest: Date; threadTs?: string },
  ): Promise<Map<number, PostedMessage>>;
}

/** What a 429 holds: one channel's posts, or one workspace-wide call of another kind. */
export type HoldTarget = { channel: string } | { call: Exclude<ChatCall, "post"> };

/** The chat's rate limits as it answered them, seen by every replica (Slack's: src/slack/slack-holds.ts). */
export interface ChatHolds {
  /** The end of the hold on `target` in force at `now`, or null. */
  until(target: HoldTarget, now: Date): Promise<Date | null>;
  /** Holds `target` until `now + retryAfterSeconds`, or later if a longer hold is already in force. */
  hold(target: HoldTarget, retryAfterSeconds: number, now: Date): Promise<Date>;
}

/** A channel's posts at the chat's pace, whichever replica posts them (Slack's: src/slack/slack-holds.ts). */
export interface ChatPace {
  /** When the channel's posts are caught up (now or earlier: it may burst). */
  caughtUp(channel: string): Promise<Date | null>;
  /** When the channel may post next after `caughtUp`, or null when it may post at `now`. */
  nextPostAt(caughtUp: Date | null, now: Date): Date | null;
  /** Records a post at `now`; returns the channel's new caught-up time. */
  posted(channel: string, caughtUp: Date | null, now: Date): Promise<Date>;
}
