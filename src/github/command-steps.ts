import type { CommandSteps } from "../commands/ports.js";
import type { Logger } from "../logger.js";
import type { CommandStepStore } from "../store/index.js";

/**
 * The steps of one comment command, kept in the store under its webhook's delivery id
 * (docs/architecture.md, "A command's path"): the replica that takes a half-done command over (its first
 * replica died) reads what was done, and makes only the rest. A step is recorded once made: a replica
 * that dies between making it and recording it (a few milliseconds) leaves it to be made again.
 */
export function storedSteps(
  store: CommandStepStore,
  runId: string,
  log: Logger,
  now: () => Date = () => new Date(),
): CommandSteps {
  return {
    async once<T>(step: string, make: () => Promise<T>): Promise<T> {
      const done = await store.commandStep(runId, step);
      if (done) {
        log.info(
          { step },
          "a step of this command was done by the replica that ran it first: not made again",
        );
        return done.result as T;
      }
      const made = await make();
      try {
        await store.recordCommandStep(runId, step, made ?? null, now());
      } catch (error) {
        log.warn({ err: error, step }, "could not record a step of this command as done");
      }
      return made;
    },
  };
}
