import { type Selectable, sql } from "kysely";
import type { Subscription } from "../core/records.js";
import { Repo } from "../repo.js";
import { inTransaction, type Tables } from "./database.js";
import { EPOCH } from "./migrations/004-poll-schedule.js";
import { newPollPayload, POLL_KIND } from "./polls.js";
import { type DialectValues, readTime, type StoreContext, time } from "./query-helpers.js";

// Subscriptions: one per (channel, repository). The core owns the record's type (src/core/records.ts).
// A repository's reads (its `poll` item of durable work, polls.ts) are kept with its subscriptions: made
// due at once by the first, removed with the last, in the same transaction.

export interface SubscriptionStore {
  /**
   * Upsert. An update replaces the repository's spelling, teamId (when given), branchGlob and groups,
   * and keeps the original createdBy and createdAt.
   */
  putSubscription(sub: Subscription): Promise<{ created: boolean }>;
  /** True when a subscription was removed. */
  deleteSubscription(channelId: string, repository: Repo): Promise<boolean>;
  /**
   * Ordered by repository (by key), then channel. `repositories`: those of any of them (one query for a
   * batch of repositories, the poller's claim; none for an empty list).
   */
  listSubscriptions(filter?: {
    channelId?: string;
    repository?: Repo;
    repositories?: readonly Repo[];
  }): Promise<Subscription[]>;
  /** Distinct, sorted by key; each in one of the spellings it was subscribed with (the smallest). */
  listSubscribedRepositories(): Promise<Repo[]>;
}

export function kyselySubscriptions(ctx: StoreContext): SubscriptionStore {
  return {
    putSubscription: putSubscription(ctx),
    deleteSubscription: deleteSubscription(ctx),
    listSubscriptions: listSubscriptions(ctx),
    listSubscribedRepositories: listSubscribedRepositories(ctx),
  };
}

function putSubscription(ctx: StoreContext): SubscriptionStore["putSubscription"] {
  const { v } = ctx;
  return async (sub) => {
    const digest = sub.digest?.cadence ?? null;
    const since = time(sub.digest?.since ?? sub.createdAt);
    const values = {
      repository: sub.repository.fullName,
      branch_glob: sub.branchGlob,
      groups: v.writeList(sub.groups),
      digest,
    };
    // Insert, or else update: the primary key decides which, also between replicas subscribing at once.
    const created = await inTransaction(ctx.database, async (tx) => {
      const inserted = await tx
        .insertInto("subscriptions")
        .values({
          channel_id: sub.channelId,
          repository_key: sub.repository.key,
          team_id: sub.teamId,
          ...values,
          digest_since: digest ? since : null,
          created_by: sub.createdBy,
          created_at: time(sub.createdAt),
        })
        .onConflict((oc) => oc.columns(["channel_id", "repository_key"]).doNothing())
        .returning("channel_id")
        .executeTakeFirst();
      // The repository's reads (a `poll` item, polls.ts), due at once if it is new; and its row of the
      // schedule an older build reads (a rolling upgrade's older replicas).
      const payload = JSON.stringify(newPollPayload(sub.repository));
      await tx
        .insertInto("work_items")
        .values({
          kind: POLL_KIND,
          key: sub.repository.key,
          due_at: EPOCH,
          payload: (ctx.kind === "postgres" ? sql`${payload}::jsonb` : payload) as never,
        })
        .onConflict((oc) => oc.columns(["kind", "key"]).doNothing())
        .execute();
      await tx
        .insertInto("poll_schedule")
        .values({
          repository_key: sub.repository.key,
          repository: sub.repository.fullName,
          next_poll_at: EPOCH,
          cadence: "new",
        })
        .onConflict((oc) => oc.column("repository_key").doNothing())
        .execute();
      if (inserted) return true;
      await tx
        .updateTable("subscriptions")
        // A subscribe that does not know its team keeps the one recorded.
        .set({
          ...values,
          ...(sub.teamId === null ? {} : { team_id: sub.teamId }),
          // A digest asked for again keeps the time it was first asked for.
          digest_since: digest ? sql<string>`COALESCE(digest_since, ${since})` : null,
        })
        .where("channel_id", "=", sub.channelId)
        .where("repository_key", "=", sub.repository.key)
        .execute();
      return false;
    });
    return { created };
  };
}

function deleteSubscription(ctx: StoreContext): SubscriptionStore["deleteSubscription"] {
  return async (channelId, repository) => {
    return inTransaction(ctx.database, async (tx) => {
      const deleted = await tx
        .deleteFrom("subscriptions")
        .where("channel_id", "=", channelId)
        .where("repository_key", "=", repository.key)
        .returning("channel_id")
        .executeTakeFirst();
      // The last subscription to a repository takes its reads with it (and an older build's schedule).
      const unsubscribed = sql<boolean>`NOT EXISTS (SELECT 1 FROM subscriptions WHERE repository_key = ${repository.key})`;
      await tx
        .deleteFrom("work_items")
        .where("kind", "=", POLL_KIND)
        .where("key", "=", repository.key)
        .where(unsubscribed)
        .execute();
      await tx
        .deleteFrom("poll_schedule")
        .where("repository_key", "=", repository.key)
        .where(unsubscribed)
        .execute();
      return deleted !== undefined;
    });
  };
}

function listSubscriptions(ctx: StoreContext): SubscriptionStore["listSubscriptions"] {
  const { db, v } = ctx;
  return async (filter = {}) => {
    const { channelId, repository, repositories } = filter;
    if (repositories?.length === 0) return [];
    const keys = [...new Set(repositories?.map((r) => r.key))];
    const order = sql`${v.bytewise("repository_key")}, ${v.bytewise("channel_id")}`;
    if (repositories && channelId === undefined && repository === undefined) {
      // Written as SQL, not built: the poller asks this for every batch of repositories it claims.
      const { rows } = await sql<Selectable<Tables["subscriptions"]>>`SELECT * FROM subscriptions
        WHERE repository_key IN (${sql.join(keys)}) ORDER BY ${order}`.execute(db);
      return rows.map((row) => toSubscription(row, v));
    }
    const rows = await db
      .selectFrom("subscriptions")
      .selectAll()
      .$if(channelId !== undefined, (q) => q.where("channel_id", "=", channelId as string))
      .$if(repository !== undefined, (q) => q.where("repository_key", "=", repository?.key as string))
      .$if(repositories !== undefined, (q) => q.where("repository_key", "in", keys))
      .orderBy(order)
      .execute();
    return rows.map((row) => toSubscription(row, v));
  };
}

function listSubscribedRepositories(ctx: StoreContext): SubscriptionStore["listSubscribedRepositories"] {
  const { db, v } = ctx;
  return async () => {
    const rows = await db
      .selectFrom("subscriptions")
      .select(sql<string>`min(${v.bytewise("repository")})`.as("repository"))
      .groupBy("repository_key")
      .orderBy(v.bytewise("repository_key"))
      .execute();
    return rows.map((r) => Repo.from(r.repository));
  };
}

function toSubscription(row: Selectable<Tables["subscriptions"]>, v: DialectValues): Subscription {
  return {
    channelId: row.channel_id,
    teamId: row.team_id,
    repository: Repo.from(row.repository),
    branchGlob: row.branch_glob,
    groups: v.readList(row.groups),
    createdBy: row.created_by,
    createdAt: readTime(row.created_at),
    ...(row.digest
      ? {
          digest: {
            cadence: row.digest,
            ...(row.digest_since ? { since: readTime(row.digest_since) } : {}),
          },
        }
      : {}),
  };
}
