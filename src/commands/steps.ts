import { createHash, randomUUID } from "node:crypto";
import type { CommandStepStore } from "../core/record-ports.js";
import type { Logger } from "../logger.js";
import type { CommandSteps } from "./ports.js";

/**
 * The steps of one comment command, kept in the store under its webhook's delivery id
 * (docs/architecture.md, "A command's path"): the replica that takes a half-done command over (its first
 * replica died) reads what was done, and makes only the rest. A step is recorded once made; one whose
 * result can be found again (`find`) is recorded as begun before it is made, and a run that finds it
 * begun and not done looks for it first. A step without `find` made by a replica that died before
 * recording it (a few milliseconds) is made again: each such step is one that changes nothing the
 * second time (docs/architecture.md lists them).
 */
export function storedSteps(
  store: CommandStepStore,
  runId: string,
  log: Logger,
  now: () => Date = () => new Date(),
): CommandSteps {
  const record = async (step: string, made: unknown) => {
    try {
      await store.recordCommandStep(runId, step, made ?? null, now());
    } catch (error) {
      log.warn({ err: error, step }, "could not record a step of this command as done");
    }
  };
  return {
    async once<T>(step: string, make: () => Promise<T>, find?: () => Promise<T | null>): Promise<T> {
      const done = await store.commandStep(runId, step);
      if (done) {
        log.info(
          { step },
          "a step of this command was done by the replica that ran it first: not made again",
        );
        return done.result as T;
      }
      if (find) {
        if (await store.commandStepBegun(runId, step)) {
          const found = await find();
          if (found !== null) {
            log.info(
              { step },
              "a step of this command begun by the replica that ran it first was found made",
            );
            await record(step, found);
            return found;
          }
        } else {
          await store.beginCommandStep(runId, step, now());
        }
      }
      const made = await make();
      await record(step, made);
      return made;
    },
    key: (step) => stepKey(runId, step),
    forget: (step) => store.forgetCommandStep(runId, step),
  };
}

/**
 * The steps of a command run once (a Slack command: its surface runs it once, by its signature or
 * event id): every step is made, nothing is recorded, and its keys are this run's alone.
 */
export function unrecordedSteps(): CommandSteps {
  const runId = randomUUID();
  return {
    once: (_step, make) => make(),
    key: (step) => stepKey(runId, step),
    forget: async () => {},
  };
}

/** The steps a command's ports give, or, without any, steps made once each and recorded nowhere. */
export function stepsOf(ports: { steps?: CommandSteps }): CommandSteps {
  return ports.steps ?? unrecordedSteps();
}

/** A run's step as a UUID (version 8, from SHA-256): the same for the same run and step. */
function stepKey(runId: string, step: string): string {
  const hex = createHash("sha256").update(`${runId}\n${step}`).digest("hex");
  const variant = ((Number.parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A step's key as a hidden mark in a comment's body (an HTML comment: GitHub does not show it). */
export function stepMarker(key: string): string {
  return `<!-- yardmaster:step ${key} -->`;
}
