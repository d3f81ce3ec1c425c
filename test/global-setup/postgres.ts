// A PostgreSQL for the integration tests, found or started once per run (tools/postgres/find-postgres.ts:
// TEST_DATABASE_URL as given; a server answering on 127.0.0.1:5432; else an embedded one, stopped at the
// end of the run); its URL reaches the test files as TEST_DATABASE_URL. TEST_SCHEMA_RUN names the run's
// spare schemas (test/helpers/postgres.ts, `spareSchemas`), dropped at its end.

import { randomBytes } from "node:crypto";
import pg from "pg";
import { findPostgres } from "../../tools/postgres/find-postgres.js";
import { SPARE_PREFIX } from "../helpers/postgres.js";

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  try {
    const found = await findPostgres();
    process.env.TEST_DATABASE_URL = found.url;
    const run = randomBytes(4).toString("hex");
    process.env.TEST_SCHEMA_RUN = run;
    return async () => {
      await dropSpareSchemas(found.url, run);
      if (found.source === "embedded") await found.stop();
    };
  } catch (error) {
    // The other tests still run; the PostgreSQL ones fail, saying PostgreSQL is not reachable.
    console.error((error as Error).message);
    return undefined;
  }
}

/** Drops the schemas the run's workers kept to hand on (none when no contract file ran). */
async function dropSpareSchemas(url: string, run: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
    const { rows } = await admin.query<{ name: string }>(
      "SELECT nspname AS name FROM pg_namespace WHERE starts_with(nspname, $1)",
      [`${SPARE_PREFIX}${run}_`],
    );
    for (const { name } of rows) await admin.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
  } catch (error) {
    console.error(`could not drop the run's spare schemas: ${(error as Error).message}`);
  } finally {
    await admin.end().catch(() => undefined);
  }
}
