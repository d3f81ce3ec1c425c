import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { SetupReport } from "../commands/setup-report.js";
import { databaseWhere } from "../doctor/database.js";
import { formatSetupLine, runSetupCheck, setupVerdict } from "../doctor/run-setup-check.js";
import { ConfigError, type Settings } from "../settings/read-settings.js";
import { MIGRATIONS, openStoreAsIs, type StoreLifecycle, type SubscriptionStore } from "../store/index.js";
import { loadConfig } from "./config.js";
import { HOW_TO_CONFIGURE } from "./start-log.js";

/**
 * `npm run doctor`: checks the configuration of this environment (and .env) against GitHub, Slack, the
 * merge queue and the database, prints one line per check, and returns 1 when a required check failed.
 * It changes nothing: the database is opened as it is, never migrated or created.
 */
export async function doctor(
  env: Record<string, string | undefined>,
  write: (line: string) => void,
): Promise<number> {
  let settings: Settings;
  try {
    settings = loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    if (error.nothingConfigured) {
      write(HOW_TO_CONFIGURE);
      return 1;
    }
    for (const problem of error.problems)
      write(
        formatSetupLine({
          check: "settings",
          status: "fail",
          message: problem,
          fix: "see .env.example and the README's settings table",
        }),
      );
    write("The other checks need the settings: fix them and run npm run doctor again.");
    return 1;
  }
  const store = openAsIs(settings.database);
  try {
    const report = await runSetupCheck({
      settings,
      knownMigrations: MIGRATIONS.map((m) => m.version),
      database: async () => {
        const opened = store.get();
        return { where: store.where, applied: opened ? await opened.appliedMigrations() : null };
      },
      subscribedRepositories: async () => {
        const opened = store.get();
        // A database never migrated has no subscriptions yet.
        if (!opened || (await opened.appliedMigrations()).length === 0) return [];
        return opened.listSubscribedRepositories();
      },
    });
    printReport(report, write);
    return report.failed ? 1 : 0;
  } finally {
    await store.close();
  }
}

function printReport(report: SetupReport, write: (line: string) => void): void {
  for (const line of report.lines) write(formatSetupLine(line));
  write(setupVerdict(report));
}

/** The store, opened on first use (never created: a missing SQLite file stays missing). */
/** What the setup check reads of the store: what is applied, and the subscribed repositories. */
type CheckedStore = StoreLifecycle & Pick<SubscriptionStore, "listSubscribedRepositories">;

function openAsIs(database: Settings["database"]) {
  const where = databaseWhere(database);
  const missing =
    database.kind === "sqlite" && database.path !== ":memory:" && !existsSync(resolve(database.path));
  let store: CheckedStore | undefined;
  return {
    where,
    get(): CheckedStore | undefined {
      if (missing) return undefined;
      store ??= openStoreAsIs(database);
      return store;
    },
    close: async () => store?.close(),
  };
}
