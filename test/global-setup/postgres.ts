// A PostgreSQL for the integration tests, found or started once per run (tools/postgres/find-postgres.ts:
// TEST_DATABASE_URL as given; a server answering on 127.0.0.1:5432; else an embedded one, stopped at the
// end of the run); its URL reaches the test files as TEST_DATABASE_URL.

import { findPostgres } from "../../tools/postgres/find-postgres.js";

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  try {
    const found = await findPostgres();
    process.env.TEST_DATABASE_URL = found.url;
    return found.source === "embedded" ? found.stop : undefined;
  } catch (error) {
    // The other tests still run; the PostgreSQL ones fail, saying PostgreSQL is not reachable.
    console.error((error as Error).message);
    return undefined;
  }
}
