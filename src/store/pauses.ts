import { type Selectable, sql } from "kysely";
import type { ScheduledUnpauseClaims } from "../core/record-ports.js";
import type { PauseAttribution, ScheduledUnpause } from "../core/records.js";
import { Repo } from "../repo.js";
import type { Tables } from "./database.js";
import { chosenBy, readTime, renewClaim, type StoreContext, time } from "./query-helpers.js";

// Pauses: who last paused or unpaused a repository's queue through Yardmaster (the merge queue sees only
// the app's account, so its pause events cannot say who), and when a timed pause ends by itself. The
// core owns the records' types (src/core/records.ts) and the claims' port (src/core/record-ports.ts).
export type { ScheduledUnpauseClaims };

/** Who last paused or unpaused each repository's queue. */
export interface PauseAttributionStore {
  /** Upsert: one record per repository, the latest (`resumesAt` null and `scheduled` false unless given). */
  putPauseAttribution(attribution: PauseAttribution): Promise<void>;
  getPauseAttribution(repository: Repo): Promise<PauseAttribution | null>;
}

/**
 * Timed pauses: when each repository's merge queue is unpaused by itself (one row per repository); the
 * runner claims, renews and finishes those whose time has come (ScheduledUnpauseClaims).
 */
export interface ScheduledUnpauseStore extends ScheduledUnpauseClaims {
  /** Upsert: replaces the repository's scheduled unpause, and any claim of it. */
  putScheduledUnpause(unpause: ScheduledUnpause): Promise<void>;
  /** True when one was removed (a manual unpause cancels it, claimed or not). */
  deleteScheduledUnpause(repository: Repo): Promise<boolean>;
  getScheduledUnpause(repository: Repo): Promise<ScheduledUnpause | null>;
}

export type PauseStore = PauseAttributionStore & ScheduledUnpauseStore;

export function kyselyPauses(ctx: StoreContext): PauseStore {
  return {
    putPauseAttribution: putPauseAttribution(ctx),
    getPauseAttribution: getPauseAttribution(ctx),
    putScheduledUnpause: putScheduledUnpause(ctx),
    deleteScheduledUnpause: deleteScheduledUnpause(ctx),
    getScheduledUnpause: getScheduledUnpause(ctx),
    claimScheduledUnpauses: claimScheduledUnpauses(ctx),
    renewScheduledUnpauseClaim: (repository, owner, until) =>
      renewClaim(ctx.db, "scheduled_unpauses", repository, owner, until),
    finishScheduledUnpause: finishScheduledUnpause(ctx),
  };
}

function putPauseAttribution(ctx: StoreContext): PauseStore["putPauseAttribution"] {
  const { db } = ctx;
  return async (a) => {
    const values = {
      repository: a.repository.fullName,
      action: a.action,
      reason: a.reason,
      actor: a.actor,
      surface: a.surface,
      at: time(a.at),
      resumes_at: a.resumesAt ? time(a.resumesAt) : null,
      scheduled: a.scheduled ? 1 : 0,
    };
    await db
      .insertInto("pause_attributions")
      .values({ repository_key: a.repository.key, ...values })
      .onConflict((oc) => oc.column("repository_key").doUpdateSet(values))
      .execute();
  };
}

function getPauseAttribution(ctx: StoreContext): PauseStore["getPauseAttribution"] {
  const { db } = ctx;
  return async (repository) => {
    const row = await db
      .selectFrom("pause_attributions")
      .selectAll()
      .where("repository_key", "=", repository.key)
      .executeTakeFirst();
    return row
      ? {
          repository: Repo.from(row.repository),
          action: row.action,
          reason: row.reason,
          actor: row.actor,
          surface: row.surface,
          at: readTime(row.at),
          resumesAt: row.resumes_at === null ? null : readTime(row.resumes_at),
          scheduled: Number(row.scheduled) === 1,
        }
      : null;
  };
}

function putScheduledUnpause(ctx: StoreContext): PauseStore["putScheduledUnpause"] {
  const { db } = ctx;
  return async (u) => {
    const values = {
      repository: u.repository.fullName,
      reason: u.reason,
      resumes_at: time(u.resumesAt),
      scheduled_by: u.scheduledBy,
      surface: u.surface,
      created_at: time(u.createdAt),
      claimed_by: null,
      claimed_until: null,
    };
    await db
      .insertInto("scheduled_unpauses")
      .values({ repository_key: u.repository.key, ...values })
      .onConflict((oc) => oc.column("repository_key").doUpdateSet(values))
      .execute();
  };
}

function deleteScheduledUnpause(ctx: StoreContext): PauseStore["deleteScheduledUnpause"] {
  const { db } = ctx;
  return async (repository) => {
    const row = await db
      .deleteFrom("scheduled_unpauses")
      .where("repository_key", "=", repository.key)
      .returning("repository_key")
      .executeTakeFirst();
    return row !== undefined;
  };
}

function getScheduledUnpause(ctx: StoreContext): PauseStore["getScheduledUnpause"] {
  const { db } = ctx;
  return async (repository) => {
    const row = await db
      .selectFrom("scheduled_unpauses")
      .selectAll()
      .where("repository_key", "=", repository.key)
      .executeTakeFirst();
    return row ? toScheduledUnpause(row) : null;
  };
}

function claimScheduledUnpauses(ctx: StoreContext): PauseStore["claimScheduledUnpauses"] {
  const { db } = ctx;
  return async (claim) => {
    const now = time(claim.now);
    const free = sql<boolean>`(claimed_until IS NULL OR claimed_until <= ${now})`;
    const candidates = db
      .selectFrom("scheduled_unpauses")
      .select("repository_key")
      .where("resumes_at", "<=", now)
      .where(free)
      .orderBy("resumes_at")
      .limit(claim.limit)
      .$if(ctx.kind === "postgres", (q) => q.forUpdate().skipLocked());
    const rows = await db
      .updateTable("scheduled_unpauses")
      .set({ claimed_by: claim.owner, claimed_until: time(new Date(claim.now.getTime() + claim.leaseMs)) })
      .where(chosenBy(ctx.kind, "repository_key", candidates))
      .where("resumes_at", "<=", now)
      .where(free)
      .returningAll()
      .execute();
    return rows.map(toScheduledUnpause).sort((a, b) => a.resumesAt.getTime() - b.resumesAt.getTime());
  };
}

function finishScheduledUnpause(ctx: StoreContext): PauseStore["finishScheduledUnpause"] {
  const { db } = ctx;
  return async (repository, owner) => {
    const row = await db
      .deleteFrom("scheduled_unpauses")
      .where("repository_key", "=", repository.key)
      .where("claimed_by", "=", owner)
      .returning("repository_key")
      .executeTakeFirst();
    return row !== undefined;
  };
}

function toScheduledUnpause(row: Selectable<Tables["scheduled_unpauses"]>): ScheduledUnpause {
  return {
    repository: Repo.from(row.repository),
    reason: row.reason,
    resumesAt: readTime(row.resumes_at),
    scheduledBy: row.scheduled_by,
    surface: row.surface,
    createdAt: readTime(row.created_at),
  };
}
