import type { Migration } from "./migration.js";

/**
 * Who made a freeze, kept on its window's steps (`freeze_steps.created_by` and `surface`, as on
 * `freezes`): `unfreeze` removes the freeze while a window in progress still ends later, and its end
 * resumes the queue in that person's name. Nullable: steps made before this migration have none (their
 * end reads the person from the pause's reason), and an older build, which does not name them, still
 * inserts steps.
 */
export const freezeStepSetters: Migration = {
  version: 34,
  name: "freeze step setters",
  async up(db) {
    await db.schema.alterTable("freeze_steps").addColumn("created_by", "text").execute();
    await db.schema.alterTable("freeze_steps").addColumn("surface", "text").execute();
  },
};
