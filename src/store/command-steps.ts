import { type StoreContext, time } from "./query-helpers.js";

// A command's steps (docs/architecture.md, "A command's path"): each outside effect of a comment
// command, recorded as done with what it made, under its run's id (the webhook's delivery id). A
// replica that takes a half-done command over reads them and does not make them again.

/** A run's steps are kept this long after they were done (as long as its delivery is remembered). */
export const COMMAND_STEP_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

export interface CommandStepStore {
  /** What a step of a run made when it was done (the JSON recorded), or null when it was not. */
  commandStep(runId: string, step: string): Promise<{ result: unknown } | null>;
  /**
   * Records a step of a run as done at `now`, with what it made (JSON). The first record of a step
   * stays: a second one changes nothing and returns false. Steps done more than
   * COMMAND_STEP_RETENTION_MS before are pruned now and then.
   */
  recordCommandStep(runId: string, step: string, result: unknown, now: Date): Promise<boolean>;
}

export function kyselyCommandSteps(ctx: StoreContext): CommandStepStore {
  const { db } = ctx;
  return {
    async commandStep(runId, step) {
      const row = await db
        .selectFrom("command_steps")
        .select("result")
        .where("run_id", "=", runId)
        .where("step", "=", step)
        .executeTakeFirst();
      return row ? { result: ctx.v.readJson(row.result) } : null;
    },
    async recordCommandStep(runId, step, result, now) {
      await ctx.pruneIfDue("command_steps", now, async () => {
        const before = time(new Date(now.getTime() - COMMAND_STEP_RETENTION_MS));
        await db.deleteFrom("command_steps").where("done_at", "<", before).execute();
      });
      const row = await db
        .insertInto("command_steps")
        .values({ run_id: runId, step, result: JSON.stringify(result ?? null), done_at: time(now) })
        .onConflict((oc) => oc.columns(["run_id", "step"]).doNothing())
        .returning("step")
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}
