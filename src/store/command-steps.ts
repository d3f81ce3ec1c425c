import type { CommandStepStore } from "../core/record-ports.js";
import { type StoreContext, time } from "./query-helpers.js";

// A command's steps (docs/architecture.md, "A command's path"): each outside effect of a comment
// command, recorded as done with what it made, under its run's id (the webhook's delivery id), and a
// step whose result can be found again recorded as begun before it is made. A replica that takes a
// half-done command over reads them and does not make them again. The core owns the interface
// (CommandStepStore, src/core/record-ports.ts).
export type { CommandStepStore };

/** A run's steps are kept this long after they were done (as long as its delivery is remembered). */
export const COMMAND_STEP_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

export function kyselyCommandSteps(ctx: StoreContext): CommandStepStore {
  const { db } = ctx;
  const forgotten = (now: Date) => time(new Date(now.getTime() - COMMAND_STEP_RETENTION_MS));
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
        await db.deleteFrom("command_steps").where("done_at", "<", forgotten(now)).execute();
      });
      const row = await db
        .insertInto("command_steps")
        .values({ run_id: runId, step, result: JSON.stringify(result ?? null), done_at: time(now) })
        .onConflict((oc) => oc.columns(["run_id", "step"]).doNothing())
        .returning("step")
        .executeTakeFirst();
      return row !== undefined;
    },
    async beginCommandStep(runId, step, now) {
      await ctx.pruneIfDue("command_step_intents", now, async () => {
        await db.deleteFrom("command_step_intents").where("begun_at", "<", forgotten(now)).execute();
      });
      await db
        .insertInto("command_step_intents")
        .values({ run_id: runId, step, begun_at: time(now) })
        .onConflict((oc) => oc.columns(["run_id", "step"]).doNothing())
        .execute();
    },
    async commandStepBegun(runId, step) {
      const row = await db
        .selectFrom("command_step_intents")
        .select("step")
        .where("run_id", "=", runId)
        .where("step", "=", step)
        .executeTakeFirst();
      return row !== undefined;
    },
    async forgetCommandStep(runId, step) {
      // Done first: a step forgotten half-way is still begun (a later run looks for what it made first).
      await db.deleteFrom("command_steps").where("run_id", "=", runId).where("step", "=", step).execute();
      await db
        .deleteFrom("command_step_intents")
        .where("run_id", "=", runId)
        .where("step", "=", step)
        .execute();
    },
  };
}
