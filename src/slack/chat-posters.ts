import type { DigestPoster } from "../digests/digests.js";
import type { Logger } from "../logger.js";
import type { NoticeChat, NotificationPoster } from "../notifier/chat.js";
import type { Store } from "../store/index.js";
import type { ChatMessage } from "../wording/message.js";
import { channelTurns, pacedKeyedPoster } from "./channel-turns.js";
import type { HomeTab } from "./home/home-tab.js";
import { slackNamesFromWebApi } from "./names.js";
import { renderChatMessage } from "./render-message.js";
import { slackResponseReply, slackResponseUrlCheck } from "./response-url.js";
import { SlackHolds, SlackPace } from "./slack-holds.js";
import {
  type KeyedSlackPoster,
  type SlackNoticePoster,
  webApiKeyedPoster,
  webApiPoster,
} from "./slack-poster.js";
import { postPace, slackPosterOptions } from "./slack-settings.js";

/** The settings the posters read: Slack's retries and each channel's pace. */
type YardmasterOptions = Parameters<typeof slackPosterOptions>[1] & Parameters<typeof postPace>[0];

/**
 * Where features' messages (src/wording/message.ts) meet Slack: each is laid out here
 * (render-message.ts) and posted with Slack's Web API, top-level posts at their channel's pace
 * (channel-turns.ts), shared with the notices. The composition root gives them to features.
 */

/**
 * The notifier's (src/notifier/chat.ts): its notices laid out here and posted with Slack's Web API, the
 * person's direct conversation opened with `conversations.open`; Slack's 429s held and each channel's
 * posts paced in the store (slack-holds.ts), so that every replica keeps them.
 */
export function slackNoticeChat(
  slack: { botToken: string; apiUrl: string },
  deps: { options: YardmasterOptions; store: Store },
): NoticeChat {
  const poster = webApiPoster(slackPosterOptions(slack, deps.options));
  const pace = postPace(deps.options);
  return {
    poster: laidOut(poster),
    openDirect: (user) => poster.openDirect(user),
    holds: new SlackHolds(deps.store),
    pace: pace ? new SlackPace(deps.store, pace) : null,
  };
}

/** The notices' poster on Slack's: each message laid out in Block Kit with its mrkdwn fallback. */
export function laidOut(poster: SlackNoticePoster): NotificationPoster {
  return {
    post: ({ message, ...notice }) => poster.post({ ...notice, ...renderChatMessage(message) }),
    update: ({ message, ...edit }) => poster.update({ ...edit, ...renderChatMessage(message) }),
    findPosted: (channel, options) => poster.findPosted(channel, options),
  };
}

/** A poster of top-level messages with their key (found again by it), and edits of them. */
export interface ChatPoster {
  /** Posts a message with its key; its id (Slack's ts). */
  post(channel: string, message: ChatMessage, key: string): Promise<string>;
  update(channel: string, ts: string, message: ChatMessage): Promise<void>;
}

/** The health alerts': posts at their channel's turn, keyed `health:…`; edits are not paced per channel. */
export function slackAlertPoster(
  slack: { botToken: string; apiUrl: string },
  deps: { options: YardmasterOptions; store: Store; now: () => Date },
): ChatPoster {
  const options = slackPosterOptions(slack, deps.options);
  const paced = pacedKeyedPoster(
    webApiKeyedPoster(options),
    channelTurns({ store: deps.store, pace: postPace(deps.options), now: deps.now }),
  );
  const edits = webApiPoster(options);
  return {
    post: (channel, message, key) =>
      paced.post({ channel, ...renderChatMessage(message), key: `health:${key}` }),
    async update(channel, ts, message) {
      await edits.update({ channel, ts, ...renderChatMessage(message) });
    },
  };
}

/**
 * The freezes' notices: posted with their key in Slack's message metadata, and found again by it (not
 * paced per channel: a few a day).
 */
export function slackNoticePoster(slack: { botToken: string; apiUrl: string }): {
  post: (notice: { channel: string; message: ChatMessage; key: string }) => Promise<string>;
  find: KeyedSlackPoster["find"];
} {
  const poster = webApiKeyedPoster({ token: slack.botToken, apiUrl: slack.apiUrl });
  return {
    post: ({ channel, message, key }) => poster.post({ channel, ...renderChatMessage(message), key }),
    find: (channel, key, oldest) => poster.find(channel, key, oldest),
  };
}

/**
 * The weekly digests' (src/digests's port): each digest's message laid out here (the stats result as
 * `/mq stats` shows it), posted at its channel's pace, shared with the notifier (a digest waits behind
 * a burst of notices), and found again by its key.
 */
export function slackDigestPoster(
  slack: { botToken: string; apiUrl: string },
  deps: { options: YardmasterOptions; store: Store; now: () => Date },
): DigestPoster {
  const paced = pacedKeyedPoster(
    webApiKeyedPoster(slackPosterOptions(slack, deps.options)),
    channelTurns({ store: deps.store, pace: postPace(deps.options), now: deps.now }),
  );
  return {
    post: ({ channel, message, key }) => paced.post({ channel, ...renderChatMessage(message), key }),
    find: (channel, key, oldest) => paced.find(channel, key, oldest),
  };
}

/**
 * Identity linking's (src/identity): Slack's names of a user and workspace, the answer on `/mq login`'s
 * response_url (only Slack's own), and the Home tab refreshed once a user is linked.
 */
export function slackIdentityChat(
  slack: { botToken: string; apiUrl: string },
  deps: { logger: Logger; home: HomeTab | null },
) {
  return {
    names: slackNamesFromWebApi({ token: slack.botToken, apiUrl: slack.apiUrl, logger: deps.logger }),
    reply: slackResponseReply(slackResponseUrlCheck(slack.apiUrl)),
    onLinked: (person: { teamId: string; slackUserId: string }) => deps.home?.refreshSoon(person),
  };
}
