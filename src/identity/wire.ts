import type { Infrastructure } from "../app/infrastructure.js";
import type { Wired } from "../app/service.js";
import type { HomeTab } from "../slack/home/home-tab.js";
import { slackNamesFromWebApi } from "../slack/names.js";
import { slackResponseUrlCheck } from "../slack/response-url.js";
import { loginUrl, oauthCallbackHandler } from "./linking.js";

/** Identity linking (`/mq login`): GitHub's OAuth callback, which links a Slack user to their login. */
export function wireIdentity(
  infra: Pick<Infrastructure, "config" | "logger" | "store" | "urls" | "now">,
  home: HomeTab | null,
): Wired {
  const { config, logger } = infra;
  if (!config.oauth) return {};
  const slack = config.slack;
  const handler = oauthCallbackHandler({
    ...config.oauth,
    ...infra.urls,
    publicUrl: config.publicUrl,
    store: infra.store,
    logger,
    // Without Slack there is no response_url to tell.
    isSlackResponseUrl: slack ? slackResponseUrlCheck(slack.apiUrl) : () => false,
    onLinked: (person) => home?.refreshSoon(person),
    // A login's link expires on the clock `/mq login` started it on.
    now: infra.now,
    ...(slack
      ? { slackNames: slackNamesFromWebApi({ token: slack.botToken, apiUrl: slack.apiUrl, logger }) }
      : {}),
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
