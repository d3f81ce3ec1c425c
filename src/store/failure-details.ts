import { Repo } from "../repo.js";
import { int, json, readTime, type StoreContext, time } from "./query-helpers.js";

// Why a removal's checks failed, read once across replicas (src/notifier/failure-details.ts): one row per
// removal event (`failure_details`), and the outbox's messages that were sent without them, to edit.

/** Kept as long as the outbox keeps its sent rows. */
const FAILURE_DETAILS_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export interface FailureDetailsRecord {
  eventId: number;
  repository: Repo;
  /** "reading": claimed, not read yet; "read": `details` holds them; "none": they could not be read. */
  status: "reading" | "read" | "none";
  /** The removal's notices wait for them until then, at most. */
  dueAt: Date;
  claimedBy: string;
  claimedUntil: Date;
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
   * Claims the reading of a removal's details for `owner` until `until`: creates its record (its notices
   * wait until `dueAt`), or takes over one still being read whose claim lapsed before `now` (its replica
   * died). True when `owner` holds it now. One statement: of two concurrent claims, one wins.
   */
  claimFailureDetails(claim: {
    eventId: number;
    repository: Repo;
    owner: string;
    now: Date;
    until: Date;
    dueAt: Date;
  }): Promise<boolean>;
  /**
   * Records what was read (`details`), or that nothing could be (null), if `owner` still holds the claim
   * of a record being read. False otherwise (another replica took it over, or it was recorded).
   */
  recordFailureDetails(eventId: number, owner: string, details: unknown, now: Date): Promise<boolean>;
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
    async claimFailureDetails(c) {
      const row = await db
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
        .onConflict((oc) =>
          oc
            .column("event_id")
            .doUpdateSet({ claimed_by: c.owner, claimed_until: time(c.until) })
            .where("failure_details.status", "=", "reading")
            .where("failure_details.claimed_until", "<", time(c.now)),
        )
        .returning("event_id")
        .executeTakeFirst();
      await ctx.pruneIfDue("failure_details", c.now, () =>
        db
          .deleteFrom("failure_details")
          .where("created_at", "<", time(new Date(c.now.getTime() - FAILURE_DETAILS_RETENTION_MS)))
          .execute(),
      );
      return row !== undefined;
    },

    async recordFailureDetails(eventId, owner, details, now) {
      const row = await db
        .updateTable("failure_details")
        .set({
          status: details === null ? "none" : "read",
          details: details === null ? null : json(details),
          claimed_until: time(now),
        })
        .where("event_id", "=", eventId)
        .where("claimed_by", "=", owner)
        .where("status", "=", "reading")
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
        claimedBy: row.claimed_by,
        claimedUntil: readTime(row.claimed_until),
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
