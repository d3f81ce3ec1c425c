import type { Infrastructure } from "../app/infrastructure.js";
import type { Service, Wired } from "../app/service.js";
import type { FlakeShieldPorts } from "../commands/ports.js";
import type { StatsDays, StatsEvents } from "../history/stats-reader.js";
import { channelTurns, pacedDigestPoster } from "../notifier/channel-turns.js";
import { webApiDigestPoster } from "../notifier/slack-poster.js";
import { postPace, slackPosterOptions } from "../notifier/slack-settings.js";
import { renderResultMessage } from "../slack/render-blocks.js";
import { Digests } from "./digests.js";

export interface DigestsWireDeps {
  infra: Pick<Infrastructure, "config" | "options" | "logger" | "store" | "owner" | "urls" | "now">;
  slack: { botToken: string; apiUrl: string };
  /** What `stats` reads: Mergify's log, or the history of GitHub's merge queue; and the days kept. */
  statsEvents: StatsEvents;
  statsDays: StatsDays;
  /** The flake shield's figures, where it can act. */
  shieldFigures?: FlakeShieldPorts["figures"] | undefined;
}

/** Weekly digests (src/digests/digests.ts), posted once whatever the replicas. */
export function wireDigests({
  infra,
  slack,
  statsEvents,
  statsDays,
  shieldFigures,
}: DigestsWireDeps): Wired & { digests: Digests } {
  const { options } = infra;
  const digests = new Digests({
    store: infra.store,
    statsEvents,
    statsDays,
    ...(shieldFigures ? { shieldFigures } : {}),
    // At the channel's pace, shared with the notifier: a digest waits behind a burst of notices.
    poster: pacedDigestPoster(
      webApiDigestPoster(slackPosterOptions(slack, options)),
      channelTurns({ store: infra.store, pace: postPace(options), now: infra.now }),
    ),
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
