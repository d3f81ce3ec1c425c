import { Repo } from "../repo.js";
import { SENT_NOTIFICATION_RETENTION_MS } from "./outbox.js";
import { maybeTime, readTime, type StoreContext, time } from "./query-helpers.js";

// What GitHub's own merge queue said of each pull request, from its webhooks (one row per pull request,
// shared by the replicas): the notifier reads it back for the notices it pushes.

/**
 * What the notifier remembers of a pull request in GitHub's own merge queue, from GitHub's webhooks: its
 * latest entry and the commit of its latest merge group (whose checks say why it was removed).
 */
export interface GitHubQueuePull {
  repository: Repo;
  number: number;
  baseRef: string;
  enteredAt: Date;
  /** The head commit of its latest merge group; null until GitHub built one. */
  groupSha: string | null;
  /** Who asked Yardmaster to take it out of the queue, and when; null otherwise. */
  removedBy: { login: string; at: Date } | null;
  /**
   * When GitHub's queue removed this entry other than by merging it (failed checks, by hand, already
   * merged, ...); null while it is in the queue or once the queue merged it. A merge after it is not the
   * queue's.
   */
  leftAt: Date | null;
}

/** Where the notifier keeps GitHubQueuePull records, shared by the replicas (one row per pull request). */
export interface GitHubQueueMemory {
  /**
   * The pull request entered the queue (again): a new record, no merge group yet; unless `deliveryId` is
   * the delivery that recorded the entry already (GitHub redelivered it), which changes nothing.
   */
  rememberQueueEntry(
    entry: Omit<GitHubQueuePull, "groupSha" | "removedBy" | "leftAt"> & { deliveryId: string },
  ): Promise<void>;
  /** GitHub's queue removed the pull request other than by merging it: its entry is over, unless not known. */
  rememberQueueLeave(repository: Repo, number: number, at: Date): Promise<void>;
  /** Someone asked Yardmaster to dequeue it (before GitHub is asked): unless the pull request is not known. */
  rememberRemoval(repository: Repo, number: number, by: { login: string; at: Date }): Promise<void>;
  /** GitHub built a merge group for the pull request: its commit, unless the pull request is not known. */
  rememberMergeGroup(repository: Repo, number: number, sha: string): Promise<void>;
  getQueuePull(repository: Repo, number: number): Promise<GitHubQueuePull | null>;
}

/**
 * What GitHub's merge queue said of a pull request is kept as long as the outbox keeps its notices, within
 * which a redelivered webhook is still posted once.
 */
export const GITHUB_QUEUE_PULL_RETENTION_MS = SENT_NOTIFICATION_RETENTION_MS;

export function kyselyGitHubQueuePulls(ctx: StoreContext): GitHubQueueMemory {
  const { db } = ctx;
  return {
    async rememberQueueEntry(entry) {
      await ctx.pruneIfDue("github_queue_pulls", entry.enteredAt, async () => {
        const forgotten = new Date(entry.enteredAt.getTime() - GITHUB_QUEUE_PULL_RETENTION_MS);
        await db.deleteFrom("github_queue_pulls").where("entered_at", "<", time(forgotten)).execute();
      });
      const values = {
        repository: entry.repository.fullName,
        base_ref: entry.baseRef,
        entered_at: time(entry.enteredAt),
        entry_delivery: entry.deliveryId,
        group_sha: null,
        removed_by: null,
        removed_at: null,
        left_at: null,
      };
      await db
        .insertInto("github_queue_pulls")
        .values({ repository_key: entry.repository.key, pull_number: entry.number, ...values })
        .onConflict((oc) =>
          oc
            .columns(["repository_key", "pull_number"])
            .doUpdateSet(values)
            .where("github_queue_pulls.entry_delivery", "!=", entry.deliveryId),
        )
        .execute();
    },

    async rememberMergeGroup(repository, number, sha) {
      await db
        .updateTable("github_queue_pulls")
        .set({ group_sha: sha })
        .where("repository_key", "=", repository.key)
        .where("pull_number", "=", number)
        .execute();
    },

    async rememberQueueLeave(repository, number, at) {
      await db
        .updateTable("github_queue_pulls")
        .set({ left_at: time(at) })
        .where("repository_key", "=", repository.key)
        .where("pull_number", "=", number)
        .execute();
    },

    async rememberRemoval(repository, number, by) {
      await db
        .updateTable("github_queue_pulls")
        .set({ removed_by: by.login, removed_at: time(by.at) })
        .where("repository_key", "=", repository.key)
        .where("pull_number", "=", number)
        .execute();
    },

    async getQueuePull(repository, number) {
      const row = await db
        .selectFrom("github_queue_pulls")
        .selectAll()
        .where("repository_key", "=", repository.key)
        .where("pull_number", "=", number)
        .executeTakeFirst();
      return row
        ? {
            repository: Repo.from(row.repository),
            number: row.pull_number,
            baseRef: row.base_ref,
            enteredAt: readTime(row.entered_at),
            groupSha: row.group_sha,
            removedBy:
              row.removed_by && row.removed_at
                ? { login: row.removed_by, at: readTime(row.removed_at) }
                : null,
            leftAt: maybeTime(row.left_at),
          }
        : null;
    },
  };
}
