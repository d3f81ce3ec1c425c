import type { Service } from "../../../app/service.js";
import type { Logger } from "../../../logger.js";
import { Periodic } from "../../../periodic.js";
import type { GitHubGate } from "./gate.js";

/** How often each replica sweeps the gate's claims and held gates. */
export const GATE_SWEEP_MS = 15_000;

/** The gate's sweep (GitHubGate.sweep) as a background service of the app. */
export function gateSweepService(
  gate: Pick<GitHubGate, "sweep">,
  logger: Logger,
  everyMs: number = GATE_SWEEP_MS,
): Service {
  const sweeps = new Periodic(
    () => gate.sweep(),
    everyMs,
    (error) => logger.warn({ err: error }, "could not sweep the gate checks"),
  );
  return { name: "gate", start: () => sweeps.start(), stop: () => sweeps.stop() };
}
