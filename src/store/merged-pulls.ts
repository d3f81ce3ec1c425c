import { type Selectable, sql } from "kysely";
import type { MergedPull } from "../core/merged-pulls.js";
import { Repo } from "../repo.js";
import type { Tables } from "./database.js";
import { chosenBy, maybeTime, readTime, type StoreContext, time } from "./query-helpers.js";

// Pull requests merged into a subscribed repository, until judged through their merge queue or outside it
// (src/outside-merges): one row per pull request, shared by the replicas, each judged once.

/** How a merged pull request was judged: `unknown` when it could not be told before its wait ran out. */
export type MergeJudgement = "queue" | "outside" | "no-queue" | "unknown";

/** A merged pull request waiting to be judged, as a claim returns it. */
export interface WatchedMerge {
  merge: MergedPull;
  /** When Yardmaster heard of the merge (its own clock). */
  receivedAt: Date;
  /** When it stops waiting for the backend to tell (then judged `unknown`). */
  giveUpAt: Date;
}

export interface MergedPullStore {
  /**
   * GitHub's merge queue said it merged the pull request (its `dequeued` MERGE, its merge group destroyed
   * `merged`), before or after its `closed` webhook: kept with its row (made if need be), the first time.
   */
  noteQueueMerge(repository: Repo, number: number, at: Date): Promise<void>;
  /** Whether GitHub's merge queue said it merged the pull request. */
  queueMergeNoted(repository: Repo, number: number): Promise<boolean>;
  /**
   * A pull request closed as merged, to be judged from `decideAt`: true when recorded now; false when it
   * was already (a redelivery, the same webhook at another replica), which changes nothing.
   */
  recordMergedPull(
    merge: MergedPull,
    watch: { deliveryId: string; receivedAt: Date; decideAt: Date; giveUpAt: Date },
  ): Promise<boolean>;
  /**
   * Claims up to `limit` merged pull requests not judged whose time to be judged has come and that no
   * live replica holds: each `owner`'s until `now + leaseMs`, in one statement (of two concurrent claims,
   * each row goes to one).
   */
  claimMergedPulls(claim: {
    owner: string;
    now: Date;
    leaseMs: number;
    limit: number;
  }): Promise<WatchedMerge[]>;
  /** Not judged yet: `owner`'s claim ends and the pull request is judged again from `decideAt`; false when not theirs. */
  deferMergedPull(repository: Repo, number: number, owner: string, decideAt: Date): Promise<boolean>;
  /** Judged: never claimed again; false when the claim is not `owner`'s any more (then nothing changes). */
  judgeMergedPull(
    repository: Repo,
    number: number,
    owner: string,
    judgement: MergeJudgement,
    now: Date,
  ): Promise<boolean>;
  /** How a pull request was judged, and when; null until it is. */
  getMergedPullJudgement(
    repository: Repo,
    number: number,
  ): Promise<{ judgement: MergeJudgement; at: Date } | null>;
}

/** A row is kept this long after it was first noted (a judged one, or a queue's merge whose `closed` never came). */
export const MERGED_PULL_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

const keyOf = (repository: Repo, number: number) => `${repository.key}#${number}`;

export function kyselyMergedPulls(ctx: StoreContext): MergedPullStore {
  const { db } = ctx;
  const prune = (now: Date) =>
    ctx.pruneIfDue("merged_pulls", now, () =>
      db
        .deleteFrom("merged_pulls")
        .where("noted_at", "<", time(new Date(now.getTime() - MERGED_PULL_RETENTION_MS)))
        .execute(),
    );
  const row = (repository: Repo, number: number, at: Date) => ({
    merge_key: keyOf(repository, number),
    repository_key: repository.key,
    repository: repository.fullName,
    pull_number: number,
    noted_at: time(at),
  });
  return {
    async noteQueueMerge(repository, number, at) {
      await prune(at);
      await db
        .insertInto("merged_pulls")
        .values({ ...row(repository, number, at), queue_merged_at: time(at) })
        .onConflict((oc) =>
          oc
            .column("merge_key")
            .doUpdateSet({ queue_merged_at: time(at) })
            .where("merged_pulls.queue_merged_at", "is", null),
        )
        .execute();
    },

    async queueMergeNoted(repository, number) {
      const found = await db
        .selectFrom("merged_pulls")
        .select("queue_merged_at")
        .where("merge_key", "=", keyOf(repository, number))
        .executeTakeFirst();
      return Boolean(found?.queue_merged_at);
    },

    async recordMergedPull(merge, watch) {
      await prune(watch.receivedAt);
      const values = {
        branch: merge.branch,
        merged_at: time(merge.mergedAt),
        merged_by: merge.by,
        merge_sha: merge.sha,
        title: merge.title,
        delivery_id: watch.deliveryId,
        received_at: time(watch.receivedAt),
        decide_at: time(watch.decideAt),
        give_up_at: time(watch.giveUpAt),
      };
      const recorded = await db
        .insertInto("merged_pulls")
        .values({ ...row(merge.repository, merge.number, watch.receivedAt), ...values })
        .onConflict((oc) =>
          // A row made by the queue's word alone gets the merge; one that has it already is left as it is.
          oc.column("merge_key").doUpdateSet(values).where("merged_pulls.merged_at", "is", null),
        )
        .returning("merge_key")
        .executeTakeFirst();
      return recorded !== undefined;
    },

    async claimMergedPulls(claim) {
      const now = time(claim.now);
      const free = sql<boolean>`(claimed_until IS NULL OR claimed_until <= ${now})`;
      const candidates = db
        .selectFrom("merged_pulls")
        .select("merge_key")
        .where("judged_at", "is", null)
        .where("decide_at", "<=", now)
        .where(free)
        .orderBy("decide_at")
        .limit(claim.limit)
        .$if(ctx.kind === "postgres", (q) => q.forUpdate().skipLocked());
      const rows = await db
        .updateTable("merged_pulls")
        .set({ claimed_by: claim.owner, claimed_until: time(new Date(claim.now.getTime() + claim.leaseMs)) })
        .where(chosenBy(ctx.kind, "merge_key", candidates))
        .where("judged_at", "is", null)
        .where("decide_at", "<=", now)
        .where(free)
        .returningAll()
        .execute();
      return rows
        .map(toWatchedMerge)
        .filter((m): m is WatchedMerge => m !== null)
        .sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime());
    },

    async deferMergedPull(repository, number, owner, decideAt) {
      const done = await db
        .updateTable("merged_pulls")
        .set({ decide_at: time(decideAt), claimed_by: null, claimed_until: null })
        .where("merge_key", "=", keyOf(repository, number))
        .where("claimed_by", "=", owner)
        .where("judged_at", "is", null)
        .returning("merge_key")
        .executeTakeFirst();
      return done !== undefined;
    },

    async judgeMergedPull(repository, number, owner, judgement, now) {
      const done = await db
        .updateTable("merged_pulls")
        .set({ judged_at: time(now), verdict: judgement, claimed_by: null, claimed_until: null })
        .where("merge_key", "=", keyOf(repository, number))
        .where("claimed_by", "=", owner)
        .where("judged_at", "is", null)
        .returning("merge_key")
        .executeTakeFirst();
      return done !== undefined;
    },

    async getMergedPullJudgement(repository, number) {
      const found = await db
        .selectFrom("merged_pulls")
        .select(["judged_at", "verdict"])
        .where("merge_key", "=", keyOf(repository, number))
        .executeTakeFirst();
      const at = maybeTime(found?.judged_at ?? null);
      return at && found?.verdict ? { judgement: found.verdict as MergeJudgement, at } : null;
    },
  };
}

/** A claimed row as a merge to judge; null for one without its merge (never claimed: no `decide_at`). */
function toWatchedMerge(row: Selectable<Tables["merged_pulls"]>): WatchedMerge | null {
  if (!row.branch || !row.merged_at || !row.received_at || !row.give_up_at) return null;
  return {
    merge: {
      repository: Repo.from(row.repository),
      number: row.pull_number,
      branch: row.branch,
      mergedAt: readTime(row.merged_at),
      by: row.merged_by,
      sha: row.merge_sha,
      title: row.title,
    },
    receivedAt: readTime(row.received_at),
    giveUpAt: readTime(row.give_up_at),
  };
}
