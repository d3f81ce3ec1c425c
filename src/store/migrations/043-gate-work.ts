import { type Kysely, sql } from "kysely";
import type { Migration } from "./migration.js";

/**
 * The gate check's claims move onto durable work (docs/architecture.md, "Durable work"): the making of
 * a gate's check run is a work item of kind `gate-check`, a held gate's completion one of kind
 * `gate-complete`, both keyed `<repository key> <head sha> <check name>`. Copied in, so that an upgrade
 * loses nothing (`gate_checks` stays the gates' record; its claim columns are kept, not dropped, for a
 * rolling upgrade's older replicas):
 * - a claim without a check run (its replica making it, dead, or waiting to try again after GitHub
 *   refused it): a `gate-check` item, unclaimed, due at its retry or at its claim's lapse (a minute
 *   after it was taken), its refusals counted;
 * - a held gate whose completion GitHub refused and whose branch is no longer paused: a `gate-complete`
 *   item due at its retry (the sweep would find it too).
 * - held gates flagged to be decided again (`reconsider`, the flag kept: it says which): a
 *   `gate-reconsider` item per branch, key `<repository key> <branch>`, due at once.
 */
export const gateWork: Migration = {
  version: 43,
  name: "gate work",
  async up(db) {
    await copyClaims(db);
    await copyCompletions(db);
    await copyReconsiders(db);
  },
};

type Row = Record<string, unknown>;
const LEASE_MS = 60_000;
const iso = (value: unknown): string => new Date(value as string).toISOString();
const keyOf = (row: Row) => `${row.repository_key} ${String(row.head_sha).toLowerCase()} ${row.check_name}`;

async function insert(db: Kysely<unknown>, rows: Row[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    await (db as Kysely<{ work_items: Row }>)
      .insertInto("work_items")
      .values(rows.slice(i, i + 200))
      .onConflict((oc) => oc.columns(["kind", "key"]).doNothing())
      .execute();
  }
}

async function copyClaims(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<Row>`SELECT * FROM gate_checks
    WHERE state = 'claimed' AND check_run_id IS NULL`.execute(db);
  await insert(
    db,
    rows.map((row) => {
      const taken = new Date(iso(row.claimed_at ?? row.created_at)).getTime() + LEASE_MS;
      return {
        kind: "gate-check",
        key: keyOf(row),
        due_at: row.retry_at ? iso(row.retry_at) : new Date(taken).toISOString(),
        attempts: Number(row.attempts ?? 0),
        payload: JSON.stringify({
          repository: row.repository,
          headSha: String(row.head_sha).toLowerCase(),
          name: row.check_name,
          branch: row.branch,
          kind: row.kind,
          pullNumber: Number(row.pull_number),
        }),
      };
    }),
  );
}

async function copyCompletions(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<Row>`SELECT * FROM gate_checks c
    WHERE c.state = 'queued' AND c.retry_at IS NOT NULL AND NOT EXISTS (
      SELECT 1 FROM gate_pauses p WHERE p.repository_key = c.repository_key AND p.branch = c.branch)`.execute(
    db,
  );
  await insert(
    db,
    rows.map((row) => ({
      kind: "gate-complete",
      key: keyOf(row),
      due_at: iso(row.retry_at),
      attempts: Number(row.attempts ?? 0),
      payload: JSON.stringify({
        repository: row.repository,
        headSha: String(row.head_sha).toLowerCase(),
        name: row.check_name,
      }),
    })),
  );
}

async function copyReconsiders(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<Row>`SELECT DISTINCT repository_key, repository, branch FROM gate_checks
    WHERE state = 'queued' AND reconsider = 1`.execute(db);
  const now = new Date().toISOString();
  await insert(
    db,
    rows.map((row) => ({
      kind: "gate-reconsider",
      key: `${row.repository_key} ${row.branch}`,
      due_at: now,
      attempts: 0,
      payload: JSON.stringify({ repository: row.repository, branch: row.branch }),
    })),
  );
}
