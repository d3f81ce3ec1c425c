import type { ChatMessage } from "../wording/message.js";
import { renderChatMessage } from "./render-message.js";

/**
 * Where Yardmaster posts a result: only a response_url on Slack's own host (docs/security.md, "Forms").
 * Slack's are `https://hooks.slack.com/…`: the host of the Web API (`SLACK_API_URL`, `slack.com` by
 * default) or one under it, with its scheme and port. A stand-in's Web API (`http://127.0.0.1:…/api/`)
 * gives its own host. Anything else (another host, credentials in the URL, another scheme) is refused.
 */
export function slackResponseUrlCheck(apiUrl: string): (url: string) => boolean {
  let api: URL;
  try {
    api = new URL(apiUrl);
  } catch {
    return () => false;
  }
  return (url) => {
    let candidate: URL;
    try {
      candidate = new URL(url);
    } catch {
      return false;
    }
    if (candidate.protocol !== api.protocol || candidate.port !== api.port) return false;
    if (candidate.username !== "" || candidate.password !== "") return false;
    const host = candidate.hostname.toLowerCase();
    const apiHost = api.hostname.toLowerCase();
    return host === apiHost || host.endsWith(`.${apiHost}`);
  };
}

/**
 * Answers a person privately at a response_url Slack gave (`/mq login`'s, once linked): the message laid
 * out for Slack, never replacing what was there; given up after 5 seconds. Only a URL `accepts` takes.
 */
export function slackResponseReply(accepts: (url: string) => boolean): {
  accepts: (url: string) => boolean;
  send: (url: string, message: ChatMessage) => Promise<void>;
} {
  return {
    accepts,
    async send(url, message) {
      const { text, blocks } = renderChatMessage(message);
      await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          response_type: "ephemeral",
          replace_original: false,
          text,
          ...(blocks.length ? { blocks } : {}),
        }),
        signal: AbortSignal.timeout(5_000),
      });
    },
  };
}
