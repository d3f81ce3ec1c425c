import type { Logger } from "../logger.js";
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
/** The item not scheduled at the start (the store failed) is scheduled again this much later. */
const SCHEDULE_RETRY_MS = 60_000;
/** How often the queue's health is judged. */
export const HEALTH_PASS_MS = 30_000;

export interface HealthPassesDeps {
  evaluator: Pick<HealthEvaluator, "tick">;
  /** This replica's runner of durable work, which runs the passes. */
  work: Pick<WorkRunner, "register" | "resume" | "pause" | "schedule">;
  now: () => Date;
  logger: Logger;
  /** Default HEALTH_PASS_MS. */
  intervalMs?: number;
}

/**
 * The health passes (docs/architecture.md, "Durable work"): each pass is run by one replica, which claims
 * the item for an interval (renewed while the pass runs); any replica's runner takes it over when that
 * claim lapses (its replica died). A pass that failed is tried again an interval later, as the next.
 * The reminders and ended alerts' edits within a pass stay once-claims of their own (evaluator.ts).
 */
export class HealthPasses {
  readonly name = "health";
  private readonly intervalMs: number;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly deps: HealthPassesDeps) {
    const intervalMs = deps.intervalMs ?? HEALTH_PASS_MS;
    this.intervalMs = intervalMs;
    deps.work.register({
      kind: HEALTH_PASS_KIND,
      leaseMs: Math.max(10_000, intervalMs),
      backoff: () => intervalMs,
      run: async () => {
        await deps.evaluator.tick();
        return { dueAt: new Date(deps.now().getTime() + intervalMs) };
      },
    });
  }

  /** The passes from now on: the first an interval from now, unless the item is due already (kept). */
  start(): void {
    const { work, now, logger } = this.deps;
    this.stopped = false;
    work.resume(HEALTH_PASS_KIND);
    // Scheduled through the runner (it wakes when the item is due); if the store failed, again.
    const schedule = () =>
      work
        .schedule({
          kind: HEALTH_PASS_KIND,
          key: KEY,
          dueAt: new Date(now().getTime() + this.intervalMs),
          when: "absent",
        })
        .catch((error: unknown) => {
          logger.error({ err: error }, "health passes not scheduled: tried again in a minute");
          if (!this.stopped) this.retry = setTimeout(schedule, SCHEDULE_RETRY_MS).unref();
        });
    void schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.deps.work.pause(HEALTH_PASS_KIND);
  }
}
