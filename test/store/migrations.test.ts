import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { sql } from "kysely";
import type pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Repo } from "../../src/repo.js";
import { MIGRATIONS, type Migration, migrate, openDatabase } from "../../src/store/index.js";
import { kyselyPolls } from "../../src/store/polls.js";
import { storeContext } from "../../src/store/query-helpers.js";
import { PG_URL, usePostgres } from "../helpers/postgres.js";
import { LEGACY_MIGRATIONS, migrateLegacyPostgres, migrateLegacySqlite } from "./fixtures/legacy-schema.js";

// The migrations written with Kysely's schema builder make the schema the hand-written SQL made:
// the same tables, columns, types, nullability, defaults, keys, checks and indexes, in both dialects.
// Those that came after the hand-written SQL are applied to such a database in place (legacy.test.ts).

/** The migrations that the hand-written SQL also made. */
const SAME_AS_LEGACY = MIGRATIONS.filter((m) => LEGACY_MIGRATIONS.some((l) => l.version === m.version));

/** `run` on a fresh SQLite database and on a fresh PostgreSQL schema: one test each, named `title on …`. */
function onBothDialects(
  pg: ReturnType<typeof usePostgres>,
  title: string,
  run: (database: ReturnType<typeof openDatabase>) => Promise<void>,
): void {
  for (const dialect of ["sqlite", "postgres"] as const)
    it(`${title} on ${dialect === "sqlite" ? "SQLite" : "PostgreSQL"}`, async () => {
      const database =
        dialect === "sqlite"
          ? openDatabase({ kind: "sqlite", path: ":memory:" })
          : openDatabase({ kind: "postgres", url: PG_URL, schema: pg.freshSchema() });
      try {
        await run(database);
      } finally {
        await database.db.destroy();
      }
    });
}

/** Migrates to just before a migration, writes `rows` (SQL statements) as an older version did, then the rest. */
async function migrateWith(
  database: ReturnType<typeof openDatabase>,
  before: readonly Migration[],
  rows: string,
): Promise<void> {
  await migrate(database, before);
  for (const statement of rows.split(";").filter((s) => s.trim()))
    await sql.raw(statement).execute(database.db);
  await migrate(database);
}

describe("the migrations on SQLite", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "ym-migrations-"));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("make the schema the hand-written SQL made", async () => {
    const legacyPath = join(dir, "legacy.db");
    const legacy = new Database(legacyPath);
    migrateLegacySqlite(legacy);
    legacy.close();

    const currentPath = join(dir, "current.db");
    const database = openDatabase({ kind: "sqlite", path: currentPath });
    await migrate(database, SAME_AS_LEGACY);
    await database.db.destroy();

    const expected = sqliteSchema(legacyPath);
    expect(expected.map((t) => t.name)).toContain("notifications");
    expect(sqliteSchema(currentPath)).toEqual(expected);
  });
});

describe("the migrations on PostgreSQL", () => {
  const pg = usePostgres();

  it("make the schema the hand-written SQL made", async () => {
    const legacy = pg.freshSchema();
    await migrateLegacyPostgres(pg.admin(), legacy);

    const current = pg.freshSchema();
    const database = openDatabase({ kind: "postgres", url: PG_URL, schema: current });
    await migrate(database, SAME_AS_LEGACY);
    await database.db.destroy();

    const expected = await postgresSchema(pg.admin(), legacy);
    expect(expected.columns.length).toBeGreaterThan(50);
    expect(await postgresSchema(pg.admin(), current)).toEqual(expected);
  });
});

/**
 * Migrations only add (docs/operations.md, "Upgrades"): applied one at a time, each keeps every table and
 * column of the schema before it, with its type; and a column added to a table that already existed is
 * nullable or has a default, so the release before, which does not name it, still inserts rows there.
 */
type Column = { table: string; column: string; type: string; notNull: boolean; hasDefault: boolean };

async function columnsAfterEach(
  database: ReturnType<typeof openDatabase>,
  read: () => Promise<Column[]>,
): Promise<Column[][]> {
  const steps: Column[][] = [];
  for (let i = 1; i <= MIGRATIONS.length; i++) {
    await migrate(database, MIGRATIONS.slice(0, i));
    steps.push(await read());
  }
  return steps;
}

function onlyAdds(steps: Column[][]): string[] {
  const problems: string[] = [];
  steps.forEach((after, i) => {
    if (i === 0) return;
    const before = steps[i - 1] ?? [];
    const version = MIGRATIONS[i]?.version;
    const key = (c: Column) => `${c.table}.${c.column}`;
    const now = new Map(after.map((c) => [key(c), c]));
    for (const c of before) {
      const kept = now.get(key(c));
      if (!kept) problems.push(`migration ${version} drops or renames ${key(c)}`);
      else if (kept.type !== c.type)
        problems.push(`migration ${version} changes ${key(c)}: ${c.type} → ${kept.type}`);
    }
    const tables = new Set(before.map((c) => c.table));
    const had = new Set(before.map(key));
    for (const c of after)
      if (tables.has(c.table) && !had.has(key(c)) && c.notNull && !c.hasDefault)
        problems.push(`migration ${version} adds ${key(c)} NOT NULL without a default`);
  });
  return problems;
}

describe("the migrations only add", () => {
  const pg = usePostgres();
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "ym-additive-"));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("on SQLite", async () => {
    const path = join(dir, "additive.db");
    const database = openDatabase({ kind: "sqlite", path });
    const read = async () => {
      const db = new Database(path, { readonly: true });
      try {
        const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
          name: string;
        }[];
        return tables.flatMap(({ name }) =>
          (
            db.pragma(`table_info("${name}")`) as {
              name: string;
              type: string;
              notnull: number;
              dflt_value: unknown;
            }[]
          ).map((c) => ({
            table: name,
            column: c.name,
            type: c.type.toUpperCase(),
            notNull: c.notnull === 1,
            hasDefault: c.dflt_value !== null,
          })),
        );
      } finally {
        db.close();
      }
    };
    const steps = await columnsAfterEach(database, read);
    await database.db.destroy();
    expect(steps.at(-1)?.length).toBeGreaterThan(50);
    expect(onlyAdds(steps)).toEqual([]);
    // The check sees a drop.
    expect(onlyAdds([steps[1] ?? [], (steps[1] ?? []).slice(1)])).toHaveLength(1);
  });

  it("on PostgreSQL", async () => {
    const schema = pg.freshSchema();
    const database = openDatabase({ kind: "postgres", url: PG_URL, schema });
    const read = async () => {
      const { rows } = await pg
        .admin()
        .query(
          `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns WHERE table_schema = $1`,
          [schema],
        );
      return rows.map((r) => ({
        table: r.table_name,
        column: r.column_name,
        type: r.data_type,
        notNull: r.is_nullable === "NO",
        hasDefault: r.column_default !== null,
      }));
    };
    const steps = await columnsAfterEach(database, read);
    await database.db.destroy();
    expect(steps.at(-1)?.length).toBeGreaterThan(50);
    expect(onlyAdds(steps)).toEqual([]);
  });
});

/**
 * What SQLite knows of each table. A declared type's case is left out (SQLite reads "TEXT" and "text"
 * alike), and CHECK clauses and partial indexes, which SQLite keeps only as text, are compared on their
 * text with quotes, case and spacing evened out.
 */
function sqliteSchema(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    const tables = db
      .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all() as { name: string; sql: string }[];
    return tables.map(({ name, sql }) => ({
      name,
      columns: (db.pragma(`table_info("${name}")`) as { type: string }[]).map((c) => ({
        ...c,
        type: c.type.toUpperCase(),
      })),
      checks: normalise(sql).match(/check \((?:[^()]|\([^()]*\))*\)/g) ?? [],
      foreignKeys: db.pragma(`foreign_key_list("${name}")`),
      indexes: (db.pragma(`index_list("${name}")`) as { name: string }[])
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((index) => {
          const created = db
            .prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?")
            .get(index.name) as { sql: string | null } | undefined;
          return {
            ...index,
            columns: (db.pragma(`index_info("${index.name}")`) as { name: string }[]).map((c) => c.name),
            sql: created?.sql ? normalise(created.sql) : null,
          };
        }),
    }));
  } finally {
    db.close();
  }
}

function normalise(sql: string): string {
  return sql.replaceAll('"', "").toLowerCase().replace(/\s+/g, " ").trim();
}

/** What PostgreSQL's catalogue says of a schema's columns, constraints and indexes. */
async function postgresSchema(admin: pg.Client, schema: string) {
  const columns = await admin.query(
    `SELECT table_name, column_name, ordinal_position, data_type, udt_name, is_nullable, column_default
     FROM information_schema.columns WHERE table_schema = $1
     ORDER BY table_name, ordinal_position`,
    [schema],
  );
  const constraints = await admin.query(
    `SELECT t.relname AS table_name, c.conname, c.contype, pg_get_constraintdef(c.oid) AS definition
     FROM pg_constraint c
     JOIN pg_class t ON t.oid = c.conrelid
     JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE n.nspname = $1
     ORDER BY t.relname, c.conname`,
    [schema],
  );
  const indexes = await admin.query(
    `SELECT tablename, indexname, replace(indexdef, $1 || '.', '') AS definition
     FROM pg_indexes WHERE schemaname = $1
     ORDER BY tablename, indexname`,
    [schema],
  );
  return { columns: columns.rows, constraints: constraints.rows, indexes: indexes.rows };
}

/**
 * Migration 033 copies the timed pauses' ends into durable work: a timed pause set before the upgrade
 * still ends after it (the repositories' read schedules are copied by 036, below).
 */
describe("migration 033 (work items)", () => {
  const pg = usePostgres();
  const before = MIGRATIONS.filter((m) => m.version < 33);
  const rows = `
    INSERT INTO poll_schedule (repository_key, repository, next_poll_at, cadence, failures, last_error)
      VALUES ('acme/widgets', 'Acme/Widgets', '2026-03-02T09:00:00.000Z', 'retry', 2, 'down');
    INSERT INTO poll_cursors (repository_key, repository, received_from, seen_event_ids, updated_at)
      VALUES ('acme/widgets', 'Acme/Widgets', '2026-03-02T08:00:00.000Z', '[7, 8]', '2026-03-02T08:30:00.000Z');
    INSERT INTO scheduled_unpauses (repository_key, repository, reason, resumes_at, scheduled_by, surface, created_at)
      VALUES ('acme/widgets', 'Acme/Widgets', 'release', '2026-03-02T18:00:00.000Z', 'alice', 'slack',
              '2026-03-02T08:00:00.000Z');`;

  async function check(database: ReturnType<typeof openDatabase>) {
    const items = await database.db
      .selectFrom("work_items")
      .selectAll()
      .where("kind", "=", "unpause")
      .execute();
    const payload = (value: unknown) => (typeof value === "string" ? JSON.parse(value) : value);
    expect(items.map((item) => [item.kind, item.key, new Date(item.due_at).toISOString()])).toEqual([
      ["unpause", "acme/widgets", "2026-03-02T18:00:00.000Z"],
    ]);
    expect(payload(items[0]?.payload)).toEqual({
      repository: "Acme/Widgets",
      reason: "release",
      scheduledBy: "alice",
      surface: "slack",
      createdAt: "2026-03-02T08:00:00.000Z",
    });
  }

  onBothDialects(pg, "copies them", async (database) => {
    await migrateWith(database, before, rows);
    await check(database);
  });
});

/**
 * Migration 034 keeps who made a freeze on its window's steps: a step made before it keeps nobody (null),
 * and its window's end reads the person from the pause's reason (test/freezes/runner.test.ts).
 */
describe("migration 034 (freeze step setters)", () => {
  const pg = usePostgres();
  const before = MIGRATIONS.filter((m) => m.version < 34);
  const row = `
    INSERT INTO freeze_steps (freeze_id, starts_at, step, repository_key, repository, ends_at, reason,
                              claimed_by, claimed_until, done)
      VALUES ('f1', '2026-03-02T22:00:00.000Z', 'start', 'acme/widgets', 'Acme/Widgets',
              '2026-03-03T06:00:00.000Z', 'nightly (scheduled by alice)', 'a', '2026-03-02T22:01:00.000Z', 1)`;

  async function check(database: ReturnType<typeof openDatabase>) {
    await migrate(database, before);
    await sql.raw(row).execute(database.db);
    await migrate(database);
    const steps = await database.db
      .selectFrom("freeze_steps")
      .select(["freeze_id", "reason", "created_by", "surface"])
      .execute();
    expect(steps).toEqual([
      { freeze_id: "f1", reason: "nightly (scheduled by alice)", created_by: null, surface: null },
    ]);
  }

  it("leaves the steps made before it with nobody on SQLite", async () => {
    const database = openDatabase({ kind: "sqlite", path: ":memory:" });
    try {
      await check(database);
    } finally {
      await database.db.destroy();
    }
  });

  it("leaves the steps made before it with nobody on PostgreSQL", async () => {
    const database = openDatabase({ kind: "postgres", url: PG_URL, schema: pg.freshSchema() });
    try {
      await check(database);
    } finally {
      await database.db.destroy();
    }
  });
});

/**
 * Migration 036 copies each repository's read schedule and cursor into one `poll` work item: an upgrade
 * loses no cursor, a read failing keeps its failures, a doorbell rung keeps its read.
 */
describe("migration 036 (polls as work)", () => {
  const pg = usePostgres();
  const before = MIGRATIONS.filter((m) => m.version < 36);
  const rows = `
    INSERT INTO poll_schedule (repository_key, repository, next_poll_at, cadence, failures, last_error, last_read_at)
      VALUES ('acme/widgets', 'Acme/Widgets', '2026-03-02T09:00:00.000Z', 'retry', 2, 'down', '2026-03-02T08:59:00.000Z');
    INSERT INTO poll_schedule (repository_key, repository, next_poll_at, cadence, doorbell_at, recheck_at, active_until)
      VALUES ('acme/gears', 'acme/gears', '2026-03-02T10:00:00.000Z', 'idle', '2026-03-02T09:30:00.000Z',
              '2026-03-02T09:30:05.000Z', '2026-03-02T09:40:00.000Z');
    INSERT INTO poll_cursors (repository_key, repository, received_from, seen_event_ids, updated_at)
      VALUES ('acme/widgets', 'Acme/Widgets', '2026-03-02T08:00:00.000Z', '[7, 8]', '2026-03-02T08:30:00.000Z');
    INSERT INTO poll_cursors (repository_key, repository, received_from, seen_event_ids, updated_at)
      VALUES ('acme/gone', 'acme/gone', '2026-03-02T08:00:00.000Z', '[]', '2026-03-02T08:30:00.000Z')`;

  async function check(database: ReturnType<typeof openDatabase>) {
    const store = kyselyPolls(storeContext(database));
    const items = await database.db
      .selectFrom("work_items")
      .selectAll()
      .where("kind", "=", "poll")
      .orderBy("key")
      .execute();
    expect(
      items.map((item) => [item.key, new Date(item.due_at).toISOString(), Number(item.attempts)]),
    ).toEqual([
      ["acme/gears", "2026-03-02T09:30:00.000Z", 0],
      ["acme/widgets", "2026-03-02T09:00:00.000Z", 2],
    ]);
    expect(await store.getPollCursor(Repo.from("acme/widgets"))).toEqual({
      repository: Repo.from("Acme/Widgets"),
      receivedFrom: new Date("2026-03-02T08:00:00.000Z"),
      seenEventIds: [7, 8],
      updatedAt: new Date("2026-03-02T08:30:00.000Z"),
    });
    expect(await store.getPollSchedule(Repo.from("acme/widgets"))).toMatchObject({
      cadence: "retry",
      failures: 2,
      lastError: "down",
      lastReadAt: new Date("2026-03-02T08:59:00.000Z"),
    });
    expect(await store.getPollSchedule(Repo.from("acme/gears"))).toMatchObject({
      cadence: "idle",
      doorbellAt: new Date("2026-03-02T09:30:00.000Z"),
      recheckAt: new Date("2026-03-02T09:30:05.000Z"),
      activeUntil: new Date("2026-03-02T09:40:00.000Z"),
    });
    expect(await store.getPollCursor(Repo.from("acme/gears"))).toBeNull();
  }

  onBothDialects(pg, "copies them", async (database) => {
    await migrateWith(database, before, rows);
    await check(database);
  });
});

/**
 * Migration 041 copies what the features' own claims held into once-claims (src/store/once-claims.ts):
 * a summary comment's creation under way, the flake shield's re-queues (decided: done with their result).
 */
describe("migration 041 (records once)", () => {
  const pg = usePostgres();
  const before = MIGRATIONS.filter((m) => m.version < 41);
  const rows = `
    INSERT INTO summary_comments (repository_key, repository, issue_number, comment_id, claimed_by, claimed_until, updated_at)
      VALUES ('acme/widgets', 'Acme/Widgets', 7, NULL, 'replica-a', '2026-03-02T09:00:30.000Z', '2026-03-02T09:00:00.000Z');
    INSERT INTO summary_comments (repository_key, repository, issue_number, comment_id, claimed_by, claimed_until, updated_at)
      VALUES ('acme/widgets', 'Acme/Widgets', 8, 123, NULL, NULL, '2026-03-02T09:00:00.000Z');
    INSERT INTO shield_retries (repository_key, repository, pull_number, entry_key, left_event_id, left_at, check_name,
                                claimed_by, claimed_at, outcome, detail, decided_at)
      VALUES ('acme/widgets', 'Acme/Widgets', 23, '501', 510, '2026-03-02T08:59:00.000Z', 'ci/test', 'replica-a',
              '2026-03-02T09:00:00.000Z', 'failed', 'GitHub answered 502', '2026-03-02T09:00:02.000Z');
    INSERT INTO shield_retries (repository_key, repository, pull_number, entry_key, left_event_id, left_at, check_name,
                                claimed_by, claimed_at, outcome, detail, decided_at)
      VALUES ('acme/widgets', 'Acme/Widgets', 24, '601', 610, '2026-03-02T08:59:00.000Z', 'ci/test', 'replica-b',
              '2026-03-02T09:00:00.000Z', 'pending', NULL, NULL)`;

  async function check(database: ReturnType<typeof openDatabase>) {
    await migrateWith(database, before, rows);
    const claims = await database.db
      .selectFrom("once_claims")
      .select(["scope", "key", "claimed_by", "claimed_until", "done_at", "result"])
      .orderBy("scope")
      .orderBy("key")
      .execute();
    const iso = (value: unknown) => (value === null ? null : new Date(value as string).toISOString());
    const json = (value: unknown) => (typeof value === "string" ? JSON.parse(value) : value);
    const seen = claims.map((c) => ({
      ...c,
      claimed_until: iso(c.claimed_until),
      done_at: iso(c.done_at),
      result: json(c.result),
    }));
    expect(seen).toEqual([
      {
        scope: "flake-shield",
        key: "acme/widgets#23#501",
        claimed_by: "replica-a",
        claimed_until: null,
        done_at: "2026-03-02T09:00:02.000Z",
        result: { outcome: "failed", detail: "GitHub answered 502", leftEventId: 510, check: "ci/test" },
      },
      {
        scope: "flake-shield",
        key: "acme/widgets#24#601",
        claimed_by: "replica-b",
        claimed_until: "2026-03-02T09:01:00.000Z",
        done_at: null,
        result: null,
      },
      {
        scope: "summary-comment",
        key: "acme/widgets#7",
        claimed_by: "replica-a",
        claimed_until: "2026-03-02T09:00:30.000Z",
        done_at: null,
        result: null,
      },
    ]);
  }

  onBothDialects(pg, "copies them", check);
});

/**
 * Migration 038 moves the commands' intake onto the engine: the deliveries handled and the Slack
 * signatures accepted become once-claims, done; a webhook job not done becomes a work item of kind
 * `command`, claimed as it was (taken over at its claim's lapse), and reads as done to an older replica.
 */
describe("migration 038 (command claims)", () => {
  const pg = usePostgres();
  const before = MIGRATIONS.filter((m) => m.version < 38);
  const rows = `
    INSERT INTO webhook_deliveries (id, received_at) VALUES ('d-done', '2026-03-02T08:00:00.000Z');
    INSERT INTO webhook_deliveries (id, received_at) VALUES ('d-running', '2026-03-02T08:01:00.000Z');
    INSERT INTO slack_signatures (signature, seen_at) VALUES ('v0=aa', '2026-03-02T08:02:00.000Z');
    INSERT INTO webhook_jobs (delivery_id, kind, installation_id, payload, received_at, claimed_by, claimed_until, done_at)
      VALUES ('d-done', 'comment', 7, '{}', '2026-03-02T08:00:00.000Z', NULL, NULL, '2026-03-02T08:00:05.000Z');
    INSERT INTO webhook_jobs (delivery_id, kind, installation_id, payload, received_at, claimed_by, claimed_until, done_at)
      VALUES ('d-running', 'comment', 7, '{"comment":{"id":1}}', '2026-03-02T08:01:00.000Z', 'old-replica',
              '2026-03-02T08:01:30.000Z', NULL)`;
  const iso = (value: unknown) => (value === null ? null : new Date(value as string).toISOString());

  async function check(database: ReturnType<typeof openDatabase>) {
    await migrateWith(database, before, rows);
    const claims = await database.db.selectFrom("once_claims").selectAll().orderBy("key").execute();
    expect(claims.map((c) => [c.scope, c.key, iso(c.first_at), iso(c.done_at), c.claimed_by])).toEqual([
      ["github-delivery", "d-done", "2026-03-02T08:00:00.000Z", "2026-03-02T08:00:00.000Z", null],
      ["github-delivery", "d-running", "2026-03-02T08:01:00.000Z", "2026-03-02T08:01:00.000Z", null],
      ["slack-signature", "v0=aa", "2026-03-02T08:02:00.000Z", "2026-03-02T08:02:00.000Z", null],
    ]);
    const items = await database.db.selectFrom("work_items").selectAll().execute();
    expect(items.map((i) => [i.kind, i.key, iso(i.due_at), i.claimed_by, iso(i.claimed_until)])).toEqual([
      ["command", "d-running", "2026-03-02T08:01:30.000Z", "old-replica", "2026-03-02T08:01:30.000Z"],
    ]);
    const jobs = await database.db.selectFrom("webhook_jobs").select(["delivery_id", "done_at"]).execute();
    expect(jobs.every((job) => job.done_at !== null)).toBe(true);
  }

  onBothDialects(pg, "copies them", check);
});

/**
 * Migration 040 copies the weekly digests recorded into the once-claims (scope `digest`): a digest
 * posted before the upgrade is not posted again, and one claimed and not marked sent is still in doubt.
 */
describe("migration 040 (digests once)", () => {
  const pg = usePostgres();
  const before = MIGRATIONS.filter((m) => m.version < 40);
  const rows = `
    INSERT INTO digests (channel_id, repository_key, week, claimed_by, claimed_at, claimed_until, sent_at, message_ts)
      VALUES ('C1', 'acme/widgets', '2026-03-02', 'a', '2026-03-02T09:00:00.000Z', '2026-03-02T09:02:00.000Z',
              '2026-03-02T09:00:05.000Z', '1700000000.000100');
    INSERT INTO digests (channel_id, repository_key, week, claimed_by, claimed_at, claimed_until, sent_at, message_ts)
      VALUES ('C2', 'acme/widgets', '2026-03-02', 'b', '2026-03-02T09:00:00.000Z', '2026-03-02T09:02:00.000Z',
              NULL, NULL)`;

  async function check(database: ReturnType<typeof openDatabase>) {
    await migrateWith(database, before, rows);
    const claims = await database.db
      .selectFrom("once_claims")
      .selectAll()
      .where("scope", "=", "digest")
      .orderBy("key")
      .execute();
    const time = (value: unknown) => (value === null ? null : new Date(value as string).toISOString());
    const json = (value: unknown) => (typeof value === "string" ? JSON.parse(value) : value);
    expect(
      claims.map((c) => [
        c.key,
        time(c.first_at),
        c.claimed_by,
        time(c.claimed_until),
        time(c.done_at),
        json(c.result),
      ]),
    ).toEqual([
      [
        "C1 acme/widgets@2026-03-02",
        "2026-03-02T09:00:00.000Z",
        "a",
        null,
        "2026-03-02T09:00:05.000Z",
        { messageTs: "1700000000.000100" },
      ],
      ["C2 acme/widgets@2026-03-02", "2026-03-02T09:00:00.000Z", "b", "2026-03-02T09:02:00.000Z", null, null],
    ]);
  }

  onBothDialects(pg, "copies them", check);
});

/**
 * Migration 042 copies what the last features' own claims held into work items: a removal's details being
 * read (with its event, from the outbox), a merged pull request not judged, a relay's answer not shown.
 * What is done (read, judged, shown) is not copied.
 */
describe("migration 042 (claims as work)", () => {
  const pg = usePostgres();
  const before = MIGRATIONS.filter((m) => m.version < 42);
  const rows = `
    INSERT INTO notifications (channel_id, event_id, repository, pull_request, event_type, payload, status, claimed_at)
      VALUES ('C1', 77, 'Acme/Widgets', 42, 'left', '{"id":77,"kind":"left","pull":42}', 'pending', '2026-03-02T09:00:00.000Z');
    INSERT INTO failure_details (event_id, repository, status, due_at, claimed_by, claimed_until, details, created_at)
      VALUES (77, 'Acme/Widgets', 'reading', '2026-03-02T09:00:10.000Z', 'replica-a', '2026-03-02T09:01:00.000Z', NULL, '2026-03-02T09:00:00.000Z');
    INSERT INTO failure_details (event_id, repository, status, due_at, claimed_by, claimed_until, details, created_at)
      VALUES (78, 'Acme/Widgets', 'reading', '2026-03-02T09:00:10.000Z', 'replica-a', '2026-03-02T09:01:00.000Z', NULL, '2026-03-02T09:00:00.000Z');
    INSERT INTO failure_details (event_id, repository, status, due_at, claimed_by, claimed_until, details, created_at)
      VALUES (79, 'Acme/Widgets', 'none', '2026-03-02T09:00:10.000Z', 'replica-a', '2026-03-02T09:00:05.000Z', NULL, '2026-03-02T09:00:00.000Z');
    INSERT INTO merged_pulls (merge_key, repository_key, repository, pull_number, noted_at, branch, merged_at, decide_at, give_up_at, claimed_by, claimed_until)
      VALUES ('acme/ships#7', 'acme/ships', 'Acme/Ships', 7, '2026-03-02T09:00:00.000Z', 'main', '2026-03-02T09:00:00.000Z',
              '2026-03-02T09:00:30.000Z', '2026-03-02T10:00:00.000Z', NULL, NULL);
    INSERT INTO merged_pulls (merge_key, repository_key, repository, pull_number, noted_at, branch, merged_at, decide_at, give_up_at, claimed_by, claimed_until)
      VALUES ('acme/ships#8', 'acme/ships', 'Acme/Ships', 8, '2026-03-02T09:00:00.000Z', 'main', '2026-03-02T09:00:00.000Z',
              '2026-03-02T09:00:30.000Z', '2026-03-02T10:00:00.000Z', 'replica-b', '2026-03-02T09:01:30.000Z');
    INSERT INTO merged_pulls (merge_key, repository_key, repository, pull_number, noted_at, branch, merged_at, decide_at, give_up_at, judged_at, verdict)
      VALUES ('acme/ships#9', 'acme/ships', 'Acme/Ships', 9, '2026-03-02T09:00:00.000Z', 'main', '2026-03-02T09:00:00.000Z',
              '2026-03-02T09:00:30.000Z', '2026-03-02T10:00:00.000Z', '2026-03-02T09:00:31.000Z', 'queue');
    INSERT INTO merged_pulls (merge_key, repository_key, repository, pull_number, noted_at, queue_merged_at)
      VALUES ('acme/ships#10', 'acme/ships', 'Acme/Ships', 10, '2026-03-02T09:00:00.000Z', '2026-03-02T09:00:00.000Z');
    INSERT INTO relays (id, repository_key, repository, pull_request, command_name, surface, relayed_at, deadline, relay, presentation,
                        answer_version, applied_version, superseded, apply_owner, apply_until)
      VALUES ('r-due', 'acme/widgets', 'Acme/Widgets', 42, 'queue', 'github', '2026-03-02T09:00:00.000Z', '2026-03-02T09:10:00.000Z',
              '{}', '{"commentId":5}', 2, 1, 0, 'replica-c', '2026-03-02T09:00:40.000Z');
    INSERT INTO relays (id, repository_key, repository, pull_request, command_name, surface, relayed_at, deadline, relay, presentation,
                        answer_version, applied_version, superseded, apply_owner, apply_until)
      VALUES ('r-shown', 'acme/widgets', 'Acme/Widgets', 42, 'queue', 'github', '2026-03-02T09:00:00.000Z', '2026-03-02T09:10:00.000Z',
              '{}', '{"commentId":5}', 1, 1, 0, NULL, NULL);
    INSERT INTO relays (id, repository_key, repository, pull_request, command_name, surface, relayed_at, deadline, relay, presentation,
                        answer_version, applied_version, superseded, apply_owner, apply_until)
      VALUES ('r-unpresented', 'acme/widgets', 'Acme/Widgets', 43, 'queue', 'github', '2026-03-02T09:00:00.000Z', '2026-03-02T09:10:00.000Z',
              '{}', NULL, 1, 0, 0, NULL, NULL)`;

  async function check(database: ReturnType<typeof openDatabase>) {
    await migrateWith(database, before, rows);
    const items = await database.db
      .selectFrom("work_items")
      .selectAll()
      .orderBy("kind")
      .orderBy("key")
      .execute();
    const iso = (value: unknown) => (value === null ? null : new Date(value as string).toISOString());
    const json = (value: unknown) => (typeof value === "string" ? JSON.parse(value) : value);
    expect(
      items.map((i) => [i.kind, i.key, iso(i.due_at), i.claimed_by, iso(i.claimed_until), json(i.payload)]),
    ).toEqual([
      [
        "failure-details",
        "77",
        "2026-03-02T09:01:00.000Z",
        "replica-a",
        "2026-03-02T09:01:00.000Z",
        { repository: "Acme/Widgets", event: { id: 77, kind: "left", pull: 42 } },
      ],
      [
        "failure-details",
        "78",
        "2026-03-02T09:01:00.000Z",
        "replica-a",
        "2026-03-02T09:01:00.000Z",
        { repository: "Acme/Widgets", event: null },
      ],
      [
        "merged-pull",
        "acme/ships#7",
        "2026-03-02T09:00:30.000Z",
        null,
        null,
        { repository: "Acme/Ships", number: 7 },
      ],
      [
        "merged-pull",
        "acme/ships#8",
        "2026-03-02T09:01:30.000Z",
        "replica-b",
        "2026-03-02T09:01:30.000Z",
        { repository: "Acme/Ships", number: 8 },
      ],
      ["relay-answer", "r-due", "2026-03-02T09:00:40.000Z", "replica-c", "2026-03-02T09:00:40.000Z", {}],
    ]);
  }

  onBothDialects(pg, "copies them", check);
});

/**
 * Migration 043 copies the gate's claims in flight into durable work: a claim without a check run (dead
 * or refused by GitHub) as a `gate-check` item, a refused completion of a gate no longer paused as a
 * `gate-complete` item; a gate made, completed, or held under a pause is not copied.
 */
describe("migration 043 (gate work)", () => {
  const pg = usePostgres();
  const before = MIGRATIONS.filter((m) => m.version < 43);
  const gate = (sha: string, pull: number, state: string, runId: string, more: string) =>
    `INSERT INTO gate_checks (repository_key, head_sha, check_name, repository, branch, kind, pull_number,
       position, check_run_id, state, claimed_by, created_at, claimed_at, attempts, retry_at)
     VALUES ('acme/ships', '${sha.repeat(40)}', 'yardmaster/gate', 'acme/ships', '${pull > 20 ? "held" : "main"}',
       'group', ${pull}, ${pull}, ${runId}, '${state}', 'old', '2026-03-02T08:00:00.000Z', ${more})`;
  const rows = [
    `INSERT INTO gate_pauses (repository_key, branch, repository, pause_id, reason, paused_by, paused_at)
       VALUES ('acme/ships', 'held', 'acme/ships', 'p1', 'deploy', 'alice', '2026-03-02T07:00:00.000Z')`,
    gate("a", 1, "claimed", "NULL", "'2026-03-02T08:00:30.000Z', 0, NULL"),
    gate("b", 2, "claimed", "NULL", "NULL, 2, '2026-03-02T08:05:00.000Z'"),
    gate("c", 3, "queued", "77", "NULL, 1, '2026-03-02T08:06:00.000Z'"),
    gate("d", 4, "success", "78", "NULL, 0, NULL"),
    gate("e", 5, "queued", "79", "NULL, 0, NULL"),
    gate("f", 21, "queued", "80", "NULL, 1, '2026-03-02T08:07:00.000Z'"),
    "UPDATE gate_checks SET reconsider = 1 WHERE pull_number IN (5, 21, 4)",
  ].join(";");
  const iso = (value: unknown) => (value === null ? null : new Date(value as string).toISOString());
  const json = (value: unknown) => (typeof value === "string" ? JSON.parse(value) : value);

  async function check(database: ReturnType<typeof openDatabase>) {
    await migrateWith(database, before, rows);
    const items = await database.db
      .selectFrom("work_items")
      .selectAll()
      .where("kind", "in", ["gate-check", "gate-complete"])
      .orderBy("key")
      .execute();
    const key = (sha: string) => `acme/ships ${sha.repeat(40)} yardmaster/gate`;
    expect(items.map((i) => [i.kind, i.key, iso(i.due_at), i.claimed_by, i.attempts])).toEqual([
      ["gate-check", key("a"), "2026-03-02T08:01:30.000Z", null, 0],
      ["gate-check", key("b"), "2026-03-02T08:05:00.000Z", null, 2],
      ["gate-complete", key("c"), "2026-03-02T08:06:00.000Z", null, 1],
    ]);
    // The branches with held gates flagged to be decided again: one item each, due at once.
    const reconsiders = await database.db
      .selectFrom("work_items")
      .select(["key", "payload"])
      .where("kind", "=", "gate-reconsider")
      .orderBy("key")
      .execute();
    expect(reconsiders.map((i) => [i.key, json(i.payload)])).toEqual([
      ["acme/ships held", { repository: "acme/ships", branch: "held" }],
      ["acme/ships main", { repository: "acme/ships", branch: "main" }],
    ]);
    expect(json(items[0]?.payload)).toEqual({
      repository: "acme/ships",
      headSha: "a".repeat(40),
      name: "yardmaster/gate",
      branch: "main",
      kind: "group",
      pullNumber: 1,
    });
    expect(json(items[2]?.payload)).toEqual({
      repository: "acme/ships",
      headSha: "c".repeat(40),
      name: "yardmaster/gate",
    });
    // The gates' record and its old columns stay, for older replicas.
    const kept = await database.db.selectFrom("gate_checks").select(["head_sha", "retry_at"]).execute();
    expect(kept).toHaveLength(6);
  }

  onBothDialects(pg, "copies them", check);
});
