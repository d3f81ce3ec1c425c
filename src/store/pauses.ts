import type { PauseAttribution, ScheduledUnpause } from "../core/records.js";
import { Repo } from "../repo.js";
import { readTime, type StoreContext, time } from "./query-helpers.js";
import { kyselyWorkItems, toWorkItem, type WorkItem } from "./work-items.js";

// Pauses: who last paused or unpaused a repository's queue through Yardmaster (the merge queue sees only
// the app's account, so its pause events cannot say who), and when a timed pause ends by itself: durable
// work of kind `unpause` (src/work, work-items.ts), one item per repository. The core owns the records'
// types (src/core/records.ts).

/** The kind of durable work that ends timed pauses (src/timed-pauses/runner.ts). */
export const UNPAUSE_KIND = "unpause";

/** Who last paused or unpaused each repository's queue. */
export interface PauseAttributionStore {
  /** Upsert: one record per repository, the latest (`resumesAt` null and `scheduled` false unless given). */
  putPauseAttribution(attribution: PauseAttribution): Promise<void>;
  getPauseAttribution(repository: Repo): Promise<PauseAttribution | null>;
}

/**
 * Timed pauses: when each repository's merge queue is unpaused by itself (one work item per repository);
 * the runner of durable work claims those whose time has come (src/timed-pauses/runner.ts).
 */
export interface ScheduledUnpauseStore {
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
  const work = kyselyWorkItems(ctx);
  return async (u) => {
    await work.scheduleWork({
      kind: UNPAUSE_KIND,
      key: u.repository.key,
      dueAt: u.resumesAt,
      payload: {
        repository: u.repository.fullName,
        reason: u.reason,
        scheduledBy: u.scheduledBy,
        surface: u.surface,
        createdAt: time(u.createdAt),
      },
    });
  };
}

function deleteScheduledUnpause(ctx: StoreContext): PauseStore["deleteScheduledUnpause"] {
  return async (repository) => {
    const row = await ctx.db
      .deleteFrom("work_items")
      .where("kind", "=", UNPAUSE_KIND)
      .where("key", "=", repository.key)
      .returning("key")
      .executeTakeFirst();
    return row !== undefined;
  };
}

function getScheduledUnpause(ctx: StoreContext): PauseStore["getScheduledUnpause"] {
  return async (repository) => {
    const row = await ctx.db
      .selectFrom("work_items")
      .selectAll()
      .where("kind", "=", UNPAUSE_KIND)
      .where("key", "=", repository.key)
      .executeTakeFirst();
    return row ? scheduledUnpauseOf(toWorkItem(ctx, row)) : null;
  };
}

/**
 * A timed pause's end as durable work (src/timed-pauses/runner.ts): its item's payload, and its time
 * the item's due time while it is not claimed (the claim's end while it is).
 */
export function scheduledUnpauseOf(item: WorkItem): ScheduledUnpause {
  const p = item.payload as {
    repository: string;
    reason: string;
    scheduledBy: string;
    surface: "github" | "slack";
    createdAt: string;
  };
  return {
    repository: Repo.from(p.repository),
    reason: p.reason,
    resumesAt: item.dueAt,
    scheduledBy: p.scheduledBy,
    surface: p.surface,
    createdAt: new Date(p.createdAt),
  };
}
