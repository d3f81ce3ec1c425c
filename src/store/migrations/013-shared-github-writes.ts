import type { Migration } from "./migration.js";

/**
 * What every replica of one GitHub App shares about its writes to GitHub:
 *
 * - `github_write_pace`, one row per app (docs/commands.md, "Writing to GitHub within its limits"): the
 *   latest write's start, the end of a rate-limit answer's wait, the starts of content-creating writes
 *   within the longest window (JSON, ms), and each replica's writes waiting (JSON), changed in one
 *   transaction holding the row (src/github/write-pace.ts);
 * - `summary_comments`, one row per issue or pull request whose summary comment is known or being
 *   created: its comment id, or the replica creating it and until when (src/github/summary-comment.ts).
 */
export const sharedGitHubWrites: Migration = {
  version: 13,
  name: "shared github writes",
  async up(db, t) {
    await db.schema
      .createTable("github_write_pace")
      .addColumn("app", "text", (c) => c.primaryKey())
      .addColumn("last_start_at", t.time)
      .addColumn("blocked_until", t.time)
      .addColumn("content_starts", t.json, (c) => c.notNull())
      .addColumn("waiting", t.json, (c) => c.notNull())
      .addColumn("updated_at", t.time, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("summary_comments")
      .addColumn("repository_key", "text", (c) => c.notNull())
      .addColumn("repository", "text", (c) => c.notNull())
      .addColumn("issue_number", "integer", (c) => c.notNull())
      .addColumn("comment_id", t.int8)
      .addColumn("claimed_by", "text")
      .addColumn("claimed_until", t.time)
      .addColumn("updated_at", t.time, (c) => c.notNull())
      .addPrimaryKeyConstraint("summary_comments_pkey", ["repository_key", "issue_number"])
      .execute();
    await db.schema
      .createIndex("summary_comments_updated_at")
      .on("summary_comments")
      .column("updated_at")
      .execute();
  },
};
