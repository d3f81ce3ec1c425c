import { sql } from "kysely";
import type { Migration } from "./migration.js";

/**
 * Personal notices (docs/notifications.md, "Personal notices"): each linked Slack user's preferences
 * (on or off, event groups, muted repositories as given, compared by `Repo#key`), and identity links found by GitHub login
 * (a pull request's author), compared case-insensitively as GitHub compares logins. `enabled` is 0 or 1
 * in both dialects. Version 6 is another change's.
 */
export const noticePreferences: Migration = {
  version: 7,
  name: "notice preferences",
  async up(db, t) {
    await db.schema
      .createTable("notice_preferences")
      .addColumn("team_id", "text", (c) => c.notNull())
      .addColumn("slack_user_id", "text", (c) => c.notNull())
      .addColumn("enabled", "integer", (c) => c.notNull())
      .addColumn("groups", t.textList, (c) => c.notNull())
      .addColumn("muted", t.textList, (c) => c.notNull())
      .addColumn("updated_at", t.time, (c) => c.notNull())
      .addPrimaryKeyConstraint("notice_preferences_pkey", ["team_id", "slack_user_id"])
      .execute();
    await db.schema
      .createIndex("identity_links_github_login")
      .on("identity_links")
      .expression(sql`lower(github_login)`)
      .execute();
  },
};
