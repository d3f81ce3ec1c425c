import type { Repo } from "../repo.js";
import { dayBefore, json, readTime, type StoreContext, time } from "./query-helpers.js";

// What is kept of a queue's history: the facts of each finished UTC day of a repository's log (read
// from the log once, for `stats`), and the weekly digests posted (one per channel, repository and week).

/**
 * A day's queue figures are kept this long: stats reads at most 60 days back (30 days and the 30 before),
 * and the merge queue's log keeps 90.
 */
export const STATS_DAY_RETENTION_MS = 100 * 24 * 60 * 60 * 1000;
/** A sent (or abandoned) weekly digest's record is kept this long: only this week's is ever asked for. */
export const DIGEST_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;

export interface DigestKey {
  channelId: string;
  repository: Repo;
  /** The Monday's date in the digest's time zone, e.g. "2026-11-23". */
  week: string;
}

export interface DigestClaim extends DigestKey {
  owner: string;
  now: Date;
  until: Date;
}

/** Weekly digests: one per (channel, repository, week), posted once across replicas and restarts. */
export interface DigestStore {
  /**
   * Claims a week's digest for `owner` until `until`: "new" the first time, "in-doubt" when an earlier
   * claim ran out without being marked sent (its post may have landed), null when it was sent or a live
   * claim holds it. One statement each way: of two concurrent claims, one gets it.
   */
  claimDigest(claim: DigestClaim): Promise<"new" | "in-doubt" | null>;
  /** Records the digest posted; does nothing unless `owner` holds the claim. */
  markDigestSent(sent: DigestKey & { owner: string; messageTs: string; at: Date }): Promise<void>;
  /** Gives a claim up (nothing was posted), so that the next pass tries again. */
  releaseDigest(key: DigestKey & { owner: string }): Promise<void>;
  /**
   * When the first live claim of a digest not sent yet runs out, after `now` (null: none): a replica
   * that died holding it is replaced then.
   */
  nextDigestClaimLapse(now: Date): Promise<Date | null>;
}

/** Queue statistics: the facts of each finished UTC day of a repository's log, read from the log once. */
export interface StatsDayStore {
  /** The days of `days` kept for the repository, by day ("2026-11-20"). */
  getStatsDays(repository: Repo, days: readonly string[]): Promise<Map<string, unknown>>;
  /** Upsert. */
  putStatsDay(repository: Repo, day: string, facts: unknown, now: Date): Promise<void>;
}

export type StatsAndDigestStore = DigestStore & StatsDayStore;

export function kyselyStatsAndDigests(ctx: StoreContext): StatsAndDigestStore {
  const { db } = ctx;
  return {
    async claimDigest(c) {
      await ctx.pruneIfDue("digests", c.now, async () => {
        // A week's key is its Monday's date; a digest posted on demand's is `now-<when it was asked>`.
        const before = dayBefore(c.now, DIGEST_RETENTION_MS);
        await db
          .deleteFrom("digests")
          .where((eb) =>
            eb.or([
              eb("week", "<", before),
              eb.and([eb("week", ">=", "now-"), eb("week", "<", `now-${before}`)]),
            ]),
          )
          .execute();
      });
      const claim = { claimed_by: c.owner, claimed_at: time(c.now), claimed_until: time(c.until) };
      const key = { channel_id: c.channelId, repository_key: c.repository.key, week: c.week };
      const inserted = await db
        .insertInto("digests")
        .values({ ...key, ...claim })
        .onConflict((oc) => oc.columns(["channel_id", "repository_key", "week"]).doNothing())
        .returning("week")
        .executeTakeFirst();
      if (inserted) return "new";
      const taken = await db
        .updateTable("digests")
        .set(claim)
        .where("channel_id", "=", key.channel_id)
        .where("repository_key", "=", key.repository_key)
        .where("week", "=", key.week)
        .where("sent_at", "is", null)
        .where("claimed_until", "<=", time(c.now))
        .returning("week")
        .executeTakeFirst();
      return taken ? "in-doubt" : null;
    },

    async markDigestSent(d) {
      await db
        .updateTable("digests")
        .set({ sent_at: time(d.at), message_ts: d.messageTs })
        .where("channel_id", "=", d.channelId)
        .where("repository_key", "=", d.repository.key)
        .where("week", "=", d.week)
        .where("claimed_by", "=", d.owner)
        .execute();
    },

    async nextDigestClaimLapse(now) {
      const row = await db
        .selectFrom("digests")
        .select((eb) => eb.fn.min("claimed_until").as("lapse"))
        .where("sent_at", "is", null)
        .where("claimed_until", ">", time(now))
        .executeTakeFirst();
      return row?.lapse ? readTime(row.lapse as Date | string) : null;
    },

    async releaseDigest(d) {
      await db
        .deleteFrom("digests")
        .where("channel_id", "=", d.channelId)
        .where("repository_key", "=", d.repository.key)
        .where("week", "=", d.week)
        .where("claimed_by", "=", d.owner)
        .where("sent_at", "is", null)
        .execute();
    },

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
