import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe } from "vitest";
import { Repo } from "../../../src/repo.js";
import { openStore, openStoreAsIs, type Store } from "../../../src/store/index.js";
import { emptySchema, expectFresh, PG_URL, SPARE_PREFIX, spareSchemas } from "../../helpers/postgres.js";

// The store's contract, one file per concern (as src/store is split), each run against every
// implementation: SQLite and PostgreSQL. Each test gets an empty, migrated store (PostgreSQL: a schema
// migrated once per worker, emptied after each test).

export interface Harness {
  /** A fresh, empty, migrated store. */
  open(): Promise<Store>;
  /** A fresh database opened as it is, never migrated. */
  openAsIs(): Promise<Store>;
  /** Closes what `open` made and removes its data. */
  cleanup(): Promise<void>;
}

function sqliteHarness(): Harness {
  const stores: Store[] = [];
  return {
    async open() {
      const store = await openStore({ kind: "sqlite", path: ":memory:" });
      stores.push(store);
      return store;
    },
    async openAsIs() {
      const store = openStoreAsIs({ kind: "sqlite", path: ":memory:" });
      stores.push(store);
      return store;
    },
    async cleanup() {
      for (const store of stores.splice(0)) await store.close();
    },
  };
}

/** Connects an admin client, failing (not skipping) with a clear message when PostgreSQL is unreachable. */
async function connectPostgres(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    const e = error as { code?: string; message?: string };
    throw new Error(
      `PostgreSQL is not reachable at ${PG_URL.replace(/:[^:@/]*@/, ":***@")} (${e.code ?? e.message}). ` +
        "The PostgreSQL store tests need it (CI provides one): start PostgreSQL or set TEST_DATABASE_URL.",
    );
  }
  return client;
}

/**
 * PostgreSQL: a schema migrated once is emptied after each test and handed on to the worker's next file
 * (`spareSchemas`): migrating one takes a second or more under load (41 migrations), nine tenths of the
 * contract's time when each test migrated its own. A test that opens a second store at once gets a second
 * schema; a schema that cannot be emptied is dropped.
 */
function postgresHarness(): Harness {
  let admin: pg.Client | undefined;
  let unreachable: Error | undefined;
  const stores: Store[] = [];
  const free: string[] = [];
  const inUse: string[] = [];
  const connected = (): pg.Client => {
    if (!admin) throw unreachable ?? new Error("PostgreSQL is not connected");
    return admin;
  };
  beforeAll(async () => {
    // Kept and thrown from each test's setup, so that every PostgreSQL test fails (none is skipped).
    admin = await connectPostgres().catch((error: Error) => {
      unreachable = error;
      return undefined;
    });
  });
  afterAll(async () => {
    if (spareSchemas.run) spareSchemas.free.push(...free.splice(0));
    for (const schema of free.splice(0)) await dropSchemaNamed(admin, schema);
    await admin?.end();
  });
  return {
    async open() {
      const client = connected();
      const reused = free.pop() ?? spareSchemas.free.pop();
      const schema = reused ?? newSchemaName();
      inUse.push(schema);
      const store = await openStore({ kind: "postgres", url: PG_URL, schema });
      stores.push(store);
      if (!reused) await expectFresh(client, schema);
      return store;
    },
    async openAsIs() {
      connected();
      const schema = `ym_test_${randomBytes(6).toString("hex")}`;
      const store = openStoreAsIs({ kind: "postgres", url: PG_URL, schema });
      stores.push(store);
      return store;
    },
    async cleanup() {
      for (const store of stores.splice(0)) await store.close();
      for (const schema of inUse.splice(0)) {
        if (admin && (await emptied(admin, schema))) free.push(schema);
        else await dropSchemaNamed(admin, schema);
      }
    },
  };
}

/** Whether `schema` could be emptied for the next test (a test may have changed its tables). */
async function emptied(admin: pg.Client, schema: string): Promise<boolean> {
  try {
    await emptySchema(admin, schema);
    return true;
  } catch {
    return false;
  }
}

/** A spare schema's name when the run drops them at its end, else one this file drops. */
function newSchemaName(): string {
  const id = randomBytes(6).toString("hex");
  return spareSchemas.run ? `${SPARE_PREFIX}${spareSchemas.run}_${id}` : `ym_test_${id}`;
}

async function dropSchemaNamed(admin: pg.Client | undefined, schema: string): Promise<void> {
  await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}

export const T0 = new Date("2025-03-01T12:00:00.000Z");
export const r = (fullName: string): Repo => Repo.from(fullName);
export const at = (ms: number): Date => new Date(T0.getTime() + ms);
export const SECOND = 1000;
export const HOUR = 60 * 60 * SECOND;
export const DAY = 24 * HOUR;
export const MINUTE_MS = 60 * SECOND;

/**
 * Runs `body` (a concern's part of the contract) against each implementation; `h.open()` gives a fresh,
 * empty, migrated store, and everything opened is closed and removed after each test.
 */
export function storeContract(
  concern: string,
  body: (context: { h: Harness; kind: "sqlite" | "postgres" }) => void,
): void {
  describe.each([
    { kind: "sqlite" as const, harness: sqliteHarness },
    { kind: "postgres" as const, harness: postgresHarness },
  ])(`Store contract ($kind): ${concern}`, ({ kind, harness }) => {
    const h = harness();
    afterEach(async () => {
      await h.cleanup();
    });
    body({ h, kind });
  });
}
