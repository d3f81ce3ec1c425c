import type { Repo } from "../repo.js";
import { dayBefore, json, type StoreContext, time } from "./query-helpers.js";

// What is kept of a queue's history: the facts of each finished UTC day of a repository's log (read
// from the log once, for `stats`). The weekly digests posted are once-claims (src/digests, scope
// `digest`); their older table, `digests`, is kept for a rolling upgrade's older replicas (migration 040).

/**
 * A day's queue figures are kept this long: stats reads at most 60 days back (30 days and the 30 before),
 * and the merge queue's log keeps 90.
 */
export const STATS_DAY_RETENTION_MS = 100 * 24 * 60 * 60 * 1000;
/** Queue statistics: the facts of each finished UTC day of a repository's log, read from the log once. */
export interface StatsDayStore {
  /** The days of `days` kept for the repository, by day ("2026-11-20"). */
  getStatsDays(repository: Repo, days: readonly string[]): Promise<Map<string, unknown>>;
  /** Upsert. */
  putStatsDay(repository: Repo, day: string, facts: unknown, now: Date): Promise<void>;
}

export function kyselyStatsDays(ctx: StoreContext): StatsDayStore {
  const { db } = ctx;
  return {
    async getStatsDays(repository, days) {
      if (days.length === 0) return new Map();
      const rows = await db
        .selectFrom("stats_days")
        .select(["day", "facts"])
        .where("repository_key", "=", repository.key)
        .where("day", "in", [...days])
        .execute();
      return new Map(rows.map((row) => [row.day, ctx.v.readJson(row.facts)]));
    },

    async putStatsDay(repository, day, facts, now) {
      await ctx.pruneIfDue("stats_days", now, async () => {
        await db.deleteFrom("stats_days").where("day", "<", dayBefore(now, STATS_DAY_RETENTION_MS)).execute();
      });
      const values = { facts: json(facts), computed_at: time(now) };
      await db
        .insertInto("stats_days")
        .values({ repository_key: repository.key, day, ...values })
        .onConflict((oc) => oc.columns(["repository_key", "day"]).doUpdateSet(values))
        .execute();
    },
  };
}
