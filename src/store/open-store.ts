import type { Logger } from "../logger.js";
import { type DatabaseSettings, openDatabase } from "./database.js";
import { kyselyStore } from "./kysely-store.js";
import { MIGRATIONS, type Migration } from "./migrations/index.js";
import { migrate } from "./migrations/migrate.js";
import type { Store } from "./store.js";

/**
 * Opens the configured store and applies pending schema migrations. SQLite: creates the file's directory,
 * turns on WAL, `busy_timeout` and foreign keys (`:memory:` works too). PostgreSQL: connects a pool and
 * migrates under an advisory lock (replicas starting at once are safe); rejects when unreachable.
 * `migrations` is for tests, which add their own after the built-in ones.
 */
export async function openStore(
  settings: DatabaseSettings,
  logger?: Logger,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<Store> {
  const database = openDatabase(settings, logger);
  const store = kyselyStore(database);
  try {
    const versions = await migrate(database, migrations);
    const where = database.kind === "postgres" ? { schema: database.schema } : {};
    if (versions.length > 0)
      logger?.info({ store: database.kind, ...where, versions }, "applied store migrations");
    const known = new Set(migrations.map((m) => m.version));
    const newer = (await store.appliedMigrations()).filter((v) => !known.has(v));
    // A newer release migrated the database (a rolling upgrade under way, or a rollback): its migrations
    // only add tables and columns (docs/operations.md, "Upgrades"), so this release runs on, ignoring them.
    if (newer.length > 0)
      logger?.warn(
        { store: database.kind, ...where, newer },
        `the database has migration${newer.length > 1 ? "s" : ""} ${newer.join(", ")}, which this version does not know: a newer Yardmaster migrated it; running on (migrations only add)`,
      );
  } catch (error) {
    await database.db.destroy().catch(() => {});
    throw error;
  }
  return store;
}

/**
 * Opens the configured store as it is, without migrating it: for the setup check (`npm run doctor`),
 * which reads what is applied (`appliedMigrations`) and changes nothing. Only `appliedMigrations`,
 * `ping` and `close` are meant for a store opened this way.
 */
export function openStoreAsIs(settings: DatabaseSettings, logger?: Logger): Store {
  return kyselyStore(openDatabase(settings, logger));
}
