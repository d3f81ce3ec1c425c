import type { Infrastructure } from "../app/infrastructure.js";
import type { Wired } from "../app/service.js";
import type { QueueNormalFigures } from "../commands/ports.js";
import type { MergeQueues } from "../core/merge-queue.js";
import type { Repo } from "../repo.js";
import type { QueueHistory } from "../store/index.js";
import { type AlertPoster, HealthEvaluator, type HealthSettings, NORMAL_KINDS } from "./evaluator.js";
import { HealthPasses } from "./passes.js";
import { NORMAL_WINDOW_MS, queueNormal } from "./thresholds.js";

export interface HealthWireDeps {
  infra: Pick<Infrastructure, "config" | "options" | "logger" | "store" | "owner" | "urls" | "now" | "work">;
  /**
   * Where alerts are posted and edited: the chat surface lays them out and posts them at each channel's
   * pace (src/slack/chat-posters.ts, given by the composition root).
   */
  poster: AlertPoster;
  /** Read when a stalled or slow-checks alert opens, to name what holds the head. */
  queues?: Pick<MergeQueues, "for">;
}

/**
 * The health alerts (src/health): the evaluator, its alerts said through the chat surface's poster, its
 * passes durable work of this replica's runner (passes.ts).
 */
export function wireHealth({
  infra,
  poster,
  queues,
}: HealthWireDeps): Wired & { evaluator: HealthEvaluator } {
  const { options } = infra;
  const logger = infra.logger.child({ name: "health" });
  const evaluator = new HealthEvaluator({
    store: infra.store,
    poster,
    settings: infra.config.health,
    githubWebUrl: infra.urls.webUrl,
    owner: infra.owner,
    logger,
    now: infra.now,
    ...(queues ? { queues } : {}),
  });
  const passes = new HealthPasses({ evaluator, work: infra.work, now: infra.now });
  // Started with the poller: with `autoPoll` off (tests), it judges when a test ticks it.
  return { evaluator, services: options.autoPoll !== false ? [passes] : [] };
}

/** The normal `/mq stats` shows: the same p90s and thresholds the alerts judge on, from the history. */
export function healthNormal(deps: {
  history: Pick<QueueHistory, "readQueueEvents">;
  settings: HealthSettings;
  now: () => Date;
}): (repo: Repo) => Promise<QueueNormalFigures> {
  return async (repo) => {
    const now = deps.now();
    const events = await deps.history.readQueueEvents(
      repo,
      { from: new Date(now.getTime() - NORMAL_WINDOW_MS), to: new Date(now.getTime() + 1) },
      NORMAL_KINDS,
    );
    return queueNormal(events, deps.settings.stallMinutes);
  };
}
