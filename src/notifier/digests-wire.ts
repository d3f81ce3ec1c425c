import type { Infrastructure } from "../app/infrastructure.js";
import type { Service, Wired } from "../app/service.js";
import type { StatsDays, StatsEvents } from "../commands/ports.js";
import { renderResultMessage } from "../slack/render-blocks.js";
import { Digests } from "./digests.js";
import { webApiDigestPoster } from "./slack-poster.js";

export interface DigestsWireDeps {
  infra: Pick<Infrastructure, "config" | "options" | "logger" | "store" | "owner" | "urls">;
  slack: { botToken: string; apiUrl: string };
  /** What `stats` reads: Mergify's log, or the history of GitHub's merge queue; and the days kept. */
  statsEvents: StatsEvents;
  statsDays: StatsDays;
}

/** Weekly digests (src/notifier/digests.ts), posted once whatever the replicas. */
export function wireDigests({
  infra,
  slack,
  statsEvents,
  statsDays,
}: DigestsWireDeps): Wired & { digests: Digests } {
  const { options } = infra;
  const digests = new Digests({
    store: infra.store,
    statsEvents,
    statsDays,
    poster: webApiDigestPoster({
      token: slack.botToken,
      apiUrl: slack.apiUrl,
      ...(options.slackBot?.retries !== undefined ? { retries: options.slackBot.retries } : {}),
    }),
    render: (result, now) => renderResultMessage(result, { now, githubWebUrl: infra.urls.webUrl }),
    timeZone: infra.config.digestTimeZone,
    owner: infra.owner,
    logger: infra.logger.child({ name: "digests" }),
    now: options.now,
  });
  // Started with the poller: with `autoPoll` off (tests), neither runs by itself.
  const service: Service = {
    name: "digests",
    start: () => {
      if (options.autoPoll !== false) digests.start();
    },
    stop: () => digests.stop(),
  };
  return { digests, services: [service] };
}
