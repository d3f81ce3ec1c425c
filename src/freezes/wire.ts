import type { Wired } from "../app/service.js";
import type { Subscription } from "../core/records.js";
import type { Logger } from "../logger.js";
import { webApiDigestPoster } from "../notifier/slack-poster.js";
import type { Repo } from "../repo.js";
import { slackFreezeAnnouncer } from "./announce.js";
import { FreezeRunner, type FreezeRunnerDeps } from "./runner.js";

export interface FreezesDeps
  extends Pick<FreezeRunnerDeps, "store" | "queues" | "attributePause" | "owner" | "creatorMayFreeze"> {
  /** A repository's subscriptions: where its freezes are announced. */
  subscriptions: (repository: Repo) => Promise<readonly Pick<Subscription, "channelId">[]>;
  /** Slack, to announce in; null: nothing is announced. */
  slack: { botToken: string; apiUrl: string } | null;
  /** After a pause or resume: the notifier reads the repository promptly. */
  ring: (repository: Repo) => Promise<void>;
  logger: Logger;
  now: () => Date;
  /** How often each replica looks at the freezes; default the runner's. */
  intervalMs: number | undefined;
}

/** Freeze windows (src/freezes), applied on every replica, each step by one. */
export function wireFreezes(deps: FreezesDeps): Wired & { runner: FreezeRunner } {
  const { slack } = deps;
  const runner = new FreezeRunner({
    store: deps.store,
    queues: deps.queues,
    ...(deps.attributePause ? { attributePause: deps.attributePause } : {}),
    ...(deps.creatorMayFreeze ? { creatorMayFreeze: deps.creatorMayFreeze } : {}),
    ...(slack
      ? {
          announce: slackFreezeAnnouncer({
            channels: async (repository) => (await deps.subscriptions(repository)).map((s) => s.channelId),
            ...keyedPoster(slack),
            logger: deps.logger.child({ name: "freezes" }),
            now: deps.now,
          }),
        }
      : {}),
    afterChange: async (repository) => {
      await deps.ring(repository);
    },
    owner: deps.owner,
    logger: deps.logger.child({ name: "freezes" }),
    now: deps.now,
    ...(deps.intervalMs ? { intervalMs: deps.intervalMs } : {}),
  });
  return { runner, services: [{ name: "freezes", start: () => runner.start(), stop: () => runner.stop() }] };
}

/** Posts a notice with its key in the message's metadata, and finds one posted. */
function keyedPoster(slack: { botToken: string; apiUrl: string }) {
  const poster = webApiDigestPoster({ token: slack.botToken, apiUrl: slack.apiUrl });
  return {
    post: poster.post,
    find: (channel: string, key: string, oldest: Date) => poster.find(channel, key, oldest),
  };
}
