import type { Selectable } from "kysely";
import type { FlakeShieldSetting } from "../core/records.js";
import { Repo } from "../repo.js";
import { inTransaction, type Tables } from "./database.js";
import { int, maybeTime, readTime, type StoreContext, time } from "./query-helpers.js";

// The flake shield (src/shield/, docs/notifications.md "The flake shield"): whether it is on per
// repository, and the record of its re-queues, one per queue entry whatever the replicas (each claimed
// with a once-claim, scope `flake-shield`, by src/shield/shield.ts), kept 90 days for its figures.

/** What came of a re-queue the shield claimed: not decided yet, queued again, failed, or left alone. */
export type ShieldOutcome = "pending" | "requeued" | "failed" | "skipped";

/** One removal the shield took on: claimed by one replica for the pull request's queue entry. */
export interface ShieldRetry {
  repository: Repo;
  pull: number;
  /** The queue entry the removal ended (its `entered` event's id), or the removal's own when unknown. */
  entryKey: string;
  /** The removal (its `left` event). */
  leftEventId: number;
  leftAt: Date;
  /** The check that was failing for everyone. */
  check: string;
  claimedBy: string;
  claimedAt: Date;
  outcome: ShieldOutcome;
  /** Why it failed or was left alone, in plain words; null when queued again (or still pending). */
  detail: string | null;
  decidedAt: Date | null;
}

/** What a replica asks to take on a removal for. */
export type ShieldRetryClaim = Pick<
  ShieldRetry,
  "repository" | "pull" | "entryKey" | "leftEventId" | "leftAt" | "check"
> & { owner: string; now: Date };

export interface FlakeShieldStore {
  /** The repository's setting; null when never set (off). */
  getFlakeShield(repository: Repo): Promise<FlakeShieldSetting | null>;
  /** Upsert per repository; returns the setting it replaced (null: none). */
  putFlakeShield(setting: FlakeShieldSetting): Promise<FlakeShieldSetting | null>;
  /**
   * Records a removal the shield took on for the pull request's queue entry (its claim is a once-claim,
   * scope `flake-shield`: src/shield/shield.ts): made pending as `owner`'s; a pending record of the same
   * removal becomes `owner`'s (its claimant's claim lapsed and `owner` took it over); a record of another
   * removal, or one decided, is kept as it was. The record as it is after. Records claimed more than
   * SHIELD_RETRY_RETENTION_MS before `now` are forgotten.
   */
  recordShieldRetry(claim: ShieldRetryClaim): Promise<ShieldRetry>;
  /** Records what came of `owner`'s pending claim; false when it is not `owner`'s or not pending. */
  decideShieldRetry(
    key: Pick<ShieldRetry, "repository" | "pull" | "entryKey">,
    owner: string,
    decision: { outcome: Exclude<ShieldOutcome, "pending">; detail: string | null; at: Date },
  ): Promise<boolean>;
  /** The claim of a pull request's queue entry, or null. */
  getShieldRetry(key: Pick<ShieldRetry, "repository" | "pull" | "entryKey">): Promise<ShieldRetry | null>;
  /**
   * The repository's claims made from `from` (included) to `to` (excluded), oldest first; of one pull
   * request when `pull` is given.
   */
  listShieldRetries(repository: Repo, range: { from: Date; to: Date; pull?: number }): Promise<ShieldRetry[]>;
}

/** How long a re-queue is kept: the 30-day stats and their previous period, and some. */
export const SHIELD_RETRY_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;

export function kyselyFlakeShield(ctx: StoreContext): FlakeShieldStore {
  const { db } = ctx;
  const get = async (repository: Repo) => {
    const row = await db
      .selectFrom("flake_shields")
      .selectAll()
      .where("repository_key", "=", repository.key)
      .executeTakeFirst();
    return row ? settingOf(row) : null;
  };
  const getRetry: FlakeShieldStore["getShieldRetry"] = async (key) => {
    const row = await db
      .selectFrom("shield_retries")
      .selectAll()
      .where("repository_key", "=", key.repository.key)
      .where("pull_number", "=", key.pull)
      .where("entry_key", "=", key.entryKey)
      .executeTakeFirst();
    return row ? retryOf(row) : null;
  };
  return {
    getFlakeShield: get,

    async putFlakeShield(setting) {
      const values = {
        repository: setting.repository.fullName,
        enabled: setting.enabled ? 1 : 0,
        changed_by: setting.changedBy,
        surface: setting.surface,
        changed_at: time(setting.changedAt),
      };
      return inTransaction(ctx.database, async (tx) => {
        const before = await tx
          .selectFrom("flake_shields")
          .selectAll()
          .where("repository_key", "=", setting.repository.key)
          .executeTakeFirst();
        await tx
          .insertInto("flake_shields")
          .values({ repository_key: setting.repository.key, ...values })
          .onConflict((oc) => oc.column("repository_key").doUpdateSet(values))
          .execute();
        return before ? settingOf(before) : null;
      });
    },

    async recordShieldRetry(claim) {
      await ctx.pruneIfDue("shield_retries", claim.now, () =>
        db
          .deleteFrom("shield_retries")
          .where("claimed_at", "<", time(new Date(claim.now.getTime() - SHIELD_RETRY_RETENTION_MS)))
          .execute(),
      );
      await db
        .insertInto("shield_retries")
        .values({
          repository_key: claim.repository.key,
          repository: claim.repository.fullName,
          pull_number: claim.pull,
          entry_key: claim.entryKey,
          left_event_id: claim.leftEventId,
          left_at: time(claim.leftAt),
          check_name: claim.check,
          claimed_by: claim.owner,
          claimed_at: time(claim.now),
          outcome: "pending",
          detail: null,
          decided_at: null,
        })
        .onConflict((oc) =>
          oc
            .columns(["repository_key", "pull_number", "entry_key"])
            .doUpdateSet({ claimed_by: claim.owner })
            .where("shield_retries.outcome", "=", "pending")
            .where("shield_retries.left_event_id", "=", claim.leftEventId),
        )
        .execute();
      const record = await getRetry(claim);
      if (!record) throw new Error("a flake shield record was neither made nor found");
      return record;
    },

    async decideShieldRetry(key, owner, decision) {
      const row = await db
        .updateTable("shield_retries")
        .set({ outcome: decision.outcome, detail: decision.detail, decided_at: time(decision.at) })
        .where("repository_key", "=", key.repository.key)
        .where("pull_number", "=", key.pull)
        .where("entry_key", "=", key.entryKey)
        .where("claimed_by", "=", owner)
        .where("outcome", "=", "pending")
        .returning("entry_key")
        .executeTakeFirst();
      return row !== undefined;
    },

    getShieldRetry: getRetry,

    async listShieldRetries(repository, range) {
      let query = db
        .selectFrom("shield_retries")
        .selectAll()
        .where("repository_key", "=", repository.key)
        .where("claimed_at", ">=", time(range.from))
        .where("claimed_at", "<", time(range.to));
      if (range.pull !== undefined) query = query.where("pull_number", "=", range.pull);
      const rows = await query.orderBy("claimed_at").orderBy("pull_number").execute();
      return rows.map(retryOf);
    },
  };
}

function settingOf(row: Selectable<Tables["flake_shields"]>): FlakeShieldSetting {
  return {
    repository: Repo.from(row.repository),
    enabled: row.enabled === 1,
    changedBy: row.changed_by,
    surface: row.surface,
    changedAt: readTime(row.changed_at),
  };
}

function retryOf(row: Selectable<Tables["shield_retries"]>): ShieldRetry {
  return {
    repository: Repo.from(row.repository),
    pull: row.pull_number,
    entryKey: row.entry_key,
    leftEventId: int(row.left_event_id),
    leftAt: readTime(row.left_at),
    check: row.check_name,
    claimedBy: row.claimed_by,
    claimedAt: readTime(row.claimed_at),
    outcome: row.outcome,
    detail: row.detail,
    decidedAt: maybeTime(row.decided_at),
  };
}
