import { type Kysely, sql } from "kysely";
import type { Migration } from "./migration.js";

/**
 * Freeze windows' steps become durable work (work_items, src/work): their own claims in `freeze_steps`
 * go. Copied in, so that an upgrade loses nothing:
 * - each freeze, as an item of kind `freeze` due at once, with the windows whose notice and start the
 *   older version marked done (the latest of each), so that neither is done again;
 * - each window whose start was done and whose end was not, as an item of kind `freeze-end` due at its
 *   end, with who made the freeze as its start step kept it (nobody before migration 34);
 * Not copied: steps claimed and not done (a claim that was in flight), since a lapse would free them
 * anyway: the freeze's item does a step not marked done (a notice already in a channel is found by its
 * key, a pause in force for the window's reason is taken as its own). `freeze_steps` is kept, not
 * dropped, for a rolling upgrade's older replicas (a later release may drop it).
 */
export const freezeWork: Migration = {
  version: 39,
  name: "freeze work",
  async up(db) {
    await copyFreezes(db);
    await copyWindowEnds(db);
  },
};

type Row = Record<string, unknown>;
const iso = (value: unknown): string => new Date(value as string).toISOString();

async function insert(db: Kysely<unknown>, rows: Row[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    await (db as Kysely<{ work_items: Row }>)
      .insertInto("work_items")
      .values(rows.slice(i, i + 200))
      .onConflict((oc) => oc.columns(["kind", "key"]).doNothing())
      .execute();
  }
}

/** The latest window of each freeze whose `step` was done, by freeze. */
async function latestDone(db: Kysely<unknown>, step: string): Promise<Map<string, string>> {
  const { rows } = await sql<Row>`SELECT freeze_id, starts_at FROM freeze_steps
    WHERE step = ${step} AND done = 1`.execute(db);
  const latest = new Map<string, string>();
  for (const row of rows) {
    const at = iso(row.starts_at);
    const id = String(row.freeze_id);
    if ((latest.get(id) ?? "") < at) latest.set(id, at);
  }
  return latest;
}

async function copyFreezes(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<Row>`SELECT id, repository, created_at FROM freezes`.execute(db);
  const warned = await latestDone(db, "warn");
  const started = await latestDone(db, "start");
  await insert(
    db,
    rows.map((row) => {
      const id = String(row.id);
      return {
        kind: "freeze",
        key: id,
        due_at: iso(row.created_at),
        attempts: 0,
        payload: JSON.stringify({
          repository: row.repository,
          ...(warned.has(id) ? { warned: warned.get(id) } : {}),
          ...(started.has(id) ? { started: started.get(id) } : {}),
        }),
      };
    }),
  );
}

async function copyWindowEnds(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<Row>`SELECT s.* FROM freeze_steps s
    WHERE s.step = 'start' AND s.done = 1 AND NOT EXISTS (
      SELECT 1 FROM freeze_steps e WHERE e.freeze_id = s.freeze_id AND e.starts_at = s.starts_at
        AND e.step = 'end' AND e.done = 1)`.execute(db);
  await insert(
    db,
    rows.map((row) => ({
      kind: "freeze-end",
      key: `${row.freeze_id}@${iso(row.starts_at)}`,
      due_at: iso(row.ends_at),
      attempts: 0,
      payload: JSON.stringify({
        freezeId: row.freeze_id,
        repository: row.repository,
        startsAt: iso(row.starts_at),
        endsAt: iso(row.ends_at),
        reason: row.reason,
        by: row.created_by && row.surface ? { login: row.created_by, surface: row.surface } : null,
      }),
    })),
  );
}
