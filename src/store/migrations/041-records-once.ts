import { sql } from "kysely";
import type { Migration } from "./migration.js";

/**
 * The features' own claims move onto durable work (docs/architecture.md, "Durable work"). What an
 * upgrade needs is copied in; the old columns and tables are kept, not dropped, for a rolling upgrade's
 * older replicas (a later release may drop them):
 *
 * - Summary comments' creations (`summary_comments.claimed_by`/`claimed_until`, a row with no comment
 *   id yet): a claim in force is copied as a once-claim of scope `summary-comment`, key
 *   `<repository key>#<issue>`, so a creation under way is not doubled by an upgraded replica. Recorded
 *   comment ids stay in `summary_comments`.
 */
export const recordsOnce: Migration = {
  version: 41,
  name: "records once",
  async up(db) {
    await sql`INSERT INTO once_claims (scope, key, first_at, claimed_by, claimed_until, done_at, result)
      SELECT 'summary-comment', repository_key || '#' || CAST(issue_number AS TEXT), updated_at,
             claimed_by, claimed_until, NULL, NULL
      FROM summary_comments
      WHERE comment_id IS NULL AND claimed_by IS NOT NULL AND claimed_until IS NOT NULL`.execute(db);
  },
};
