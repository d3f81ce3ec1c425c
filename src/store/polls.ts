import { type Selectable, sql } from "kysely";
import { Repo } from "../repo.js";
import type { PollCadence, PollReason, Tables } from "./database.js";
import {
  chosenBy,
  type DialectValues,
  json,
  maybeTime,
  readTime,
  renewClaim,
  type StoreContext,
  time,
} from "./query-helpers.js";

// The notifier's reading of each subscribed repository's log: when it is read next, and by which replica
// (the schedule: one row per repository, kept with its subscriptions, subscriptions.ts), GitHub's
// doorbell that makes it due sooner, and where the log was read up to (the cursor).

// Why a read is scheduled, and why it happens: kept as the schedule's columns (database.ts).
export type { PollCadence, PollReason };

export interface PollSchedule {
  repository: Repo;
  nextPollAt: Date;
  cadence: PollCadence;
  doorbellAt: Date | null;
  recheckAt: Date | null;
  /** Read at the interval (not the idle period) until then: GitHub announced activity, or the log had events. */
  activeUntil: Date | null;
  /** Reads failed in a row, and the last failure. */
  failures: number;
  lastError: string | null;
  claimedBy: string | null;
  claimedUntil: Date | null;
  /** When a read last began (its claim); null before the first since this was recorded. */
  lastReadAt: Date | null;
}

export interface ClaimedPoll extends PollSchedule {
  reason: PollReason;
}

export interface PollCursor {
  repository: Repo;
  receivedFrom: Date;
  /** Ids of events at or after receivedFrom already processed, to skip on overlap. */
  seenEventIds: number[];
  updatedAt: Date;
}

/** When each subscribed repository's log is read next, and by which replica. */
export interface PollScheduleStore {
  /**
   * Claims up to `limit` repositories that are due at `now` (their cadence, doorbell or recheck time has
   * come) and not claimed by a live replica: each is `owner`'s until `now + leaseMs`. One statement
   * (PostgreSQL skips the rows another replica is claiming): of two concurrent claims, each row goes to
   * one. A doorbell or recheck time that has come is cleared by the claim, which reads for it, and the
   * claim is recorded as the repository's last read. A doorbell or recheck time makes a repository due
   * only `minGapMs` (default 0) after its last read: however often GitHub rings, the doorbell reads it at
   * most once per gap, across replicas. Repositories asked for by the doorbell come first.
   */
  claimPolls(claim: {
    owner: string;
    now: Date;
    leaseMs: number;
    limit: number;
    minGapMs?: number;
  }): Promise<ClaimedPoll[]>;
  /** Extends `owner`'s claim of a repository; false if it is not (or no longer) theirs. */
  renewPollClaim(repository: Repo, owner: string, until: Date): Promise<boolean>;
  /**
   * Ends `owner`'s claim of a repository with its next cadence read; does nothing if the claim is not
   * theirs any more. Doorbell and recheck times set meanwhile are kept. `activeUntil`, when given, is
   * recorded if later than the one recorded.
   */
  finishPoll(
    repository: Repo,
    owner: string,
    next: {
      nextPollAt: Date;
      cadence: PollCadence;
      failures: number;
      lastError: string | null;
      activeUntil?: Date;
    },
  ): Promise<void>;
  /**
   * GitHub announced activity on a repository: it is read at `pollAt` (or earlier, if a read was already
   * asked for: a read already due stays the one read), once more at `recheckAt` (replacing the follow-up
   * asked for before: one is kept), and counts as active until `activeUntil`. Returns the schedule after
   * the ring (when the read is due: its doorbell time, or the claim's minimum gap after its last read);
   * null when the repository is not subscribed (nothing to read).
   */
  ringDoorbell(
    repository: Repo,
    at: { pollAt: Date; recheckAt: Date; activeUntil: Date },
  ): Promise<PollSchedule | null>;
  getPollSchedule(repository: Repo): Promise<PollSchedule | null>;
  /** The repositories whose next read waits the idle period (cadence `idle`). */
  listIdlePolls(): Promise<Repo[]>;
  /**
   * The doorbell no longer serves these repositories: each one still waiting the idle period is read at
   * `at` instead (cadence `interval`), unless due sooner. Returns how many were brought forward.
   */
  hastenIdlePolls(repositories: readonly Repo[], at: Date): Promise<number>;
}

/** Where each repository's log was read up to. */
export interface PollCursorStore {
  getPollCursor(repository: Repo): Promise<PollCursor | null>;
  /** Upsert. */
  putPollCursor(cursor: PollCursor): Promise<void>;
}

export type PollStore = PollScheduleStore & PollCursorStore;

export function kyselyPolls(ctx: StoreContext): PollStore {
  const { db, v } = ctx;
  return {
    claimPolls: (claim) => claimPolls(ctx, claim),

    renewPollClaim: (repository, owner, until) => renewClaim(db, "poll_schedule", repository, owner, until),

    async finishPoll(repository, owner, next) {
      const activeUntil = next.activeUntil ? time(next.activeUntil) : undefined;
      await db
        .updateTable("poll_schedule")
        .set({
          next_poll_at: time(next.nextPollAt),
          cadence: next.cadence,
          failures: next.failures,
          last_error: next.lastError,
          claimed_by: null,
          claimed_until: null,
          claim_reason: null,
          ...(activeUntil
            ? {
                active_until: sql`CASE WHEN active_until IS NULL OR active_until < ${activeUntil} THEN ${activeUntil} ELSE active_until END`,
              }
            : {}),
        })
        .where("repository_key", "=", repository.key)
        .where("claimed_by", "=", owner)
        .execute();
    },

    async ringDoorbell(repository, at) {
      const pollAt = time(at.pollAt);
      // Debounced: a read already asked for sooner stays; later events in the meantime are read by it.
      const row = await db
        .updateTable("poll_schedule")
        .set({
          doorbell_at: sql`CASE WHEN doorbell_at IS NULL OR doorbell_at > ${pollAt} THEN ${pollAt} ELSE doorbell_at END`,
          recheck_at: time(at.recheckAt),
          active_until: time(at.activeUntil),
        })
        .where("repository_key", "=", repository.key)
        .returningAll()
        .executeTakeFirst();
      return row ? toPollSchedule(row) : null;
    },

    async getPollSchedule(repository) {
      const row = await db
        .selectFrom("poll_schedule")
        .selectAll()
        .where("repository_key", "=", repository.key)
        .executeTakeFirst();
      return row ? toPollSchedule(row) : null;
    },

    async listIdlePolls() {
      const rows = await db
        .selectFrom("poll_schedule")
        .select("repository")
        .where("cadence", "=", "idle")
        .orderBy("repository_key")
        .execute();
      return rows.map((row) => Repo.from(row.repository));
    },

    async hastenIdlePolls(repositories, at) {
      if (repositories.length === 0) return 0;
      const result = await db
        .updateTable("poll_schedule")
        .set({ next_poll_at: time(at), cadence: "interval" })
        .where(
          "repository_key",
          "in",
          repositories.map((r) => r.key),
        )
        .where("cadence", "=", "idle")
        .where("next_poll_at", ">", time(at))
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    async getPollCursor(repository) {
      const row = await db
        .selectFrom("poll_cursors")
        .selectAll()
        .where("repository_key", "=", repository.key)
        .executeTakeFirst();
      return row ? toPollCursor(row, v) : null;
    },

    async putPollCursor(cursor) {
      const values = {
        repository: cursor.repository.fullName,
        received_from: time(cursor.receivedFrom),
        seen_event_ids: json(cursor.seenEventIds),
        updated_at: time(cursor.updatedAt),
      };
      await db
        .insertInto("poll_cursors")
        .values({ repository_key: cursor.repository.key, ...values })
        .onConflict((oc) => oc.column("repository_key").doUpdateSet(values))
        .execute();
    },
  };
}

async function claimPolls(
  ctx: StoreContext,
  claim: Parameters<PollScheduleStore["claimPolls"]>[0],
): Promise<ClaimedPoll[]> {
  const now = time(claim.now);
  const came = (column: "next_poll_at" | "doorbell_at" | "recheck_at") =>
    sql<boolean>`${sql.ref(column)} <= ${now}`;
  const gapEnd = time(new Date(claim.now.getTime() - (claim.minGapMs ?? 0)));
  const gapOver = sql<boolean>`(last_read_at IS NULL OR last_read_at <= ${gapEnd})`;
  const rung = sql<boolean>`((${came("doorbell_at")} OR ${came("recheck_at")}) AND ${gapOver})`;
  const due = sql<boolean>`(${came("next_poll_at")} OR ${rung})`;
  const free = sql<boolean>`(claimed_until IS NULL OR claimed_until <= ${now})`;
  const candidates = ctx.db
    .selectFrom("poll_schedule")
    .select("repository_key")
    .where(due)
    .where(free)
    .orderBy(sql`CASE WHEN ${rung} THEN 0 ELSE 1 END`)
    .orderBy("next_poll_at")
    .limit(claim.limit)
    .$if(ctx.kind === "postgres", (q) => q.forUpdate().skipLocked());
  // Every SET expression reads the row as it was: the reason is decided before the times are cleared.
  const rows = await ctx.db
    .updateTable("poll_schedule")
    .set({
      claimed_by: claim.owner,
      claimed_until: time(new Date(claim.now.getTime() + claim.leaseMs)),
      claim_reason: sql`CASE WHEN ${rung} THEN 'doorbell' ELSE cadence END`,
      last_read_at: now,
      doorbell_at: sql`CASE WHEN ${came("doorbell_at")} THEN NULL ELSE doorbell_at END`,
      recheck_at: sql`CASE WHEN ${came("recheck_at")} THEN NULL ELSE recheck_at END`,
    })
    .where(chosenBy(ctx.kind, "repository_key", candidates))
    .where(due)
    .where(free)
    .returningAll()
    .execute();
  return rows
    .map((row) => ({ ...toPollSchedule(row), reason: row.claim_reason ?? row.cadence }))
    .sort((a, b) => (a.reason === "doorbell" ? 0 : 1) - (b.reason === "doorbell" ? 0 : 1));
}

function toPollCursor(row: Selectable<Tables["poll_cursors"]>, v: DialectValues): PollCursor {
  return {
    repository: Repo.from(row.repository),
    receivedFrom: readTime(row.received_from),
    seenEventIds: v.readJson(row.seen_event_ids) as number[],
    updatedAt: readTime(row.updated_at),
  };
}

function toPollSchedule(row: Selectable<Tables["poll_schedule"]>): PollSchedule {
  return {
    repository: Repo.from(row.repository),
    nextPollAt: readTime(row.next_poll_at),
    cadence: row.cadence,
    doorbellAt: maybeTime(row.doorbell_at),
    recheckAt: maybeTime(row.recheck_at),
    activeUntil: maybeTime(row.active_until),
    failures: row.failures,
    lastError: row.last_error,
    claimedBy: row.claimed_by,
    claimedUntil: maybeTime(row.claimed_until),
    lastReadAt: maybeTime(row.last_read_at),
  };
}
