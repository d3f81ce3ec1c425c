import type { Wired } from "../app/service.js";
import type { SetupCheck } from "../commands/setup-report.js";
import type { Installations } from "../github/installations.js";
import type { Logger } from "../logger.js";
import type { Repo } from "../repo.js";
import type { Settings } from "../settings/read-settings.js";
import { MIGRATIONS, type Store } from "../store/index.js";
import { databaseWhere } from "./database.js";
import { logSetupReport } from "./log-report.js";
import { runSetupCheck, type SetupCheckDeps, setupCheck } from "./run-setup-check.js";

export interface DoctorDeps {
  config: Settings;
  store: Pick<Store, "appliedMigrations" | "listSubscribedRepositories">;
  logger: Logger;
  /** Aborted once the app stops: a report that comes after is not logged. */
  stopping: AbortController;
}

/**
 * The setup check (src/doctor) on the running store: for `/mq doctor`, and logged once listening when
 * SETUP_CHECK_ON_START is on.
 */
export function wireDoctor(
  deps: DoctorDeps,
  /** The GitHub App's installations once it started: their tokens are this process's own. */
  installations: Installations | null,
): Wired & { check: SetupCheck } {
  const { config: settings, store, logger } = deps;
  const setup: SetupCheckDeps = {
    settings,
    knownMigrations: MIGRATIONS.map((m) => m.version),
    database: async () => ({
      where: databaseWhere(settings.database),
      applied: await store.appliedMigrations(),
    }),
    subscribedRepositories: () => store.listSubscribedRepositories(),
    ...(installations ? { graphqlFor: (repo: Repo) => installations.graphql(repo) } : {}),
  };
  const start = () => {
    if (!settings.setupCheckOnStart) {
      logger.info("The setup check is not run at start (SETUP_CHECK_ON_START=false): /mq doctor runs it.");
      return;
    }
    // Once, in the background: the start neither waits for it nor fails for what it finds, and a
    // stop does not wait for it either (what it would say once the store is closed is not logged).
    void runSetupCheck(setup).then(
      (report) => {
        if (!deps.stopping.signal.aborted) logSetupReport(report, logger.child({ name: "setup-check" }));
      },
      (error: unknown) => logger.warn({ err: error }, "the setup check could not run"),
    );
  };
  return { check: setupCheck(setup), services: [{ name: "setup-check", start, stop: async () => {} }] };
}
