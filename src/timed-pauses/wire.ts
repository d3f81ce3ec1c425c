import type { Wired } from "../app/service.js";
import type { Logger } from "../logger.js";
import type { Repo } from "../repo.js";
import { ScheduledUnpauser, type ScheduledUnpauserDeps } from "./runner.js";

export interface TimedPausesDeps
  extends Pick<ScheduledUnpauserDeps, "work" | "queues" | "attributePause" | "counter"> {
  /** The notifier reads the repository promptly, as after a GitHub event: the notice follows at once. */
  ring: (repository: Repo) => Promise<void>;
  logger: Logger;
  now: () => Date;
}

/** Timed pauses' ends (src/timed-pauses/runner.ts), on every replica, each end by one. */
export function wireTimedPauses(deps: TimedPausesDeps): Wired & { unpauser: ScheduledUnpauser } {
  const unpauser = new ScheduledUnpauser({
    work: deps.work,
    queues: deps.queues,
    ...(deps.attributePause ? { attributePause: deps.attributePause } : {}),
    afterUnpause: async (repository) => {
      await deps.ring(repository);
    },
    logger: deps.logger.child({ name: "scheduled-unpause" }),
    now: deps.now,
    ...(deps.counter ? { counter: deps.counter } : {}),
  });
  return {
    unpauser,
    services: [{ name: "timed-pauses", start: () => unpauser.start(), stop: () => unpauser.stop() }],
  };
}
