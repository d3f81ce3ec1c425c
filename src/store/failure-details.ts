import { Repo } from "../repo.js";
import { int, json, readTime, type StoreContext, time } from "./query-helpers.js";

// Why a removal's checks failed, read once across replicas (src/notifier/failure-details.ts, each reading a
// work item of kind `failure-details`): one record per removal event (`failure_details`), and the outbox's
// messages that were sent without them, to edit. Its `claimed_by`/`claimed_until` are an older replica's
// claim, kept filled for a rolling upgrade.

/** Kept as long as the outbox keeps its sent rows. */
const FAILURE_DETAILS_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export interface FailureDetailsRecord {
  eventId: number;
  repository: Repo;
  /** "reading": not read yet; "read": `details` holds them; "none": they could not be read. */
  status: "reading" | "read" | "none";
  /** The removal's notices wait for them until then, at most. */
  dueAt: Date;
  /** What was read (JSON, the notifier's), when `read`. */
  details: unknown;
}

/** A removal's message sent without its details, whose details are read now: to edit in place. */
export interface DetailsEdit {
  channelId: string;
  eventId: number;
  repository: Repo;
  pullRequest: number | null;
  /** The row's event, as stored. */
  payload: unknown;
  messageTs: string;
  details: unknown;
}

export interface FailureDetailsStore {
  /**
   * Notes that a removal's details are being read (the reading itself is a work item, kind
   * `failure-details`: src/notifier/failure-details.ts): its record is made, its notices waiting until
   * `dueAt`, unless there is one. `owner` and `until` fill the claim columns an older replica reads.
   */
  noteFailureDetails(note: {
    eventId: number;
    repository: Repo;
    owner: string;
    now: Date;
    until: Date;
    dueAt: Date;
  }): Promise<void>;
  /**
   * Records what was read (`details`), or that nothing could be (null), unless it was recorded before
   * (its record made if it has none). True when recorded now.
   */
  recordFailureDetails(eventId: number, repository: Repo, details: unknown, now: Date): Promise<boolean>;
  getFailureDetails(eventId: number): Promise<FailureDetailsRecord | null>;
  /**
   * Messages sent without their details (`shows_details` 0) whose details are read now, of one channel
   * or of all, oldest first.
   */
  listDetailsEdits(channelId?: string, limit?: number): Promise<DetailsEdit[]>;
  /** The message of the row shows its details now (edited, or it cannot be). */
  markDetailsShown(channelId: string, eventId: number): Promise<void>;
}

export function kyselyFailureDetails(ctx: StoreContext): FailureDetailsStore {
  const { db, v } = ctx;
  return {
    async noteFailureDetails(c) {
      await db
        .insertInto("failure_details")
        .values({
          event_id: c.eventId,
          repository: c.repository.fullName,
          status: "reading",
          due_at: time(c.dueAt),
          claimed_by: c.owner,
          claimed_until: time(c.until),
          details: null,
          created_at: time(c.now),
        })
        .onConflict((oc) => oc.column("event_id").doNothing())
        .execute();
      await ctx.pruneIfDue("failure_details", c.now, () =>
        db
          .deleteFrom("failure_details")
          .where("created_at", "<", time(new Date(c.now.getTime() - FAILURE_DETAILS_RETENTION_MS)))
          .execute(),
      );
    },

    async recordFailureDetails(eventId, repository, details, now) {
      const recorded = {
        status: details === null ? ("none" as const) : ("read" as const),
        details: details === null ? null : json(details),
        claimed_until: time(now),
      };
      const row = await db
        .insertInto("failure_details")
        .values({
          event_id: eventId,
          repository: repository.fullName,
          due_at: time(now),
          claimed_by: "",
          created_at: time(now),
          ...recorded,
        })
        .onConflict((oc) =>
          oc.column("event_id").doUpdateSet(recorded).where("failure_details.status", "=", "reading"),
        )
        .returning("event_id")
        .executeTakeFirst();
      return row !== undefined;
    },

    async getFailureDetails(eventId) {
      const row = await db
        .selectFrom("failure_details")
        .selectAll()
        .where("event_id", "=", eventId)
        .executeTakeFirst();
      if (!row) return null;
      return {
        eventId: int(row.event_id),
        repository: Repo.from(row.repository),
        status: row.status,
        dueAt: readTime(row.due_at),
        details: row.details === null ? null : v.readJson(row.details),
      };
    },

    async listDetailsEdits(channelId, limit = 100) {
      const rows = await db
        .selectFrom("notifications as n")
        .innerJoin("failure_details as d", "d.event_id", "n.event_id")
        .select([
          "n.channel_id",
          "n.event_id",
          "n.repository",
          "n.pull_request",
          "n.payload",
          "n.message_ts",
          "d.details",
        ])
        .where("n.shows_details", "=", 0)
        .where("n.status", "=", "sent")
        .where("n.message_ts", "is not", null)
        .where("d.status", "=", "read")
        .$if(channelId !== undefined, (q) => q.where("n.channel_id", "=", channelId as string))
        .orderBy("n.sent_at")
        .orderBy("n.event_id")
        .limit(limit)
        .execute();
      return rows.map((row) => ({
        channelId: row.channel_id,
        eventId: int(row.event_id),
        repository: Repo.from(row.repository),
        pullRequest: row.pull_request === null ? null : int(row.pull_request),
        payload: v.readJson(row.payload),
        messageTs: row.message_ts as string,
        details: v.readJson(row.details),
      }));
    },

    async markDetailsShown(channelId, eventId) {
      await db
        .updateTable("notifications")
        .set({ shows_details: 1 })
        .where("channel_id", "=", channelId)
        .where("event_id", "=", eventId)
        .execute();
    },
  };
}
