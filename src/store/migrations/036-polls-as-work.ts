import { type Kysely, sql } from "kysely";
import type { Migration } from "./migration.js";

/**
 * The notifier's reads become durable work (docs/architecture.md, "Durable work"): each repository's
 * schedule (`poll_schedule`) and cursor (`poll_cursors`) are copied into one `poll` work item, its due
 * time the earliest of the schedule's three times and its payload the rest (src/store/polls.ts,
 * PollPayload), so an upgrade loses no cursor and reads nothing again. A claim is not copied: the item
 * is due at once for the replica that takes it. Both tables are kept, not dropped: during a rolling
 * upgrade the older build still reads and writes them (subscriptions still make and remove a schedule
 * row for it); a later release may drop them.
 */
export const pollsAsWork: Migration = {
  version: 36,
  name: "polls as work",
  async up(db) {
    const { rows: schedules } = await sql<Row>`SELECT * FROM poll_schedule`.execute(db);
    const { rows: cursors } = await sql<Row>`SELECT * FROM poll_cursors`.execute(db);
    const cursorOf = new Map(cursors.map((c) => [c.repository_key as string, c]));
    const items = schedules.map((row) => pollItem(row, cursorOf.get(row.repository_key as string)));
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

function pollItem(row: Row, cursor: Row | undefined): Row {
  const times = [row.next_poll_at, row.doorbell_at, row.recheck_at].map(iso).filter((t) => t !== null);
  const due = times.reduce((min, t) => (t < min ? t : min));
  const retry = row.cadence === "retry";
  const payload = {
    repository: row.repository,
    cadence: retry ? "interval" : row.cadence,
    regularAt: iso(row.next_poll_at),
    lastReadAt: iso(row.last_read_at),
    rungAt: iso(row.doorbell_at),
    recheckAt: iso(row.recheck_at),
    activeUntil: iso(row.active_until),
    cursor: cursor
      ? {
          receivedFrom: iso(cursor.received_from),
          seenEventIds: json(cursor.seen_event_ids) ?? [],
          updatedAt: iso(cursor.updated_at),
        }
      : null,
  };
  return {
    kind: "poll",
    key: row.repository_key,
    due_at: due,
    attempts: retry ? Number(row.failures ?? 0) : 0,
    last_error: retry ? (row.last_error ?? null) : null,
    payload: JSON.stringify(payload),
  };
}
