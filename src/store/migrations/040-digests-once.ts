import { type Kysely, sql } from "kysely";
import type { Migration } from "./migration.js";

/**
 * The weekly digests move onto durable work (docs/architecture.md, "Durable work"): each week's digest
 * of a subscription is a work item of kind `digest`, and its post is claimed once in `once_claims`
 * (scope `digest`, key `<channel> <repository>@<week>`, done with `{ messageTs }`), no longer in
 * `digests`. What an upgrade needs is copied: every digest recorded in `digests` (posted, or claimed and
 * not yet marked sent: its claim and lease kept, so that one in doubt is still searched for in its
 * channel before it is posted), so that this week's digest is not posted again. The work items are not
 * copied: each replica makes the week's item when it starts, and the week's item makes the digests'.
 * The health alerts' claims need nothing copied: a reminder and an ended alert's edit are now claimed
 * once (scopes `health-reminder`, `health-ending`) by keys made from `health_episodes`, which keeps
 * what they read. `digests` is kept, not dropped, for a rolling upgrade's older replicas (a later
 * release may drop it); an upgrade rolled across Monday 09:00 in DIGEST_TIME_ZONE may post a week's
 * digest from an older replica and from a newer one.
 */
export const digestsOnce: Migration = {
  version: 40,
  name: "digests once",
  async up(db) {
    const { rows } = await sql<Row>`SELECT * FROM digests`.execute(db);
    const claims = rows.map((row) => ({
      scope: "digest",
      key: `${row.channel_id} ${row.repository_key}@${row.week}`,
      first_at: iso(row.claimed_at),
      claimed_by: row.claimed_by,
      claimed_until: row.sent_at === null ? iso(row.claimed_until) : null,
      done_at: row.sent_at === null ? null : iso(row.sent_at),
      result: row.message_ts === null ? null : JSON.stringify({ messageTs: row.message_ts }),
    }));
    for (let i = 0; i < claims.length; i += 200) {
      await (db as Kysely<{ once_claims: Row }>)
        .insertInto("once_claims")
        .values(claims.slice(i, i + 200))
        .onConflict((oc) => oc.columns(["scope", "key"]).doNothing())
        .execute();
    }
  },
};

type Row = Record<string, unknown>;
const iso = (value: unknown): string => new Date(value as string).toISOString();
