import { type Selectable, sql } from "kysely";
import type { MergedPull } from "../core/merged-pulls.js";
import { Repo } from "../repo.js";
import { inTransaction, type Tables } from "./database.js";
import { maybeTime, readTime, type StoreContext, time } from "./query-helpers.js";

// Pull requests merged into a subscribed repository, until judged through their merge queue or outside it
// (src/outside-merges): one row per pull request, shared by the replicas, each judged once, its judgement a
// work item of kind `merged-pull`. Its `decide_at`/`claimed_by`/`claimed_until` are an older replica's
// claim, kept for a rolling upgrade (`decide_at` still written).

/** How a merged pull request was judged: `unknown` when it could not be told before its wait ran out. */
export type MergeJudgement = "queue" | "outside" | "no-queue" | "unknown";

/** The durable work's kind of merges to judge (src/outside-merges), keyed by `<repository key>#<number>`. */
export const MERGED_PULL_KIND = "merged-pull";

/** A merged pull request waiting to be judged. */
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
   * A pull request closed as merged, to be judged from `decideAt` (a work item of kind `merged-pull`, made
   * with it): true when recorded now; false when it was already (a redelivery, the same webhook at
   * another replica), which changes nothing.
   */
  recordMergedPull(
    merge: MergedPull,
    watch: { deliveryId: string; receivedAt: Date; decideAt: Date; giveUpAt: Date },
  ): Promise<boolean>;
  /** The merge to judge, or null when it is judged (or not recorded, or forgotten). */
  getWatchedMerge(repository: Repo, number: number): Promise<WatchedMerge | null>;
  /** Judged, at `now`: true when judged now, false when it was before (then nothing changes). */
  judgeMergedPull(repository: Repo, number: number, judgement: MergeJudgement, now: Date): Promise<boolean>;
  /** How a pull request was judged, and when; null until it is. */
  getMergedPullJudgement(
    repository: Repo,
    number: number,
  ): Promise<{ judgement: MergeJudgement; at: Date } | null>;
}

/** A row is kept this long after it was first noted (a judged one, or a queue's merge whose `closed` never came). */
export const MERGED_PULL_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export const keyOf = (repository: Repo, number: number) => `${repository.key}#${number}`;

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
      return inTransaction(ctx.database, async (tx) => {
        const recorded = await tx
          .insertInto("merged_pulls")
          .values({ ...row(merge.repository, merge.number, watch.receivedAt), ...values })
          .onConflict((oc) =>
            // A row made by the queue's word alone gets the merge; one that has it already is left as it is.
            oc.column("merge_key").doUpdateSet(values).where("merged_pulls.merged_at", "is", null),
          )
          .returning("merge_key")
          .executeTakeFirst();
        if (!recorded) return false;
        // Its judgement: durable work, due at `decideAt` (any replica's runner takes it).
        const payload = JSON.stringify({ repository: merge.repository.fullName, number: merge.number });
        await tx
          .insertInto("work_items")
          .values({
            kind: MERGED_PULL_KIND,
            key: keyOf(merge.repository, merge.number),
            due_at: time(watch.decideAt),
            payload: (ctx.kind === "postgres" ? sql`${payload}::jsonb` : payload) as never,
          })
          .onConflict((oc) => oc.columns(["kind", "key"]).doNothing())
          .execute();
        return true;
      });
    },

    async getWatchedMerge(repository, number) {
      const found = await db
        .selectFrom("merged_pulls")
        .selectAll()
        .where("merge_key", "=", keyOf(repository, number))
        .where("judged_at", "is", null)
        .executeTakeFirst();
      return found ? toWatchedMerge(found) : null;
    },

    async judgeMergedPull(repository, number, judgement, now) {
      const done = await db
        .updateTable("merged_pulls")
        .set({ judged_at: time(now), verdict: judgement, claimed_by: null, claimed_until: null })
        .where("merge_key", "=", keyOf(repository, number))
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

/** A row as a merge to judge; null for one without its merge (the queue's word alone: not judged). */
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
