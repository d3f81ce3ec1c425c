import { sql } from "kysely";
import { PRUNE_INTERVAL_MS, readTime, type StoreContext, time } from "./query-helpers.js";

// Once-claims, the durable-work engine's second half (docs/architecture.md, "Durable work"): a thing
// that must be done once, by one replica, named by a scope and a key (a Slack event's id, a webhook
// delivery's id, a summary comment's pull request). Its claim is a lease: the replica that claims it
// holds it until `claimed_until`, renewing while it works; done, it is never claimed again (until
// forgotten); released (its work failed) or lapsed (its replica died), the next claim takes it. The
// work items (`work-items.ts`) are what is due at a time and run again; a once-claim is what is asked
// for by an outside event and done once.

/**
 * What a claim found: `claimed` (now the caller's to do), `done` (done before: do nothing), `held`
 * (another holder is doing it right now, its lease still running).
 */
export type OnceClaim = "claimed" | "done" | "held";

/** A once-claim as recorded. */
export interface OnceRecord {
  /** When it was first claimed (it is forgotten `keepMs` after). */
  firstAt: Date;
  claimedBy: string | null;
  /** Null when released or done. */
  claimedUntil: Date | null;
  doneAt: Date | null;
  /** What its holder recorded when it was done (null when none). */
  result: unknown;
}

export interface OnceClaimRequest {
  owner: string;
  now: Date;
  until: Date;
  /** The scope's keys first claimed more than this before `now` are forgotten now and then. */
  keepMs: number;
}

export interface OnceClaimStore {
  /**
   * Claims `scope`/`key` for `owner` until `until`: when never seen (or forgotten), or not done and its
   * claim lapsed at `now` (or was released). One statement: of two concurrent claims, one gets `claimed`.
   */
  claimOnce(scope: string, key: string, claim: OnceClaimRequest): Promise<OnceClaim>;
  /** Extends `owner`'s claim of a key not done; false if it is not (or no longer) theirs. */
  renewOnce(scope: string, key: string, owner: string, until: Date): Promise<boolean>;
  /** Marks `owner`'s key done at `now`, keeping `result`; false if it was not theirs (taken over) or done already. */
  finishOnce(scope: string, key: string, owner: string, now: Date, result?: unknown): Promise<boolean>;
  /** `owner`'s work failed: the key is free for the next claim at once. Does nothing if it is not theirs. */
  releaseOnce(scope: string, key: string, owner: string): Promise<void>;
  /** The key's record, or null when never claimed (or forgotten). */
  readOnce(scope: string, key: string): Promise<OnceRecord | null>;
}

export function kyselyOnceClaims(ctx: StoreContext): OnceClaimStore {
  const { db } = ctx;
  const mine = (scope: string, key: string, owner: string) =>
    db
      .updateTable("once_claims")
      .where("scope", "=", scope)
      .where("key", "=", key)
      .where("claimed_by", "=", owner)
      .where("done_at", "is", null);
  // A scope kept for less than the pruning interval (Slack's signatures, 15 minutes) is pruned as often.
  const prune = (scope: string, now: Date, keepMs: number) =>
    ctx.pruneIfDue(
      `once_claims:${scope}`,
      now,
      async () => {
        const before = time(new Date(now.getTime() - keepMs));
        await db
          .deleteFrom("once_claims")
          .where("scope", "=", scope)
          .where("first_at", "<", before)
          .execute();
      },
      Math.min(PRUNE_INTERVAL_MS, keepMs),
    );
  return {
    async claimOnce(scope, key, { owner, now, until, keepMs }) {
      await prune(scope, now, keepMs);
      const claim = { claimed_by: owner, claimed_until: time(until) };
      const free = sql<boolean>`(once_claims.done_at IS NULL AND (once_claims.claimed_until IS NULL OR once_claims.claimed_until <= ${time(now)}))`;
      const claimed = await db
        .insertInto("once_claims")
        .values({ scope, key, first_at: time(now), done_at: null, result: null, ...claim })
        .onConflict((oc) => oc.columns(["scope", "key"]).doUpdateSet(claim).where(free))
        .returning("key")
        .executeTakeFirst();
      if (claimed) return "claimed";
      const row = await db
        .selectFrom("once_claims")
        .select("done_at")
        .where("scope", "=", scope)
        .where("key", "=", key)
        .executeTakeFirst();
      return row?.done_at ? "done" : "held";
    },
    async renewOnce(scope, key, owner, until) {
      const row = await mine(scope, key, owner)
        .set({ claimed_until: time(until) })
        .returning("key")
        .executeTakeFirst();
      return row !== undefined;
    },
    async finishOnce(scope, key, owner, now, result) {
      const row = await mine(scope, key, owner)
        .set({
          done_at: time(now),
          claimed_until: null,
          result: result === undefined ? null : JSON.stringify(result),
        })
        .returning("key")
        .executeTakeFirst();
      return row !== undefined;
    },
    async releaseOnce(scope, key, owner) {
      await mine(scope, key, owner).set({ claimed_until: null }).execute();
    },
    async readOnce(scope, key) {
      const row = await db
        .selectFrom("once_claims")
        .selectAll()
        .where("scope", "=", scope)
        .where("key", "=", key)
        .executeTakeFirst();
      if (!row) return null;
      return {
        firstAt: readTime(row.first_at),
        claimedBy: row.claimed_by,
        claimedUntil: row.claimed_until === null ? null : readTime(row.claimed_until),
        doneAt: row.done_at === null ? null : readTime(row.done_at),
        result: row.result === null ? null : ctx.v.readJson(row.result),
      };
    },
  };
}
