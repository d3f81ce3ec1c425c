import { type Selectable, sql } from "kysely";
import { Repo } from "../repo.js";
import type { PollCadence, PollReason, Tables } from "./database.js";
import { maybeTime, readTime, type StoreContext, time } from "./query-helpers.js";
import { mergePayload, type WorkPayload } from "./work-items.js";

// The notifier's reading of each subscribed repository's log is durable work (work-items.ts) of kind
// `poll`, one item per repository (made and removed with its subscriptions, subscriptions.ts), keyed by
// the repository's key: the engine's claim is the read's claim, its due time the next read. The item's
// payload keeps the rest (PollPayload): the cadence, GitHub's doorbell and recheck, the activity, the
// last read and the cursor. What is here reads it back (the schedule and the cursor as views), and the
// two writes no run makes: the doorbell's watch bringing idle repositories forward, and a cursor set
// by hand.

// Why a read is scheduled, and why it happens.
export type { PollCadence, PollReason };

/** The kind of durable work of a repository's reads (src/notifier/poller.ts). */
export const POLL_KIND = "poll";

/** The `poll` item's payload: times as ISO strings, absent (or null) when unset. */
export interface PollPayload {
  /** The repository as subscribed (its display name). */
  repository: string;
  /** Why the regular read (not the doorbell's) comes when it does: first read, interval, idle period. */
  cadence?: Exclude<PollCadence, "retry">;
  /** When the regular read is due; absent: at once. */
  regularAt?: string | null;
  /** When the latest read began. */
  lastReadAt?: string | null;
  /** When GitHub last rang: a ring after the last read asks for a read. */
  rungAt?: string | null;
  /** The read once more after GitHub's last event (one kept: each ring moves it). */
  recheckAt?: string | null;
  /** Read at the interval (not the idle period) until then. */
  activeUntil?: string | null;
  /** Where the log was read up to. */
  cursor?: { receivedFrom: string; seenEventIds: number[]; updatedAt: string } | null;
}

export interface PollSchedule {
  repository: Repo;
  /** When the next read is due (while one runs: its claim's end, unless asked for sooner). */
  nextPollAt: Date;
  cadence: PollCadence;
  /** GitHub's latest ring (its activity), and the read once more after it. */
  doorbellAt: Date | null;
  recheckAt: Date | null;
  /** Read at the interval (not the idle period) until then: GitHub announced activity, or the log had events. */
  activeUntil: Date | null;
  /** Reads failed in a row, and the last failure. */
  failures: number;
  lastError: string | null;
  claimedBy: string | null;
  claimedUntil: Date | null;
  /** When a read last began; null before the first. */
  lastReadAt: Date | null;
}

/**
 * Where a repository's log was read up to, exactly: every event before `receivedFrom` was taken, and of
 * those at or after it the ones in `seenEventIds` (src/notifier/poller.ts, `advance`).
 */
export interface PollCursor {
  repository: Repo;
  receivedFrom: Date;
  seenEventIds: number[];
  updatedAt: Date;
}

/** When each subscribed repository's log is read next (a view of its `poll` item), and the doorbell's watch. */
export interface PollScheduleStore {
  getPollSchedule(repository: Repo): Promise<PollSchedule | null>;
  /** The repositories whose next regular read waits the idle period (cadence `idle`). */
  listIdlePolls(): Promise<Repo[]>;
  /**
   * The doorbell no longer serves these repositories: each one still waiting the idle period is read at
   * `at` instead (cadence `interval`), unless due sooner. Returns how many were brought forward.
   */
  hastenIdlePolls(repositories: readonly Repo[], at: Date): Promise<number>;
}

/** Where each repository's log was read up to (kept in its `poll` item). */
export interface PollCursorStore {
  getPollCursor(repository: Repo): Promise<PollCursor | null>;
  /** Sets a subscribed repository's cursor (a read's completion sets it otherwise); nothing for another. */
  putPollCursor(cursor: PollCursor): Promise<void>;
}

export type PollStore = PollScheduleStore & PollCursorStore;

/** The payload of a repository's `poll` item when it is first subscribed: read at once. */
export function newPollPayload(repository: Repo): PollPayload {
  return { repository: repository.fullName, cadence: "new" };
}

/** A cursor as the payload keeps it. */
export function cursorPayload(cursor: PollCursor): NonNullable<PollPayload["cursor"]> {
  return {
    receivedFrom: time(cursor.receivedFrom),
    seenEventIds: cursor.seenEventIds,
    updatedAt: time(cursor.updatedAt),
  };
}

/** The cursor a `poll` item's payload keeps, or null before the first read. */
export function cursorOf(payload: WorkPayload): PollCursor | null {
  const p = payload as Partial<PollPayload>;
  if (!p.cursor || !p.repository) return null;
  return {
    repository: Repo.from(p.repository),
    receivedFrom: readTime(p.cursor.receivedFrom),
    seenEventIds: p.cursor.seenEventIds ?? [],
    updatedAt: readTime(p.cursor.updatedAt),
  };
}

/** A top-level key of the payload, as SQL text. */
function field(ctx: StoreContext, key: string) {
  return ctx.kind === "postgres"
    ? sql<string>`payload->>${key}`
    : sql<string>`json_extract(payload, ${`$.${key}`})`;
}

export function kyselyPolls(ctx: StoreContext): PollStore {
  const { db } = ctx;
  const item = (repository: Repo) =>
    db
      .selectFrom("work_items")
      .selectAll()
      .where("kind", "=", POLL_KIND)
      .where("key", "=", repository.key)
      .executeTakeFirst();
  return {
    async getPollSchedule(repository) {
      const row = await item(repository);
      return row ? toPollSchedule(ctx, row) : null;
    },

    async listIdlePolls() {
      const rows = await db
        .selectFrom("work_items")
        .select(field(ctx, "repository").as("repository"))
        .where("kind", "=", POLL_KIND)
        .where(field(ctx, "cadence"), "=", "idle")
        .where("attempts", "=", 0)
        .orderBy("key")
        .execute();
      return rows.map((row) => Repo.from(row.repository));
    },

    async hastenIdlePolls(repositories, at) {
      if (repositories.length === 0) return 0;
      const when = time(at);
      const payload = JSON.stringify({ cadence: "interval", regularAt: when } satisfies Partial<PollPayload>);
      const result = await db
        .updateTable("work_items")
        .set({ due_at: when, payload: mergePayload(ctx, "payload", payload) } as never)
        .where("kind", "=", POLL_KIND)
        .where(
          "key",
          "in",
          repositories.map((r) => r.key),
        )
        .where(field(ctx, "cadence"), "=", "idle")
        .where("due_at", ">", when)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    async getPollCursor(repository) {
      const row = await item(repository);
      return row ? cursorOf(ctx.v.readJson(row.payload) as WorkPayload) : null;
    },

    async putPollCursor(cursor) {
      const payload = JSON.stringify({ cursor: cursorPayload(cursor) });
      await db
        .updateTable("work_items")
        .set({ payload: mergePayload(ctx, "payload", payload) } as never)
        .where("kind", "=", POLL_KIND)
        .where("key", "=", cursor.repository.key)
        .execute();
    },
  };
}

function toPollSchedule(ctx: StoreContext, row: Selectable<Tables["work_items"]>): PollSchedule {
  const p = (ctx.v.readJson(row.payload) ?? {}) as PollPayload;
  const attempts = Number(row.attempts);
  return {
    repository: Repo.from(p.repository),
    nextPollAt: readTime(row.due_at),
    cadence: attempts > 0 ? "retry" : (p.cadence ?? "interval"),
    doorbellAt: maybeTime(p.rungAt ?? null),
    recheckAt: maybeTime(p.recheckAt ?? null),
    activeUntil: maybeTime(p.activeUntil ?? null),
    failures: attempts,
    lastError: row.last_error,
    claimedBy: row.claimed_by,
    claimedUntil: maybeTime(row.claimed_until),
    lastReadAt: maybeTime(p.lastReadAt ?? null),
  };
}
