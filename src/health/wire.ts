import type { Infrastructure } from "../app/infrastructure.js";
import type { Service, Wired } from "../app/service.js";
import type { QueueNormalFigures } from "../commands/ports.js";
import type { MergeQueues } from "../core/merge-queue.js";
import { channelTurns, pacedDigestPoster } from "../notifier/channel-turns.js";
import type { PostPace } from "../notifier/slack-holds.js";
import { webApiDigestPoster, webApiPoster } from "../notifier/slack-poster.js";
import { postPace, slackPosterOptions } from "../notifier/slack-settings.js";
import type { Repo } from "../repo.js";
import type { QueueHistory, Store } from "../store/index.js";
import { type AlertPoster, HealthEvaluator, type HealthSettings, NORMAL_KINDS } from "./evaluator.js";
import { NORMAL_WINDOW_MS, queueNormal } from "./thresholds.js";

export interface HealthWireDeps {
  infra: Pick<Infrastructure, "config" | "options" | "logger" | "store" | "owner" | "urls" | "now">;
  slack: { botToken: string; apiUrl: string };
  /** Read when a stalled or slow-checks alert opens, to name what holds the head. */
  queues?: Pick<MergeQueues, "for">;
}

/** The health alerts (src/health): the evaluator on Slack's Web API, at each channel's pace. */
export function wireHealth({ infra, slack, queues }: HealthWireDeps): Wired & { evaluator: HealthEvaluator } {
  const { options } = infra;
  const poster = slackPosterOptions(slack, options);
  const evaluator = new HealthEvaluator({
    store: infra.store,
    poster: pacedPoster(webApiDigestPoster(poster), webApiPoster(poster), {
      store: infra.store,
      pace: postPace(options),
      now: infra.now,
    }),
    settings: infra.config.health,
    githubWebUrl: infra.urls.webUrl,
    owner: infra.owner,
    logger: infra.logger.child({ name: "health" }),
    now: infra.now,
    ...(queues ? { queues } : {}),
  });
  // Started with the poller: with `autoPoll` off (tests), it judges when a test ticks it.
  const service: Service = {
    name: "health",
    start: () => {
      if (options.autoPoll !== false) evaluator.start();
    },
    stop: () => evaluator.stop(),
  };
  return { evaluator, services: [service] };
}

/** Alerts post at their channel's turn (src/notifier/channel-turns.ts); edits are not paced per channel. */
function pacedPoster(
  top: ReturnType<typeof webApiDigestPoster>,
  edits: ReturnType<typeof webApiPoster>,
  deps: { store: Store; pace: PostPace | false; now: () => Date },
): AlertPoster {
  const paced = pacedDigestPoster(top, channelTurns(deps));
  return {
    post: (channel, message, key) =>
      paced.post({ channel, text: message.text, blocks: message.blocks, key: `health:${key}` }),
    async update(channel, ts, message) {
      await edits.update({ channel, ts, text: message.text, blocks: message.blocks });
    },
  };
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
