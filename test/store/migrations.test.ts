import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import type pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MIGRATIONS, migrate, openDatabase } from "../../src/store/index.js";
import { PG_URL, usePostgres } from "../helpers/postgres.js";
import { LEGACY_MIGRATIONS, migrateLegacyPostgres, migrateLegacySqlite } from "./fixtures/legacy-schema.js";

// The migrations written with Kysely's schema builder make the schema the hand-written SQL made:
// the same tables, columns, types, nullability, defaults, keys, checks and indexes, in both dialects.
// Those that came after the hand-written SQL are applied to such a database in place (legacy.test.ts).

/** The migrations that the hand-written SQL also made. */
const SAME_AS_LEGACY = MIGRATIONS.filter((m) => LEGACY_MIGRATIONS.some((l) => l.version === m.version));

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
