import { sql } from "kysely";
import { kyselyCommandSteps } from "./command-steps.js";
import { type Database, inTransaction } from "./database.js";
import { kyselyFailureDetails } from "./failure-details.js";
import { kyselyFlakeShield } from "./flake-shield.js";
import { kyselyFreezes } from "./freezes.js";
import { kyselyGates } from "./gates.js";
import { kyselyGitHubQueuePulls } from "./github-queue-pulls.js";
import { kyselyHealthEpisodes } from "./health-episodes.js";
import { kyselyHistory } from "./history.js";
import { kyselyIdentities } from "./identities.js";
import { kyselyMergedPulls } from "./merged-pulls.js";
import { kyselyOnceClaims } from "./once-claims.js";
import { kyselyOutbox } from "./outbox.js";
import { kyselyPauses } from "./pauses.js";
import { kyselyPolls } from "./polls.js";
import { type StoreContext, storeContext } from "./query-helpers.js";
import { kyselyQueueRequests } from "./queue-requests.js";
import { kyselyRelays } from "./relays.js";
import { kyselySharedGitHubWrites } from "./shared-github-writes.js";
import { kyselyStatsDays } from "./stats-and-digests.js";
import type { Store, StoreLifecycle } from "./store.js";
import { kyselySubscriptions } from "./subscriptions.js";
import { kyselyWebhookJobs } from "./webhook-jobs.js";
import { kyselyWorkItems } from "./work-items.js";

/**
 * The store, written once for SQLite and PostgreSQL: the facade over each concern's queries (one file
 * per concern, sharing query-helpers.ts). Use `openStore`, which migrates the database first.
 */
export function kyselyStore(database: Database): Store {
  const ctx = storeContext(database);
  return {
    ...lifecycle(ctx),
    ...kyselyIdentities(ctx),
    ...kyselySubscriptions(ctx),
    ...kyselyWebhookJobs(ctx),
    ...kyselyPolls(ctx),
    ...kyselyOutbox(ctx),
    ...kyselyPauses(ctx),
    ...kyselyStatsDays(ctx),
    ...kyselyRelays(ctx),
    ...kyselyGitHubQueuePulls(ctx),
    ...kyselySharedGitHubWrites(ctx),
    ...kyselyHistory(ctx),
    ...kyselyFreezes(ctx),
    ...kyselyGates(ctx),
    ...kyselyHealthEpisodes(ctx),
    ...kyselyFailureDetails(ctx),
    ...kyselyQueueRequests(ctx),
    ...kyselyCommandSteps(ctx),
    ...kyselyMergedPulls(ctx),
    ...kyselyFlakeShield(ctx),
    ...kyselyWorkItems(ctx),
    ...kyselyOnceClaims(ctx),
  };
}

function lifecycle(ctx: StoreContext): StoreLifecycle {
  const { database, db } = ctx;
  let closed = false;
  /**
   * What `ping` asks: SQLite's file is still the one opened and writable; the schema's bookkeeping table
   * answers a query; a write transaction can begin (SQLite takes its write lock) and end.
   */
  const check = async (): Promise<void> => {
    database.checkFile();
    await sql`SELECT max(version) FROM schema_migrations`.execute(db);
    await inTransaction(database, async () => {});
  };
  return {
    kind: ctx.kind,

    async ping() {
      if (closed) return false;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), database.pingTimeoutMs);
      });
      try {
        const query = check().then(
          () => true,
          () => false,
        );
        return await Promise.race([query, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },

    async appliedMigrations() {
      // Whether the bookkeeping table exists where the queries look (PostgreSQL: on the search path).
      const exists =
        ctx.kind === "sqlite"
          ? sql<{
              found: number;
            }>`SELECT count(*) AS found FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`
          : sql<{
              found: number;
            }>`SELECT CASE WHEN to_regclass('schema_migrations') IS NULL THEN 0 ELSE 1 END AS found`;
      const { rows } = await exists.execute(db);
      if (Number(rows[0]?.found ?? 0) === 0) return [];
      const applied = await sql<{
        version: number | string;
      }>`SELECT version FROM schema_migrations ORDER BY version`.execute(db);
      return applied.rows.map((r) => Number(r.version));
    },

    async close() {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}
