import type { ChatMessage, Inline, Span } from "../wording/message.js";
import { spansOf } from "../wording/message.js";
import { clip } from "../wording/words.js";
import { codeMrkdwn, escapeMrkdwn, linkMrkdwn, mrkdwnFormat } from "./mrkdwn.js";
import { layout } from "./render-blocks.js";
import {
  actions,
  commandButton,
  context,
  fieldsSection,
  header,
  type KnownBlock,
  mention,
  SLACK_LIMITS,
  type SlackMessage,
  section,
  message as slackMessage,
} from "./render-kit.js";

/**
 * Slack's layout of a feature's message (src/wording/message.ts): the headline as a header, each line a
 * section, the fields two by two, the links in small print, then the notes, the buttons in one row; the
 * summary (else the lines) as the mrkdwn `text` fallback. A message of a summary alone is that text, with
 * no blocks. A named message's blocks carry ids after its name (new ones for each version `at`), and are
 * cut to Slack's 50 keeping the last. A message that is a command's answer (`description`) is laid out
 * as that answer is (render-blocks.ts).
 */
export function renderChatMessage(message: ChatMessage): SlackMessage {
  const { naming, description } = message;
  if (description) return layout(description, naming?.name ?? "message", naming?.at);
  const lines = (message.lines ?? []).map(mrkdwnOf);
  const blocks: KnownBlock[] = [
    ...(message.headline ? [header(message.headline)] : []),
    ...lines.map((line) => section(line)),
    ...(message.fields?.length
      ? [fieldsSection(message.fields.map(([label, value]) => [label, mrkdwnOf(value)]))]
      : []),
    ...(message.links?.length
      ? [context(message.links.map((l) => linkMrkdwn(l.url, l.label)).join(" · "))]
      : []),
    ...(message.notes?.length ? [context(...message.notes.map(mrkdwnOf))] : []),
    ...(message.buttons?.length ? [actions(...message.buttons.map(commandButton))] : []),
  ];
  const text = message.summary !== undefined ? mrkdwnOf(message.summary) : lines.join("\n");
  if (naming) return slackMessage(text, naming.name, blocks, naming.at);
  return { text: clip(text, SLACK_LIMITS.messageText), blocks };
}

/** A run of spans in Slack's mrkdwn: what came from outside escaped (src/slack/mrkdwn.ts). */
export function mrkdwnOf(inline: Inline): string {
  return spansOf(inline).map(spanMrkdwn).join("");
}

function spanMrkdwn(span: Span): string {
  if (typeof span === "string") return span;
  if ("text" in span) return escapeMrkdwn(span.text);
  if ("plain" in span) return span.plain.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  if ("bold" in span) return `*${mrkdwnOf(span.bold)}*`;
  if ("code" in span)
    return typeof span.code === "string" ? codeMrkdwn(span.code) : `\`${mrkdwnOf(span.code)}\``;
  if ("link" in span) return linkMrkdwn(span.link, span.label);
  if ("written" in span) return span.written(mrkdwnFormat());
  const person = span.mention;
  return person.chatUserId ? mention(person.chatUserId) : escapeMrkdwn(person.login ?? "");
}
