import { sql } from "kysely";
import type { Migration } from "./migration.js";

/**
 * The commands' intake on the durable-work engine (docs/architecture.md, "Durable work"): GitHub's
 * deliveries handled once (`webhook_deliveries`) are copied into the once-claims as scope
 * `github-delivery`, done; Slack's request signatures accepted (`slack_signatures`) as scope
 * `slack-signature`, done (refused until forgotten, 15 minutes after first seen, as before); each
 * webhook job not done (`webhook_jobs`) becomes a work item of kind `command` keyed by its delivery id,
 * claimed as it was (any replica takes it over at its claim's lapse), its body kept in `webhook_jobs`.
 * Those jobs are marked done there, so that a rolling upgrade's older replica neither sweeps them up
 * nor answers one it was running (its claim reads as lost): the engine's replica answers it. The old
 * tables are kept for a rolling upgrade's older replicas (a later release may drop them).
 */
export const commandClaims: Migration = {
  version: 38,
  name: "command claims",
  async up(db) {
    await sql`INSERT INTO once_claims (scope, key, first_at, claimed_by, claimed_until, done_at, result)
      SELECT 'github-delivery', id, received_at, NULL, NULL, received_at, NULL FROM webhook_deliveries`.execute(
      db,
    );
    await sql`INSERT INTO once_claims (scope, key, first_at, claimed_by, claimed_until, done_at, result)
      SELECT 'slack-signature', signature, seen_at, NULL, NULL, seen_at, NULL FROM slack_signatures`.execute(
      db,
    );
    await sql`INSERT INTO work_items (kind, key, due_at, claimed_by, claimed_until, started_at, attempts, last_error, payload)
      SELECT 'command', delivery_id, COALESCE(claimed_until, received_at), claimed_by, claimed_until, NULL, 0, NULL, '{}'
      FROM webhook_jobs WHERE done_at IS NULL`.execute(db);
    await sql`UPDATE webhook_jobs SET done_at = received_at WHERE done_at IS NULL`.execute(db);
  },
};
