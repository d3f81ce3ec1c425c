import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, afterEach, beforeAll } from "vitest";

/** Set by test/global-setup/postgres.ts (given, found on 127.0.0.1:5432, or embedded). */
export const PG_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

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
