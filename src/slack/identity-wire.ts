import type { Infrastructure } from "../app/infrastructure.js";
import type { Wired } from "../app/service.js";
import type { HomeTab } from "./home-tab.js";
import { oauthCallbackHandler } from "./identity-linking.js";
import { slackNamesFromWebApi } from "./names.js";

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
    onLinked: (person) => home?.refreshSoon(person),
    // A login's link expires on the clock `/mq login` started it on.
    now: infra.now,
    ...(slack
      ? { slackNames: slackNamesFromWebApi({ token: slack.botToken, apiUrl: slack.apiUrl, logger }) }
      : {}),
  });
  return { handlers: [handler] };
}
