import type { Migration } from "./migration.js";

/**
 * A command's steps begun (`command_step_intents`): a step whose result can be found again (a comment by
 * the hidden marker in its body, a pause in force, a pull request's entry in the queue) is recorded as
 * begun before it is made, so that a replica taking over a command whose replica died between making it
 * and recording it looks for it rather than making it again (docs/architecture.md, "A command's path").
 * A table of its own: an older build, which reads only `command_steps`, never mistakes a step begun for
 * one done.
 */
export const commandStepIntents: Migration = {
  version: 28,
  name: "command step intents",
  async up(db, t) {
    await db.schema
      .createTable("command_step_intents")
      .addColumn("run_id", "text", (c) => c.notNull())
      .addColumn("step", "text", (c) => c.notNull())
      .addColumn("begun_at", t.time, (c) => c.notNull())
      .addPrimaryKeyConstraint("command_step_intents_pkey", ["run_id", "step"])
      .execute();
    await db.schema
      .createIndex("command_step_intents_begun_at")
      .on("command_step_intents")
      .column("begun_at")
      .execute();
  },
};
