import type { Infrastructure } from "../app/infrastructure.js";
import type { Wired } from "../app/service.js";
import { type ChatNamesLookup, type ChatReply, loginUrl, oauthCallbackHandler } from "./linking.js";

/** What identity linking needs of the chat (Slack's, built by the composition root: src/slack/chat-posters.ts). */
export interface IdentityChat {
  /** What a chat user and their workspace are called. */
  names?: ChatNamesLookup;
  /** Where the person who ran `/mq login` is told once linked. */
  reply: ChatReply;
  /** A chat user was linked (their Home tab is refreshed). */
  onLinked?: (person: { teamId: string; slackUserId: string }) => void;
}

/** Identity linking (`/mq login`): GitHub's OAuth callback, which links a Slack user to their login. */
export function wireIdentity(
  infra: Pick<Infrastructure, "config" | "logger" | "store" | "urls" | "now">,
  chat: IdentityChat | null,
): Wired {
  const { config, logger } = infra;
  if (!config.oauth) return {};
  const handler = oauthCallbackHandler({
    ...config.oauth,
    ...infra.urls,
    publicUrl: config.publicUrl,
    store: infra.store,
    logger,
    // Without a chat there is nobody to tell.
    reply: chat?.reply ?? null,
    ...(chat?.onLinked ? { onLinked: chat.onLinked } : {}),
    // A login's link expires on the clock `/mq login` started it on.
    now: infra.now,
    ...(chat?.names ? { slackNames: chat.names } : {}),
  });
  return { handlers: [handler] };
}

/** The GitHub sign-in URL for a state, which `/mq login` answers with; null when identity linking is off. */
export function identityLoginUrl(
  infra: Pick<Infrastructure, "config" | "urls">,
): ((state: string) => string) | null {
  const { config } = infra;
  const oauth = config.oauth;
  if (!oauth) return null;
  const options = { clientId: oauth.clientId, webUrl: infra.urls.webUrl, publicUrl: config.publicUrl };
  return (state) => loginUrl(options, state);
}
