import { webApi } from "@slack/bolt";
import {
  type ChatCall,
  DeliveryError,
  DeliveryErrorCode,
  type NotificationPoster,
  type PostedMessage,
} from "../notifier/chat.js";

/** How long one attempt of a Slack call may take: three attempts and their pauses stay under 15 s. */
export const SLACK_CALL_TIMEOUT_MS = 4_000;

/** What a notification message carries so that it can be found again after a crash. */
export const METADATA_EVENT_TYPE = "yardmaster_notification";

/**
 * The notices' Slack calls, on Slack's terms (a message's `text` and `blocks`); src/slack/chat-posters.ts
 * lays the neutral messages out for it (the notifier's port: src/notifier/chat.ts).
 */
export interface SlackNoticePoster {
  post(message: {
    channel: string;
    text: string;
    blocks: unknown[];
    threadTs?: string;
    eventId: number;
  }): Promise<PostedMessage>;
  update(message: { channel: string; ts: string; text: string; blocks: unknown[] }): Promise<void>;
  findPosted: NotificationPoster["findPosted"];
}

const CHANNEL_GONE = new Set([
  "channel_not_found",
  "not_in_channel",
  "is_archived",
  "channel_is_archived",
  // A person's direct messages (conversations.open): the person is gone or cannot be written to.
  "user_not_found",
  "user_disabled",
  "cannot_dm_bot",
]);

/** `chat.update` errors that no later try can fix: the message is gone, or no longer editable. */
const MESSAGE_GONE = new Set(["message_not_found", "cant_update_message", "edit_window_closed"]);

/** Slack's method for each of the notifier's calls (src/notifier/chat.ts). */
export const SLACK_METHODS: Readonly<Record<ChatCall, string>> = {
  post: "chat.postMessage",
  edit: "chat.update",
  "open-direct": "conversations.open",
  "read-channel": "conversations.history",
  "read-thread": "conversations.replies",
};

/** A Web API error as the notifier acts on it (src/notifier/chat.ts). */
function translate(error: unknown, chatCall: ChatCall): DeliveryError {
  const e = error as { code?: string; data?: { error?: string }; retryAfter?: number; message?: string };
  const method = SLACK_METHODS[chatCall];
  const failure = (code: DeliveryErrorCode, message: string, retryAfter?: number) =>
    new DeliveryError(code, message, retryAfter, chatCall, method);
  if (e.code === webApi.ErrorCode.RateLimitedError) {
    return failure(DeliveryErrorCode.RateLimited, "Slack rate limit", e.retryAfter ?? 1);
  }
  const slackError = e.data?.error;
  if (slackError && CHANNEL_GONE.has(slackError))
    return failure(DeliveryErrorCode.ChannelUnavailable, slackError);
  if (slackError && chatCall === "edit" && MESSAGE_GONE.has(slackError))
    return failure(DeliveryErrorCode.MessageGone, slackError);
  return failure(DeliveryErrorCode.Failed, slackError ?? e.message ?? "Slack call failed");
}

async function call<T>(chatCall: ChatCall, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw translate(error, chatCall);
  }
}

/**
 * The notifier's Slack calls, on the Web API. Rate limits are not waited out here: they come back as
 * RateLimited with Slack's Retry-After (parsed by the WebClient) and the method, and the deliverer holds
 * only what the limit names (docs/notifications.md). The WebClient retries 5xx and network errors.
 */
export function webApiPoster(
  options: PosterOptions,
): SlackNoticePoster & { openDirect(slackUserId: string): Promise<string> } {
  const client = notifierClient(options);
  const metadataOf = (message: HistoryMessage) =>
    message.metadata?.event_type === METADATA_EVENT_TYPE
      ? Number(message.metadata.event_payload?.event_id)
      : Number.NaN;

  return {
    /** The app's direct-message conversation with a person (`conversations.open`, scope `im:write`). */
    async openDirect(slackUserId) {
      const result = await call("open-direct", () => client.conversations.open({ users: slackUserId }));
      const id = result.channel?.id;
      if (!id) throw new DeliveryError(DeliveryErrorCode.Failed, "conversations.open gave no channel");
      return id;
    },
    async post(message) {
      const ts = await postMessage(client, message, {
        event_type: METADATA_EVENT_TYPE,
        event_payload: { event_id: message.eventId },
      });
      return { ts, threadTs: message.threadTs ?? null };
    },
    async update(message) {
      await call("edit", () =>
        client.chat.update({
          channel: message.channel,
          ts: message.ts,
          text: message.text,
          blocks: message.blocks as never,
        }),
      );
    },
    async findPosted(channel, { oldest, threadTs }) {
      const found = new Map<number, PostedMessage>();
      for await (const m of history(client, channel, { oldest, ...(threadTs ? { threadTs } : {}) })) {
        const id = metadataOf(m);
        if (Number.isSafeInteger(id) && m.ts) {
          const inThread = m.thread_ts && m.thread_ts !== m.ts ? m.thread_ts : null;
          found.set(id, { ts: m.ts, threadTs: inThread });
        }
      }
      return found;
    },
  };
}

export interface PosterOptions {
  token: string;
  apiUrl: string;
  retries?: number;
}

/** What a keyed message (a weekly digest, an alert, a freeze's notice) carries to be found again after a crash. */
export const DIGEST_METADATA_EVENT_TYPE = "yardmaster_digest";

/**
 * Slack's calls for a top-level message with a key (on Slack's terms, `text` and `blocks`): post one,
 * and find one posted before a crash by its key. The digests' port (src/digests/digests.ts) and the
 * alerts' and freezes' posters are laid out on it in chat-posters.ts.
 */
export interface KeyedSlackPoster {
  post(message: { channel: string; text: string; blocks: unknown[]; key: string }): Promise<string>;
  /** The ts of the message with this key posted in the channel since `oldest`, or null. */
  find(channel: string, key: string, oldest: Date): Promise<string | null>;
}

export function webApiKeyedPoster(options: PosterOptions): KeyedSlackPoster {
  const client = notifierClient(options);
  return {
    async post(message) {
      return postMessage(client, message, {
        event_type: DIGEST_METADATA_EVENT_TYPE,
        event_payload: { key: message.key },
      });
    },
    async find(channel, key, oldest) {
      for await (const m of history(client, channel, { oldest })) {
        const metadata = m.metadata;
        if (
          metadata?.event_type === DIGEST_METADATA_EVENT_TYPE &&
          metadata.event_payload?.key === key &&
          m.ts
        )
          return m.ts;
      }
      return null;
    },
  };
}

/** Posts a message (links not unfurled) with the metadata that finds it again; its ts. */
async function postMessage(
  client: webApi.WebClient,
  message: { channel: string; text: string; blocks: unknown[]; threadTs?: string },
  metadata: { event_type: string; event_payload: Record<string, string | number> },
): Promise<string> {
  const result = await call("post", () =>
    client.chat.postMessage({
      channel: message.channel,
      text: message.text,
      blocks: message.blocks as never,
      unfurl_links: false,
      unfurl_media: false,
      ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
      metadata,
    }),
  );
  return String(result.ts);
}

interface HistoryMessage {
  ts?: string;
  thread_ts?: string;
  metadata?: { event_type?: string; event_payload?: Record<string, unknown> };
}

/**
 * A channel's top-level messages since `oldest`, or a thread's messages, with their metadata, page
 * after page (200 a page).
 */
async function* history(
  client: webApi.WebClient,
  channel: string,
  where: { oldest: Date; threadTs?: string },
): AsyncGenerator<HistoryMessage> {
  const { threadTs } = where;
  let cursor: string | undefined;
  do {
    const page = await call(threadTs ? "read-thread" : "read-channel", () =>
      threadTs
        ? client.conversations.replies({
            channel,
            ts: threadTs,
            include_all_metadata: true,
            limit: 200,
            ...(cursor ? { cursor } : {}),
          })
        : client.conversations.history({
            channel,
            oldest: (where.oldest.getTime() / 1000).toFixed(6),
            include_all_metadata: true,
            limit: 200,
            ...(cursor ? { cursor } : {}),
          }),
    );
    yield* (page.messages ?? []) as HistoryMessage[];
    cursor = page.response_metadata?.next_cursor || undefined;
  } while (cursor);
}

function notifierClient(options: PosterOptions): webApi.WebClient {
  return new webApi.WebClient(options.token, {
    slackApiUrl: options.apiUrl,
    // The WebClient's own waiting on a 429 would pause its whole queue, every channel's posts with it.
    rejectRateLimitedCalls: true,
    // Each attempt gives up after SLACK_CALL_TIMEOUT_MS; the channel's lease is renewed meanwhile
    // (channel-lease.ts), so that a pass waiting on Slack keeps its channel.
    timeout: SLACK_CALL_TIMEOUT_MS,
    retryConfig: { retries: options.retries ?? 2, factor: 2, minTimeout: 200, maxTimeout: 2_000 },
    logLevel: webApi.LogLevel.ERROR,
  });
}
