import type { NotificationPoster } from "../../src/notifier/chat.js";
import { notificationRenderer } from "../../src/notifier/render-notification.js";
import type { NotificationContext, PullInfo, ThreadState } from "../../src/notifier/types.js";
import { laidOut } from "../../src/slack/chat-posters.js";
import { renderChatMessage } from "../../src/slack/render-message.js";
import type { SlackNoticePoster } from "../../src/slack/slack-poster.js";

type Event = Parameters<typeof notificationRenderer.event>[0];

/** The notices as Slack shows them: the notifier's messages laid out by src/slack (text and Block Kit). */
export const slackNotices = {
  event: (event: Event, pull: PullInfo | null, ctx: NotificationContext) =>
    renderChatMessage(notificationRenderer.event(event, pull, ctx)),
  parent: (state: ThreadState, ctx: NotificationContext) =>
    renderChatMessage(notificationRenderer.parent(state, ctx)),
  stateAfter: notificationRenderer.stateAfter,
};

/**
 * The notifier's poster over a Slack in memory that keeps what Slack is sent (`text`, `blocks`): each
 * message laid out as the composition root's poster lays it out (src/slack/chat-posters.ts).
 */
export function slackLaidOut(slack: Partial<SlackNoticePoster>): NotificationPoster {
  return laidOut(slack as SlackNoticePoster);
}
