import type { WorkKind } from "../../../work/runner.js";

/** The kind of durable work of the gate's sweep: one item (`all`), run by one replica at a time. */
export const GATE_SWEEP_KIND = "gate-sweep";
/** How often the gate's held gates are swept (those a resume left, those to decide again). */
export const GATE_SWEEP_MS = 15_000;
/** A sweep's claim, renewed while it runs: a replica that dies mid-sweep leaves it to another this much later. */
const SWEEP_LEASE_MS = 30_000;

/**
 * The gate's sweep (GitHubGate.sweep) as durable work: due every `everyMs` on the gates' clock, claimed by
 * one replica (any replica's runner takes it over when that claim lapses); a sweep that failed is
 * counted, told in the log, and the next comes an interval later all the same.
 */
export function gateSweepKind(
  sweep: () => Promise<void>,
  options: { now: () => Date; everyMs?: number },
): WorkKind {
  const everyMs = options.everyMs ?? GATE_SWEEP_MS;
  const next = () => new Date(options.now().getTime() + everyMs);
  return {
    kind: GATE_SWEEP_KIND,
    leaseMs: SWEEP_LEASE_MS,
    backoff: () => everyMs,
    now: options.now,
    standing: { key: "all", dueAt: next },
    run: async () => {
      await sweep();
      return { dueAt: next() };
    },
  };
}
