import type { Backends } from "../backends/wire.js";
import type { RunDeps } from "../commands/run.js";
import type { FlakeShieldSetting, PauseAttribution, ScheduledUnpause } from "../core/records.js";
import { healthNormal } from "../health/wire.js";
import type { Repo } from "../repo.js";
import { shieldFigures } from "../shield/figures.js";
import type { Store } from "../store/index.js";
import type { Infrastructure } from "./infrastructure.js";

/** What every command needs, whichever surface runs it; each surface adds its own (GitHub, Slack's). */
export type CommandPorts = Omit<RunDeps, "github">;

export interface CommandPortsDeps
  extends Pick<Infrastructure, "config" | "options" | "metrics" | "logger" | "now"> {
  /** Woken for a timed pause's end (durable work, src/work). */
  work?: Pick<Infrastructure["work"], "wakeAt">;
  store: Store;
  backends: Backends;
  /** Whether relayed commands are followed (src/relays/follower.ts). */
  followsRelays: boolean;
}

/** The command core's ports (src/commands/ports.ts) on the store and the merge-queue backends. */
export function commandPorts(
  deps: CommandPortsDeps,
): CommandPorts & Required<Pick<CommandPorts, "statsDays" | "statsEvents" | "attributePause">> {
  const { config, store, backends, now } = deps;
  return {
    queues: backends.queues,
    statsEvents: backends.statsEvents,
    permissions: config.permissions,
    commandPrefix: config.mergeQueue.commandPrefix,
    ...(deps.followsRelays ? { relayFollow: { store, seconds: config.mergeQueue.followSeconds } } : {}),
    attributePause: (attribution: PauseAttribution) => store.putPauseAttribution(attribution),
    attributeQueue: (repository: Repo, number: number, by: { login: string; at: Date }) =>
      store.rememberQueueRequest(repository, number, by),
    ...(backends.pushesEvents
      ? {
          attributeDequeue: (repository: Repo, number: number, by: { login: string; at: Date }) =>
            store.rememberRemoval(repository, number, by),
        }
      : {}),
    statsDays: {
      get: (repo, days) => store.getStatsDays(repo, days),
      // Stamped (and old days pruned) on the clock the days are reckoned on.
      put: (repo, day, facts) => store.putStatsDay(repo, day, facts, now()),
    },
    pauseAttribution: (repository: Repo) => store.getPauseAttribution(repository),
    unpauseSchedule: {
      now,
      put: async (unpause: ScheduledUnpause) => {
        await store.putScheduledUnpause(unpause);
        deps.work?.wakeAt(unpause.resumesAt);
      },
      cancel: (repository: Repo) => store.deleteScheduledUnpause(repository),
    },
    freezes: { store, now },
    queueNormal: healthNormal({ history: store, settings: config.health, now }),
    // The flake shield acts on the notifier's removals through the GitHub App: both are needed.
    ...(config.slack && config.github
      ? {
          flakeShield: {
            get: (repository: Repo) => store.getFlakeShield(repository),
            set: (setting: FlakeShieldSetting) => store.putFlakeShield(setting),
            figures: (repository: Repo, period: { from: Date; to: Date }) =>
              shieldFigures(store, repository, period, now()),
            heard: async (repository: Repo) => (await store.listSubscriptions({ repository })).length > 0,
          },
        }
      : {}),
    metrics: deps.metrics,
    logger: deps.logger,
    now: deps.options.now,
  };
}
