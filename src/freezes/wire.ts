import type { Wired } from "../app/service.js";
import type { Subscription } from "../core/records.js";
import type { Logger } from "../logger.js";
import type { Repo } from "../repo.js";
import { freezeAnnouncer } from "./announce.js";
import { FreezeRunner, type FreezeRunnerDeps } from "./runner.js";

export interface FreezesDeps
  extends Pick<FreezeRunnerDeps, "store" | "work" | "queues" | "attributePause" | "creatorMayFreeze"> {
  /** A repository's subscriptions: where its freezes are announced. */
  subscriptions: (repository: Repo) => Promise<readonly Pick<Subscription, "channelId">[]>;
  /**
   * Where its notices are posted, each with its key, and found again by it (the chat surface, built by the
   * composition root: src/slack/chat-posters.ts); null: nothing is announced.
   */
  notices: Pick<Parameters<typeof freezeAnnouncer>[0], "post" | "find"> | null;
  /** After a pause or resume: the notifier reads the repository promptly. */
  ring: (repository: Repo) => Promise<void>;
  logger: Logger;
  now: () => Date;
}

/** Freeze windows (src/freezes): their steps are durable work, each run by one replica. */
export function wireFreezes(deps: FreezesDeps): Wired & { runner: FreezeRunner } {
  const { notices } = deps;
  const runner = new FreezeRunner({
    store: deps.store,
    work: deps.work,
    queues: deps.queues,
    ...(deps.attributePause ? { attributePause: deps.attributePause } : {}),
    ...(deps.creatorMayFreeze ? { creatorMayFreeze: deps.creatorMayFreeze } : {}),
    ...(notices
      ? {
          announce: freezeAnnouncer({
            channels: async (repository) => (await deps.subscriptions(repository)).map((s) => s.channelId),
            post: notices.post,
            ...(notices.find ? { find: notices.find } : {}),
            logger: deps.logger.child({ name: "freezes" }),
            now: deps.now,
          }),
        }
      : {}),
    afterChange: async (repository) => {
      await deps.ring(repository);
    },
    logger: deps.logger.child({ name: "freezes" }),
    now: deps.now,
  });
  return { runner, services: [{ name: "freezes", start: () => runner.start(), stop: () => runner.stop() }] };
}
