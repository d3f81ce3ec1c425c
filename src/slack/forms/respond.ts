import type { App, RespondArguments, RespondFn } from "@slack/bolt";
import type { Logger } from "../../logger.js";

/** Where a form's result is answered: the response_url of the command that opened it, else the Web API. */

/** A respond function on a response_url (the one of the command that opened the form). */
export function respondOn(url: string): RespondFn {
  return async (message: string | RespondArguments) => {
    const body = typeof message === "string" ? { text: message } : message;
    const answer = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    if (!answer.ok) throw new Error(`response_url answered ${answer.status}`);
    return answer as unknown as Awaited<ReturnType<RespondFn>>;
  };
}

/**
 * Answers with the Web API where no response_url exists: in the channel (to the person alone for an
 * ephemeral answer), or without a channel in a direct message from the app.
 */
export function respondByWebApi(app: App, channelId: string, userId: string): RespondFn {
  return async (message: string | RespondArguments) => {
    const {
      response_type: type,
      replace_original: _r,
      delete_original: _d,
      ...body
    } = typeof message === "string" ? { text: message } : (message as RespondArguments & { text?: string });
    const text = typeof body.text === "string" ? body.text : "";
    if (channelId === "") {
      const opened = await app.client.conversations.open({ users: userId });
      const dm = opened.channel?.id;
      if (!dm) throw new Error("could not open a direct message");
      return (await app.client.chat.postMessage({ ...body, text, channel: dm })) as never;
    }
    if (type === "in_channel")
      return (await app.client.chat.postMessage({ ...body, text, channel: channelId })) as never;
    return (await app.client.chat.postEphemeral({
      ...body,
      text,
      channel: channelId,
      user: userId,
    })) as never;
  };
}

/** Why a result could not be posted where it was asked, in words for the person (a Slack API error, else). */
function whyNotPosted(error: unknown, channelId: string): string {
  const code = (error as { data?: { error?: unknown } }).data?.error;
  const where = channelId === "" ? "where you asked" : `in <#${channelId}>`;
  if (code === "not_in_channel" || code === "channel_not_found") {
    return `Yardmaster could not post this ${where}: it is not a member of that channel. Invite it there with \`/invite @Yardmaster\`, or choose another channel next time. Here is the result:`;
  }
  if (code === "is_archived")
    return `Yardmaster could not post this ${where}: the channel is archived. Here is the result:`;
  return `Yardmaster could not post this ${where} (Slack refused it${typeof code === "string" ? `: ${code}` : ""}). Here is the result:`;
}

/**
 * `respond`, or when it fails (a channel the app is not in, an expired response_url) the same message
 * to the person in a direct message from the app, saying why: a result is never lost silently after
 * its command ran (docs/security.md, "Forms").
 */
export function orToThePerson(
  app: App,
  respond: RespondFn,
  to: { userId: string; channelId: string },
  logger: Logger,
): RespondFn {
  return async (message: string | RespondArguments) => {
    try {
      return await respond(message);
    } catch (error) {
      logger.warn({ err: error }, "could not post a form's result where it was asked: sent to the person");
      const why = whyNotPosted(error, to.channelId);
      const body =
        typeof message === "string" ? { text: message } : (message as RespondArguments & { text?: string });
      const blocks = (body as { blocks?: unknown[] }).blocks;
      const text = typeof body.text === "string" ? body.text : "";
      const direct = respondByWebApi(app, "", to.userId);
      return direct({
        text: `${why}\n${text}`,
        ...(Array.isArray(blocks)
          ? { blocks: [{ type: "section", text: { type: "mrkdwn", text: why } }, ...blocks] as never }
          : {}),
      });
    }
  };
}
