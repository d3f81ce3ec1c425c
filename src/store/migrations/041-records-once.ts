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
 * - The flake shield's re-queues (`shield_retries`, kept as their record for the figures): each is
 *   copied as a once-claim of scope `flake-shield`, key `<repository key>#<pull>#<entry key>`; a decided
 *   one done with what came of it (its result), a pending one held by its claimant for a minute from its
 *   claim (then taken over by the next replica to take the same removal).
 */
export const recordsOnce: Migration = {
  version: 41,
  name: "records once",
  async up(db, t) {
    await sql`INSERT INTO once_claims (scope, key, first_at, claimed_by, claimed_until, done_at, result)
      SELECT 'summary-comment', repository_key || '#' || CAST(issue_number AS TEXT), updated_at,
             claimed_by, claimed_until, NULL, NULL
      FROM summary_comments
      WHERE comment_id IS NULL AND claimed_by IS NOT NULL AND claimed_until IS NOT NULL`.execute(db);
    const pg = t.dialect === "postgres";
    const result = pg
      ? sql`jsonb_build_object('outcome', outcome, 'detail', detail, 'leftEventId', left_event_id, 'check', check_name)`
      : sql`json_object('outcome', outcome, 'detail', detail, 'leftEventId', left_event_id, 'check', check_name)`;
    const aMinuteOn = pg
      ? sql`claimed_at + interval '60 seconds'`
      : sql`strftime('%Y-%m-%dT%H:%M:%fZ', claimed_at, '+60 seconds')`;
    await sql`INSERT INTO once_claims (scope, key, first_at, claimed_by, claimed_until, done_at, result)
      SELECT 'flake-shield', repository_key || '#' || CAST(pull_number AS TEXT) || '#' || entry_key, claimed_at,
             claimed_by,
             CASE WHEN outcome = 'pending' THEN ${aMinuteOn} ELSE NULL END,
             CASE WHEN outcome = 'pending' THEN NULL ELSE decided_at END,
             CASE WHEN outcome = 'pending' THEN NULL ELSE ${result} END
      FROM shield_retries`.execute(db);
  },
};
