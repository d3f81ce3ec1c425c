import type { Repo } from "../repo.js";
import { readTime, type StoreContext, time } from "./query-helpers.js";

/**
 * Who asked Yardmaster to queue a pull request, and when (one row per pull request, shared by the
 * replicas). Yardmaster queues as its app's bot (a comment relayed to Mergify, GitHub's `enqueuePullRequest`),
 * so the merge queue names the bot as its queuer: the backends read the person here instead
 * (docs/notifications.md, "Personal notices").
 */
export interface QueueRequestStore {
  /** `login` asked Yardmaster to queue the pull request at `at` (just before it asked the merge queue). */
  rememberQueueRequest(repository: Repo, number: number, by: { login: string; at: Date }): Promise<void>;
  /** The latest such request, or null (none, or forgotten). */
  getQueueRequest(repository: Repo, number: number): Promise<{ login: string; at: Date } | null>;
}

/** A request is forgotten after this (a queue waiting for its conditions longer names the bot). */
export const QUEUE_REQUEST_RETENTION_MS = 24 * 60 * 60 * 1000;

export function kyselyQueueRequests(ctx: StoreContext): QueueRequestStore {
  const { db } = ctx;
  return {
    async rememberQueueRequest(repository, number, by) {
      await ctx.pruneIfDue("queue_requests", by.at, () =>
        db
          .deleteFrom("queue_requests")
          .where("asked_at", "<", time(new Date(by.at.getTime() - QUEUE_REQUEST_RETENTION_MS)))
          .execute(),
      );
      const values = { login: by.login, asked_at: time(by.at) };
      await db
        .insertInto("queue_requests")
        .values({ repository_key: repository.key, pull_number: number, ...values })
        .onConflict((oc) => oc.columns(["repository_key", "pull_number"]).doUpdateSet(values))
        .execute();
    },

    async getQueueRequest(repository, number) {
      const row = await db
        .selectFrom("queue_requests")
        .select(["login", "asked_at"])
        .where("repository_key", "=", repository.key)
        .where("pull_number", "=", number)
        .executeTakeFirst();
      return row ? { login: row.login, at: readTime(row.asked_at) } : null;
    },
  };
}
