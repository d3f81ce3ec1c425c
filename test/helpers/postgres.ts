import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, afterEach, beforeAll } from "vitest";

/** Set by test/global-setup/postgres.ts (given, found on 127.0.0.1:5432, or embedded). */
export const PG_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** The prefix of the run's spare schemas (`spareSchemas`), which test/global-setup/postgres.ts drops at its end. */
export const SPARE_PREFIX = "ym_spare_";

/**
 * Migrated, emptied schemas that a worker's files hand on to its next (the store contract): each worker
 * migrates one or two rather than each file its own. Named for the run (TEST_SCHEMA_RUN, set by the global
 * setup), whose end drops them; without one, a file's schemas are dropped with it.
 */
export const spareSchemas: { run: string | undefined; free: string[] } = {
  run: process.env.TEST_SCHEMA_RUN,
  free: [],
};

/**
 * An admin connection to the test PostgreSQL and fresh schemas, each dropped after its test. When the
 * server cannot be reached, every test that asks for either fails with a clear message (none is skipped).
 */
export function usePostgres(): { admin(): pg.Client; freshSchema(): string } {
  let client: pg.Client | undefined;
  let unreachable: Error | undefined;
  const schemas: string[] = [];
  beforeAll(async () => {
    const c = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5000 });
    try {
      await c.connect();
      client = c;
    } catch (error) {
      const e = error as { code?: string; message?: string };
      unreachable = new Error(
        `PostgreSQL is not reachable at ${PG_URL.replace(/:[^:@/]*@/, ":***@")} (${e.code ?? e.message}). ` +
          "The PostgreSQL store tests need it (CI provides one): start PostgreSQL or set TEST_DATABASE_URL.",
      );
    }
  });
  afterEach(async () => {
    for (const schema of schemas.splice(0)) await client?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });
  afterAll(async () => {
    await client?.end();
  });
  const admin = (): pg.Client => {
    if (!client) throw unreachable ?? new Error("PostgreSQL is not connected");
    return client;
  };
  return {
    admin,
    freshSchema() {
      admin();
      const schema = `ym_test_${randomBytes(6).toString("hex")}`;
      schemas.push(schema);
      return schema;
    },
  };
}

/**
 * A schema of its own on the test PostgreSQL, for an end-to-end file whose replicas share one database:
 * an admin connection, and a DATABASE_URL whose search_path is the schema. `dropSchema` removes it.
 */
export async function createSchema(schema: string): Promise<{ admin: pg.Client; url: string }> {
  const admin = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL is not reachable at ${PG_URL.replace(/:[^:@/]*@/, ":***@")} (${(error as Error).message}): start it or set TEST_DATABASE_URL`,
    );
  }
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(PG_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return { admin, url: url.toString() };
}

export async function dropSchema(admin: pg.Client | undefined, schema: string): Promise<void> {
  await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin?.end();
}

/**
 * A schema of its own on the test PostgreSQL for an end-to-end file whose replicas share one database:
 * made before the file's own `beforeAll` (call this at the top of the file, before them) and dropped
 * after its own `afterAll` (hooks run in reverse, so the replicas are closed first). `url()` is the
 * DATABASE_URL whose search_path is the schema; `name` qualifies tables in an `admin()` query.
 */
export function useSchema(prefix: string): { name: string; url(): string; admin(): pg.Client } {
  const name = `${prefix}_${randomBytes(5).toString("hex")}`;
  let made: { admin: pg.Client; url: string } | undefined;
  beforeAll(async () => {
    made = await createSchema(name);
  });
  afterAll(async () => {
    await dropSchema(made?.admin, name);
  });
  const get = () => {
    if (!made) throw new Error(`the schema ${name} is made before the file's tests`);
    return made;
  };
  return { name, url: () => get().url, admin: () => get().admin };
}

/** The tables of `schema` but `schema_migrations`, qualified and quoted for a statement. */
async function tablesOf(admin: pg.Client, schema: string): Promise<string[]> {
  const { rows } = await admin.query<{ name: string }>(
    "SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE schemaname = $1 AND tablename <> 'schema_migrations' ORDER BY tablename",
    [schema],
  );
  return rows.map((row) => row.name);
}

/**
 * Empties a migrated schema for the next test: deletes the rows of every table but `schema_migrations`,
 * which leaves it as a fresh migration does (`expectFresh` checks that a migration leaves no other rows,
 * and no sequence, which a delete would not restart). DELETE rather than TRUNCATE, without waiting for
 * the commit's flush: TRUNCATE makes each table's files anew, 0.2 to 0.8 s on a loaded machine.
 */
export async function emptySchema(admin: pg.Client, schema: string): Promise<void> {
  const deletes = (await tablesOf(admin, schema)).map((table) => `DELETE FROM ${table};`);
  await admin.query(`BEGIN; SET LOCAL synchronous_commit = off; ${deletes.join(" ")} COMMIT;`);
}

/** Throws if a freshly migrated schema has a sequence, or rows outside `schema_migrations`, which `emptySchema` would not restore. */
export async function expectFresh(admin: pg.Client, schema: string): Promise<void> {
  const sequences = await admin.query("SELECT 1 FROM pg_sequences WHERE schemaname = $1", [schema]);
  if (sequences.rows.length > 0)
    throw new Error(
      `${schema} has a sequence: emptySchema would not restart it, so a reused schema is no longer fresh`,
    );
  const tables = await tablesOf(admin, schema);
  if (tables.length === 0) return;
  const { rows } = await admin.query<{ name: string }>(
    tables
      .map((t) => `SELECT '${t.replaceAll("'", "''")}' AS name FROM ${t} HAVING count(*) > 0`)
      .join(" UNION ALL "),
  );
  if (rows.length > 0)
    throw new Error(
      `a fresh migration leaves rows in ${rows.map((r) => r.name).join(", ")}: emptySchema would remove them, so a reused schema is no longer fresh`,
    );
}
