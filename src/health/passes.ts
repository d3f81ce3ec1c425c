import type { WorkRunner } from "../work/runner.js";
import type { HealthEvaluator } from "./evaluator.js";

/**
 * The kind of durable work of the health passes: one item (`all`), due every pass interval. One item
 * for every repository, not one per repository: a pass reads the subscriptions once, closes the alerts
 * of repositories no channel follows for their health any more and takes over ended alerts' edits, all
 * of which look across repositories; an item per repository would need its own sweep to make and drop
 * items as subscriptions change.
 */
export const HEALTH_PASS_KIND = "health-pass";
const KEY = "all";
/** How often the queue's health is judged. */
export const HEALTH_PASS_MS = 30_000;

export interface HealthPassesDeps {
  evaluator: Pick<HealthEvaluator, "tick">;
  /** This replica's runner of durable work, which runs the passes. */
  work: Pick<WorkRunner, "register" | "resume" | "pause">;
  now: () => Date;
  /** Default HEALTH_PASS_MS. */
  intervalMs?: number;
}

/**
 * The health passes (docs/architecture.md, "Durable work"): each pass is run by one replica, which claims
 * the item for an interval (renewed while the pass runs); any replica's runner takes it over when that
 * claim lapses (its replica died). A pass that failed is tried again an interval later, as the next.
 * The item is made, unless there is one, an interval after a replica starts (the runner's standing
 * item). The reminders and ended alerts' edits within a pass stay once-claims of their own (evaluator.ts).
 */
export class HealthPasses {
  readonly name = "health";

  constructor(private readonly deps: HealthPassesDeps) {
    const intervalMs = deps.intervalMs ?? HEALTH_PASS_MS;
    const next = () => new Date(deps.now().getTime() + intervalMs);
    deps.work.register({
      kind: HEALTH_PASS_KIND,
      leaseMs: Math.max(10_000, intervalMs),
      backoff: () => intervalMs,
      standing: { key: KEY, dueAt: next },
      run: async () => {
        await deps.evaluator.tick();
        return { dueAt: next() };
      },
    });
  }

  /** The passes from now on: the first an interval from now, unless the item is due already (kept). */
  start(): void {
    this.deps.work.resume(HEALTH_PASS_KIND);
  }

  async stop(): Promise<void> {
    await this.deps.work.pause(HEALTH_PASS_KIND);
  }
}
