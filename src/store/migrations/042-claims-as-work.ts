import { type Kysely, sql } from "kysely";
import { EPOCH } from "./004-poll-schedule.js";
import type { Migration } from "./migration.js";

/**
 * The last features' own claims move onto durable work (docs/architecture.md, "Durable work"): what is
 * in flight is copied into `work_items`, each claim as it was (any replica takes it over at its lapse),
 * so an upgrade loses nothing. The old columns are kept, not dropped, for a rolling upgrade's older
 * replicas (a later release may drop them):
 *
 * - A removal's failure details being read (`failure_details`, status `reading`): kind
 *   `failure-details`, keyed by the event's id, its payload the repository and the event, as the outbox
 *   keeps it (`notifications.payload`; none when no notice has it: then nothing is read).
 * - A merged pull request not judged (`merged_pulls` with a merge and no `judged_at`): kind
 *   `merged-pull`, keyed by its `merge_key`, due at `decide_at` (or its claim's end).
 * - A relay's answer not shown yet (`relays` presented, not superseded, `applied_version` behind
 *   `answer_version`): kind `relay-answer`, keyed by the relay's id, due at once (or its lease's end).
 */
export const claimsAsWork: Migration = {
  version: 42,
  name: "claims as work",
  async up(db) {
    const items = [...(await readings(db)), ...(await merges(db)), ...(await answers(db))];
    for (let i = 0; i < items.length; i += 200) {
      await (db as Kysely<{ work_items: Row }>)
        .insertInto("work_items")
        .values(items.slice(i, i + 200))
        .onConflict((oc) => oc.columns(["kind", "key"]).doNothing())
        .execute();
    }
  },
};

type Row = Record<string, unknown>;
const iso = (value: unknown): string | null =>
  value === null || value === undefined ? null : new Date(value as string).toISOString();
const json = (value: unknown): unknown => (typeof value === "string" ? JSON.parse(value) : value);

/** A work item as it was claimed (`claimedBy` until `claimedUntil`), due at its claim's end or `dueAt`. */
function item(
  kind: string,
  key: string,
  dueAt: unknown,
  claimedBy: unknown,
  claimedUntil: unknown,
  payload: Row,
) {
  const until = iso(claimedUntil);
  const due = iso(dueAt) ?? EPOCH;
  return {
    kind,
    key,
    due_at: until && until > due ? until : due,
    claimed_by: until ? (claimedBy ?? null) : null,
    claimed_until: until,
    started_at: null,
    attempts: 0,
    last_error: null,
    payload: JSON.stringify(payload),
  };
}

async function readings(db: Kysely<unknown>) {
  const { rows } = await sql<Row>`SELECT d.event_id, d.repository, d.claimed_by, d.claimed_until,
      (SELECT n.payload FROM notifications n WHERE n.event_id = d.event_id ORDER BY n.channel_id LIMIT 1) AS event
    FROM failure_details d WHERE d.status = 'reading'`.execute(db);
  return rows.map((row) =>
    item("failure-details", String(row.event_id), row.claimed_until, row.claimed_by, row.claimed_until, {
      repository: row.repository,
      event: json(row.event) ?? null,
    }),
  );
}

async function merges(db: Kysely<unknown>) {
  const { rows } =
    await sql<Row>`SELECT merge_key, repository, pull_number, decide_at, claimed_by, claimed_until
    FROM merged_pulls WHERE judged_at IS NULL AND merged_at IS NOT NULL AND decide_at IS NOT NULL`.execute(
      db,
    );
  return rows.map((row) =>
    item("merged-pull", row.merge_key as string, row.decide_at, row.claimed_by, row.claimed_until, {
      repository: row.repository,
      number: Number(row.pull_number),
    }),
  );
}

async function answers(db: Kysely<unknown>) {
  const { rows } = await sql<Row>`SELECT id, apply_owner, apply_until FROM relays
    WHERE presentation IS NOT NULL AND superseded = 0 AND applied_version < answer_version`.execute(db);
  return rows.map((row) =>
    item("relay-answer", row.id as string, null, row.apply_owner, row.apply_until, {}),
  );
}
