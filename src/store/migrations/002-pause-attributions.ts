import { sql } from "kysely";
import type { Migration } from "./migration.js";

export const pauseAttributions: Migration = {
  version: 2,
  name: "pause attributions",
  async up(db, t) {
    await db.schema
      .createTable("pause_attributions")
      .addColumn("repository_key", "text", (c) => c.primaryKey())
      .addColumn("repository", "text", (c) => c.notNull())
      .addColumn("action", "text", (c) => c.notNull().check(sql`action IN ('pause', 'unpause')`))
      .addColumn("reason", "text")
      .addColumn("actor", "text", (c) => c.notNull())
      .addColumn("surface", "text", (c) => c.notNull())
      .addColumn("at", t.time, (c) => c.notNull())
      .execute();
  },
};
