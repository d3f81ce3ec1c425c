import type { QueueNormalFigures } from "../commands/ports.js";
import type { Config } from "../load-config.js";
import type { Logger } from "../logger.js";
import { type PostPace, SlackPace } from "../notifier/slack-holds.js";
import { webApiDigestPoster, webApiPoster } from "../notifier/slack-poster.js";
import type { Repo } from "../repo.js";
import type { QueueHistory, Store } from "../store/index.js";
import { type AlertPoster, HealthEvaluator, type HealthSettings, NORMAL_KINDS } from "./evaluator.js";
import { NORMAL_WINDOW_MS, queueNormal } from "./thresholds.js";

export interface HealthWiring {
  config: Pick<Config, "slack" | "health">;
  githubWebUrl: string;
  store: Store;
  owner: string;
  logger: Logger;
  now: () => Date;
  /** Each channel's posts at Slack's pace; false: as fast as Slack answers (tests on a moved clock). */
  pace: PostPace | false;
  /** Slack Web API retries (tests: 0). */
  retries?: number;
  /** false: no pass by itself (tests call `tick()`). */
  autoStart: boolean;
}

/** The queue's health (src/health), as the composition root starts and stops it. */
export interface HealthService {
  /** null when Slack is off: nowhere to say it. */
  evaluator: HealthEvaluator | null;
  start(): void;
  stop(): Promise<void>;
}

/** The health alerts: the evaluator on Slack's Web API, at each channel's pace. */
export function wireHealth(deps: HealthWiring): HealthService {
  const slack = deps.config.slack;
  if (!slack) return { evaluator: null, start() {}, async stop() {} };
  const options = {
    token: slack.botToken,
    apiUrl: slack.apiUrl,
    ...(deps.retries !== undefined ? { retries: deps.retries } : {}),
  };
  const evaluator = new HealthEvaluator({
    store: deps.store,
    poster: pacedPoster(webApiDigestPoster(options), webApiPoster(options), deps),
    settings: deps.config.health,
    githubWebUrl: deps.githubWebUrl,
    owner: deps.owner,
    logger: deps.logger.child({ name: "health" }),
    now: deps.now,
  });
  return {
    evaluator,
    start() {
      if (deps.autoStart) evaluator.start();
    },
    stop: () => evaluator.stop(),
  };
}

/** The longest an alert waits for its channel's pace before it is posted anyway. */
const MAX_PACE_WAIT_MS = 5_000;

/**
 * Posts at the channel's pace (shared with the notifier, in the store): an alert waits its turn, a few
 * seconds at most.
 */
function pacedPoster(
  top: ReturnType<typeof webApiDigestPoster>,
  edits: ReturnType<typeof webApiPoster>,
  deps: Pick<HealthWiring, "store" | "pace" | "now">,
): AlertPoster {
  const pace = deps.pace ? new SlackPace(deps.store, deps.pace) : null;
  const turn = async (channel: string) => {
    if (!pace) return;
    const caughtUp = await pace.caughtUp(channel);
    const next = pace.nextPostAt(caughtUp, deps.now());
    if (next) {
      const wait = Math.min(MAX_PACE_WAIT_MS, next.getTime() - deps.now().getTime());
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    await pace.posted(channel, caughtUp, deps.now());
  };
  return {
    async post(channel, message, key) {
      await turn(channel);
      return top.post({ channel, text: message.text, blocks: message.blocks, key: `health:${key}` });
    },
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
