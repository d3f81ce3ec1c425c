import type { Logger } from "../logger.js";
import { openPostgresStore } from "./postgres-store.js";
import { openSqliteStore } from "./sqlite-store.js";
import type { Store } from "./store.js";

export type DatabaseSettings =
  | { kind: "sqlite"; path: string }
  | {
      kind: "postgres";
      url: string;
      /** Keep the tables in this schema (created if missing) instead of the connection's default. */
      schema?: string;
    };

/**
 * Opens the configured store and applies pending schema migrations. SQLite: creates the file's directory,
 * turns on WAL, `busy_timeout` and foreign keys (`:memory:` works too). PostgreSQL: connects a pool and
 * migrates under an advisory lock (replicas starting at once are safe); rejects when unreachable.
 */
export async function openStore(database: DatabaseSettings, logger?: Logger): Promise<Store> {
  switch (database.kind) {
    case "sqlite":
      return openSqliteStore({ path: database.path, logger });
    case "postgres":
      return openPostgresStore({ url: database.url, schema: database.schema, logger });
  }
}
