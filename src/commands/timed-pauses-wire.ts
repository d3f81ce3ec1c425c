import type { Wired } from "../app/service.js";
import type { Logger } from "../logger.js";
import type { Repo } from "../repo.js";
import { ScheduledUnpauser, type ScheduledUnpauserDeps } from "./scheduled-unpause.js";

export interface TimedPausesDeps
  extends Pick<ScheduledUnpauserDeps, "claims" | "queues" | "attributePause" | "owner" | "counter"> {
  /** The notifier reads the repository promptly, as after a GitHub event: the notice follows at once. */
  ring: (repository: Repo) => Promise<void>;
  logger: Logger;
  now: () => Date;
  /** How often each replica looks for timed pauses to end; default the unpauser's. */
  intervalMs: number | undefined;
}

/** Timed pauses' ends (src/commands/scheduled-unpause.ts), on every replica, each end by one. */
export function wireTimedPauses(deps: TimedPausesDeps): Wired & { unpauser: ScheduledUnpauser } {
  const unpauser = new ScheduledUnpauser({
    claims: deps.claims,
    queues: deps.queues,
    ...(deps.attributePause ? { attributePause: deps.attributePause } : {}),
    afterUnpause: async (repository) => {
      await deps.ring(repository);
    },
    owner: deps.owner,
    logger: deps.logger.child({ name: "scheduled-unpause" }),
    now: deps.now,
    ...(deps.counter ? { counter: deps.counter } : {}),
    ...(deps.intervalMs ? { intervalMs: deps.intervalMs } : {}),
  });
  return {
    unpauser,
    services: [{ name: "timed-pauses", start: () => unpauser.start(), stop: () => unpauser.stop() }],
  };
}
