import { sql } from "kysely";
import type { Migration } from "./migration.js";

/**
 * The relayed commands Yardmaster follows until the merge queue answers them (docs/commands.md,
 * "Following the merge queue's answer"): one row per relay, with the merge-queue bot's answer comment
 * once it came, the version of that answer last shown on the surface that asked, and a short lease so
 * that one replica at a time shows it. `relay` is the command core's JSON (what describing the relay
 * again needs), `presentation` the surface's (where it answered). 0 or 1 flags in both dialects.
 */
export const relays: Migration = {
  version: 6,
  name: "relays",
  async up(db, t) {
    await db.schema
      .createTable("relays")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("repository_key", "text", (c) => c.notNull())
      .addColumn("repository", "text", (c) => c.notNull())
      .addColumn("pull_request", t.int8, (c) => c.notNull())
      .addColumn("command_name", "text", (c) => c.notNull())
      .addColumn("surface", "text", (c) => c.notNull().check(sql`surface IN ('github', 'slack')`))
      .addColumn("relayed_at", t.time, (c) => c.notNull())
      .addColumn("deadline", t.time, (c) => c.notNull())
      .addColumn("relay", t.json, (c) => c.notNull())
      .addColumn("presentation", t.json)
      .addColumn("answer_comment_id", t.int8)
      .addColumn("answer_body", "text")
      .addColumn("answer_url", "text")
      .addColumn("answer_at", t.time)
      .addColumn("answer_version", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("applied_version", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("superseded", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("apply_owner", "text")
      .addColumn("apply_until", t.time)
      .execute();
    await db.schema
      .createIndex("relays_pull_request")
      .on("relays")
      .columns(["repository_key", "pull_request"])
      .execute();
  },
};
