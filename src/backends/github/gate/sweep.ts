import type { Service } from "../../../app/service.js";
import type { Logger } from "../../../logger.js";
import { Periodic } from "../../../periodic.js";
import type { GitHubGate } from "./gate.js";

/** How often each replica sweeps the gate's held gates (those a resume left, those to decide again). */
export const GATE_SWEEP_MS = 15_000;

/** The gate's sweep (GitHubGate.sweep) as a background service of the app. */
export function gateSweepService(
  gate: Pick<GitHubGate, "sweep" | "start" | "stop">,
  logger: Logger,
  everyMs: number = GATE_SWEEP_MS,
): Service {
  const sweeps = new Periodic(
    () => gate.sweep(),
    everyMs,
    (error) => logger.warn({ err: error }, "could not sweep the gate checks"),
  );
  // The runner makes and completes the gates left to this replica (lapsed claims, retries) meanwhile.
  return {
    name: "gate",
    start: () => {
      gate.start();
      sweeps.start();
    },
    stop: async () => {
      await sweeps.stop();
      await gate.stop();
    },
  };
}
