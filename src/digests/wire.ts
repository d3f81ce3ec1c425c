import type { Infrastructure } from "../app/infrastructure.js";
import type { Service, Wired } from "../app/service.js";
import type { FlakeShieldPorts } from "../commands/ports.js";
import type { StatsDays, StatsEvents } from "../history/stats-reader.js";
import { type DigestPoster, Digests } from "./digests.js";

export interface DigestsWireDeps {
  infra: Pick<Infrastructure, "config" | "options" | "logger" | "store" | "owner" | "urls" | "now" | "work">;
  /**
   * The chat surface's poster: a digest's message (the stats result) laid out as `/mq stats` shows it,
   * posted at its channel's pace, shared with the notifier (src/slack/chat-posters.ts, given by the
   * composition root).
   */
  poster: DigestPoster;
  /** What `stats` reads: Mergify's log, or the history of GitHub's merge queue; and the days kept. */
  statsEvents: StatsEvents;
  statsDays: StatsDays;
  /** The flake shield's figures, where it can act. */
  shieldFigures?: FlakeShieldPorts["figures"] | undefined;
}

/** Weekly digests (src/digests/digests.ts), posted once whatever the replicas. */
export function wireDigests({
  infra,
  poster,
  statsEvents,
  statsDays,
  shieldFigures,
}: DigestsWireDeps): Wired & { digests: Digests } {
  const { options } = infra;
  const digests = new Digests({
    store: infra.store,
    work: infra.work,
    statsEvents,
    statsDays,
    ...(shieldFigures ? { shieldFigures } : {}),
    poster,
    githubWebUrl: infra.urls.webUrl,
    timeZone: infra.config.digestTimeZone,
    owner: infra.owner,
    logger: infra.logger.child({ name: "digests" }),
    now: options.now,
  });
  // Started with the poller: with `autoPoll` off (tests), neither runs by itself (runDue runs it by hand).
  const service: Service = {
    name: "digests",
    start: () => {
      if (options.autoPoll !== false) digests.start();
    },
    stop: () => digests.stop(),
  };
  return { digests, services: [service] };
}
