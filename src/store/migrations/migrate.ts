import { type Kysely, sql } from "kysely";
import { type Database, inTransaction } from "../database.js";
import { MIGRATIONS } from "./index.js";
import { columnTypes, type Migration } from "./migration.js";

/**
 * First key of the two-key advisory lock that serialises PostgreSQL migrations ("YmSt"); the second is
 * the schema's hash. The same keys as every earlier release, so that replicas of two releases starting
 * at once still take turns.
 */
export const MIGRATION_LOCK_CLASS = 0x596d5374;

/** The bookkeeping table, as every release has made it (each applied version and when). */
type Bookkeeping = {
  schema_migrations: { version: number; name: string; applied_at: string };
};

/**
 * Applies the migrations not yet recorded in `schema_migrations`, in order, all in one transaction, and
 * returns the versions applied (empty when the schema was up to date). SQLite's transaction takes the
 * write lock first, so a second process opening the file waits; PostgreSQL's takes an advisory lock
 * keyed on the schema, so a second replica waits, then finds nothing to do. A failing migration leaves
 * nothing behind, not even the ones before it.
 */
export async function migrate(
  database: Database,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number[]> {
  checkMigrations(migrations);
  const t = columnTypes(database.kind);
  return inTransaction(database, async (tx) => {
    const db = tx.withTables<Bookkeeping>();
    if (database.kind === "postgres") {
      await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_CLASS}, hashtext(coalesce(${database.schema ?? null}::text, current_schema(), '')))`.execute(
        db,
      );
      if (database.schema !== undefined)
        await db.schema.createSchema(database.schema).ifNotExists().execute();
    }
    await db.schema
      .createTable("schema_migrations")
      .ifNotExists()
      .addColumn("version", "integer", (c) => c.primaryKey())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("applied_at", t.time, (c) =>
        t.dialect === "postgres" ? c.notNull().defaultTo(sql`now()`) : c.notNull(),
      )
      .execute();
    const rows = await db.selectFrom("schema_migrations").select("version").execute();
    const applied = new Set(rows.map((r) => r.version));
    const done: number[] = [];
    for (const m of migrations) {
      if (applied.has(m.version)) continue;
      await m.up(db as Kysely<unknown>, t);
      await db
        .insertInto("schema_migrations")
        .values({ version: m.version, name: m.name, applied_at: new Date().toISOString() })
        .execute();
      done.push(m.version);
    }
    return done;
  });
}

/** Throws unless versions are positive, unique and strictly increasing (a programming error). */
export function checkMigrations(migrations: readonly Migration[]): void {
  let previous = 0;
  for (const m of migrations) {
    if (!Number.isInteger(m.version) || m.version <= previous) {
      throw new Error(
        `Migrations must be numbered in strictly increasing order: ${m.version} after ${previous}`,
      );
    }
    previous = m.version;
  }
}
