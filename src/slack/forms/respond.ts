import type { App, RespondArguments, RespondFn } from "@slack/bolt";

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
