import { type Selectable, sql } from "kysely";
import { Turns } from "../event-loop.js";
import { Repo } from "../repo.js";
import { inTransaction, type Tables } from "./database.js";
import { type DialectValues, int, json, readTime, type StoreContext, time } from "./query-helpers.js";

// The notifier's outbox, which makes each (channel, event) post exactly once; the thread of each pull
// request in each channel, written only with the notification that made or changed it; and the failure
// backoff per repository or channel.

/** Sent notifications are remembered this long (the poller must not read events older than this). */
export const SENT_NOTIFICATION_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Where a notice stands in its channel's order, when not where its claim puts it: a notice pushed by
 * GitHub's merge queue stands where its webhook was received (`at`), and within one millisecond by the
 * receiving replica's count (`seq`), whenever its row was claimed.
 */
export interface NoticeOrder {
  at: Date;
  seq: number;
}

export interface NotificationClaim {
  /** Absent: the row stands where its claim puts it (`claimedAt`). */
  order?: NoticeOrder;
  channelId: string;
  eventId: number;
  repository: Repo;
  pullRequest: number | null;
  eventType: string;
  /** JSON the notifier needs to re-post (stored as JSON text in SQLite, jsonb in PostgreSQL). */
  payload: unknown;
  claimedAt: Date;
}

export interface PendingNotification extends NotificationClaim {
  /** 1 at the first claim, incremented by each later claim while pending. */
  attempts: number;
  /**
   * The replica that began posting it (markNotificationBegun), or null while nobody has: a row nobody
   * began cannot be in the channel.
   */
  begunBy: string | null;
}

export interface SentNotification {
  channelId: string;
  eventId: number;
  /** The message posted (or found in the channel after a crash). */
  message: { ts: string; threadTs: string | null };
  /**
   * The thread of the row's pull request after this message: its parent message and what it should
   * show; `parentStale` (default false) when the parent does not show it yet (a reply: edited later).
   */
  thread?: { parentTs: string; state: unknown; parentStale?: boolean };
  /** When it was recorded: the row's sent time and the thread's updatedAt. */
  at: Date;
  /**
   * A removal's message: whether it showed its failure details (false: it is edited once they are read);
   * absent for the others.
   */
  showsDetails?: boolean;
}

export interface ThreadRecord {
  channelId: string;
  repository: Repo;
  pullRequest: number;
  parentTs: string;
  /** JSON: what the parent message shows, or is to show once edited (`parentStale`). */
  state: unknown;
  /** The parent message still shows an earlier state: an edit is to do. */
  parentStale: boolean;
  updatedAt: Date;
}

export interface OutboxChannelStats {
  channelId: string;
  pending: number;
  oldestClaimedAt: Date;
}

export interface Backoff {
  key: string;
  failures: number;
  nextAttemptAt: Date;
  lastError: string;
}

/**
 * The outbox. Each transition of a row is one call, atomic on its own: added (pending), begun (its post
 * may be in the channel from then on), then sent (with its thread). Who posts a channel's rows is not
 * the outbox's to say: the channel's delivery is durable work (src/notifier/channel-lease.ts).
 */
export interface OutboxStore {
  /**
   * Inserts a pending row (attempts 1) if none exists for (channelId, eventId) and returns "added".
   * Otherwise returns the existing row's status; an existing pending row has its attempts incremented
   * (its claimedAt is kept). One statement: of two concurrent adds, exactly one gets "added".
   */
  addNotification(n: NotificationClaim): Promise<"added" | "pending" | "sent">;
  /**
   * Marks the row sent and records the posted message; with `thread`, records in the same transaction
   * the thread of the row's pull request in its channel (created or replaced), so that a message is
   * never recorded without the thread it started or changed, nor the other way round. Does nothing
   * (to the thread either) if there is no such row; `thread` is ignored for a row without a pull request.
   */
  markNotificationSent(sent: SentNotification): Promise<void>;
  /**
   * Records that `owner` begins posting the row (just before its post): from then on it may be in the
   * channel, and whoever posts the channel next looks it up there first (an effect recorded, not a claim).
   * False when the row is no longer pending (sent meanwhile): nothing to post.
   */
  markNotificationBegun(channelId: string, eventId: number, owner: string): Promise<boolean>;
  /**
   * Pending rows claimed strictly before `olderThan`, in order: by their `order` when they have one, else
   * by their claim (then by channel and event id); of one channel when `channelId` is given.
   */
  listPendingNotifications(
    olderThan: Date,
    limit: number,
    channelId?: string,
  ): Promise<PendingNotification[]>;
  /** Per channel with pending rows: how many, and the oldest claim (the outbox metrics). */
  pendingNotificationStats(): Promise<OutboxChannelStats[]>;
}

/** One thread per pull request per channel, written only with its notification (markNotificationSent). */
export interface ThreadStore {
  getThread(channelId: string, repository: Repo, pullRequest: number): Promise<ThreadRecord | null>;
  /**
   * The threads of a repository in channels whose id starts with `channelPrefix` (personal notices: the
   * pull requests a person hears about), by channel then pull request.
   */
  listThreadsOfRepository(repository: Repo, channelPrefix: string): Promise<ThreadRecord[]>;
  /** Threads whose parent is stale (`parentStale`), of one channel or of all, oldest update first. */
  listStaleThreads(channelId?: string): Promise<ThreadRecord[]>;
  /**
   * The thread's parent shows its state as recorded at `updatedAt`: clears `parentStale`, unless the
   * thread was recorded again since (then its newer state is still to show).
   */
  markThreadParentEdited(thread: {
    channelId: string;
    repository: Repo;
    pullRequest: number;
    updatedAt: Date;
  }): Promise<void>;
}

/** The notifier's failure backoff per repository or channel. */
export interface BackoffStore {
  getBackoff(key: string): Promise<Backoff | null>;
  /** Upsert. */
  putBackoff(backoff: Backoff): Promise<void>;
  clearBackoff(key: string): Promise<void>;
}

export function kyselyOutbox(ctx: StoreContext): OutboxStore & ThreadStore & BackoffStore {
  return {
    addNotification: addNotification(ctx),
    markNotificationSent: (sent) => markNotificationSent(ctx, sent),
    markNotificationBegun: markNotificationBegun(ctx),
    listPendingNotifications: listPendingNotifications(ctx),
    pendingNotificationStats: pendingNotificationStats(ctx),
    ...kyselyThreads(ctx),
    ...kyselyBackoffs(ctx),
  };
}

function addNotification(ctx: StoreContext): OutboxStore["addNotification"] {
  const { db } = ctx;
  return async (n) => {
    // The conflict arm only touches a pending row, so no row back means the existing one was sent; a
    // row inserted has 1 attempt, a pending one bumped at least 2.
    const row = await db
      .insertInto("notifications")
      .values({
        channel_id: n.channelId,
        event_id: n.eventId,
        repository: n.repository.fullName,
        pull_request: n.pullRequest,
        event_type: n.eventType,
        payload: json(n.payload),
        status: "pending",
        attempts: 1,
        claimed_at: time(n.claimedAt),
        order_at: n.order ? time(n.order.at) : null,
        order_seq: n.order ? n.order.seq : null,
      })
      .onConflict((oc) =>
        oc
          .columns(["channel_id", "event_id"])
          .doUpdateSet((eb) => ({ attempts: eb("notifications.attempts", "+", 1) }))
          .where("notifications.status", "=", "pending"),
      )
      .returning("attempts")
      .executeTakeFirst();
    if (!row) return "sent";
    return row.attempts === 1 ? "added" : "pending";
  };
}

function markNotificationBegun(ctx: StoreContext): OutboxStore["markNotificationBegun"] {
  const { db } = ctx;
  return async (channelId, eventId, owner) => {
    const row = await db
      .updateTable("notifications")
      .set({ attempted_by: owner })
      .where("channel_id", "=", channelId)
      .where("event_id", "=", eventId)
      .where("status", "=", "pending")
      .returning("event_id")
      .executeTakeFirst();
    return row !== undefined;
  };
}

function listPendingNotifications(ctx: StoreContext): OutboxStore["listPendingNotifications"] {
  const { db, v } = ctx;
  return async (olderThan, limit, channelId) => {
    const rows = await db
      .selectFrom("notifications")
      .selectAll()
      .where("status", "=", "pending")
      .where("claimed_at", "<", time(olderThan))
      .$if(channelId !== undefined, (q) => q.where("channel_id", "=", channelId as string))
      // GitHub's order for a pushed notice (its webhook's), the claim's for the others.
      .orderBy(sql`COALESCE(order_at, claimed_at)`)
      .orderBy(sql`COALESCE(order_seq, 0)`)
      .orderBy(v.bytewise("channel_id"))
      .orderBy("event_id")
      .$if(Number.isFinite(limit), (q) => q.limit(Math.max(0, Math.floor(limit))))
      .execute();
    // A backlog's page is read back in turns of the event loop (event-loop.ts), its rows' repository
    // (mostly one) parsed once.
    const turns = new Turns();
    const repos = new Map<string, Repo>();
    const pending: PendingNotification[] = [];
    for (const row of rows) {
      await turns.next();
      const repository = repos.get(row.repository) ?? Repo.from(row.repository);
      repos.set(row.repository, repository);
      pending.push(toPendingNotification(row, v, repository));
    }
    return pending;
  };
}

function pendingNotificationStats(ctx: StoreContext): OutboxStore["pendingNotificationStats"] {
  const { db, v } = ctx;
  return async () => {
    const rows = await db
      .selectFrom("notifications")
      .select((eb) => [
        "channel_id",
        eb.fn.countAll().as("pending"),
        eb.fn.min("claimed_at").as("oldest_claimed_at"),
      ])
      .where("status", "=", "pending")
      .groupBy("channel_id")
      .orderBy(v.bytewise("channel_id"))
      .execute();
    return rows.map((row) => ({
      channelId: row.channel_id,
      pending: int(row.pending as number | string),
      oldestClaimedAt: readTime(row.oldest_claimed_at as Date | string),
    }));
  };
}

async function markNotificationSent(ctx: StoreContext, sent: SentNotification): Promise<void> {
  const at = time(sent.at);
  await inTransaction(ctx.database, async (tx) => {
    const row = await tx
      .updateTable("notifications")
      .set({
        status: "sent",
        message_ts: sent.message.ts,
        thread_ts: sent.message.threadTs,
        sent_at: at,
        ...(sent.showsDetails === undefined ? {} : { shows_details: sent.showsDetails ? 1 : 0 }),
      })
      .where("channel_id", "=", sent.channelId)
      .where("event_id", "=", sent.eventId)
      .returning(["repository", "pull_request"])
      .executeTakeFirst();
    if (!row || !sent.thread || row.pull_request === null) return;
    // The thread is keyed by the row's own repository and pull request: what the message was about.
    const repository = Repo.from(row.repository);
    const values = {
      repository: repository.fullName,
      parent_ts: sent.thread.parentTs,
      state: json(sent.thread.state),
      updated_at: at,
      parent_stale: sent.thread.parentStale ? 1 : 0,
    };
    await tx
      .insertInto("threads")
      .values({
        channel_id: sent.channelId,
        repository_key: repository.key,
        pull_request: int(row.pull_request),
        ...values,
      })
      .onConflict((oc) => oc.columns(["channel_id", "repository_key", "pull_request"]).doUpdateSet(values))
      .execute();
  });
  await ctx.pruneIfDue("notifications", sent.at, async () => {
    await ctx.db
      .deleteFrom("notifications")
      .where("status", "=", "sent")
      .where("sent_at", "<", time(new Date(sent.at.getTime() - SENT_NOTIFICATION_RETENTION_MS)))
      .execute();
  });
}

function kyselyThreads({ db, v }: StoreContext): ThreadStore {
  return {
    async getThread(channelId, repository, pullRequest) {
      const row = await db
        .selectFrom("threads")
        .selectAll()
        .where("channel_id", "=", channelId)
        .where("repository_key", "=", repository.key)
        .where("pull_request", "=", pullRequest)
        .executeTakeFirst();
      return row ? toThread(row, v) : null;
    },

    async listThreadsOfRepository(repository, channelPrefix) {
      const rows = await db
        .selectFrom("threads")
        .selectAll()
        .where("repository_key", "=", repository.key)
        .where(sql<string>`substr(channel_id, 1, ${channelPrefix.length})`, "=", channelPrefix)
        .orderBy(v.bytewise("channel_id"))
        .orderBy("pull_request")
        .execute();
      return rows.map((row) => toThread(row, v));
    },

    async listStaleThreads(channelId) {
      const rows = await db
        .selectFrom("threads")
        .selectAll()
        .where("parent_stale", "=", 1)
        .$if(channelId !== undefined, (q) => q.where("channel_id", "=", channelId as string))
        .orderBy("updated_at")
        .orderBy(v.bytewise("channel_id"))
        .orderBy("repository_key")
        .orderBy("pull_request")
        .execute();
      return rows.map((row) => toThread(row, v));
    },

    async markThreadParentEdited(thread) {
      await db
        .updateTable("threads")
        .set({ parent_stale: 0 })
        .where("channel_id", "=", thread.channelId)
        .where("repository_key", "=", thread.repository.key)
        .where("pull_request", "=", thread.pullRequest)
        .where("updated_at", "=", time(thread.updatedAt))
        .execute();
    },
  };
}

function kyselyBackoffs({ db }: StoreContext): BackoffStore {
  return {
    async getBackoff(key) {
      const row = await db.selectFrom("backoffs").selectAll().where("key", "=", key).executeTakeFirst();
      return row
        ? {
            key: row.key,
            failures: row.failures,
            nextAttemptAt: readTime(row.next_attempt_at),
            lastError: row.last_error,
          }
        : null;
    },

    async putBackoff(backoff) {
      const values = {
        failures: backoff.failures,
        next_attempt_at: time(backoff.nextAttemptAt),
        last_error: backoff.lastError,
      };
      await db
        .insertInto("backoffs")
        .values({ key: backoff.key, ...values })
        .onConflict((oc) => oc.column("key").doUpdateSet(values))
        .execute();
    },

    async clearBackoff(key) {
      await db.deleteFrom("backoffs").where("key", "=", key).execute();
    },
  };
}

function toPendingNotification(
  row: Selectable<Tables["notifications"]>,
  v: DialectValues,
  repository: Repo,
): PendingNotification {
  return {
    channelId: row.channel_id,
    eventId: int(row.event_id),
    repository,
    pullRequest: row.pull_request === null ? null : int(row.pull_request),
    eventType: row.event_type,
    payload: v.readJson(row.payload),
    claimedAt: readTime(row.claimed_at),
    attempts: row.attempts,
    begunBy: row.attempted_by ?? null,
    ...(row.order_at === null
      ? {}
      : { order: { at: readTime(row.order_at), seq: row.order_seq === null ? 0 : int(row.order_seq) } }),
  };
}

function toThread(row: Selectable<Tables["threads"]>, v: DialectValues): ThreadRecord {
  return {
    channelId: row.channel_id,
    repository: Repo.from(row.repository),
    pullRequest: int(row.pull_request),
    parentTs: row.parent_ts,
    state: v.readJson(row.state),
    parentStale: Number(row.parent_stale) === 1,
    updatedAt: readTime(row.updated_at),
  };
}
