import { randomUUID } from "node:crypto";
import { type Selectable, sql } from "kysely";
import type { FreezeRecords } from "../core/record-ports.js";
import type {
  Freeze,
  FreezeSchedule,
  FreezeStep,
  FreezeStepClaim,
  FreezeWindowToEnd,
} from "../core/records.js";
import { Repo } from "../repo.js";
import type { Tables } from "./database.js";
import { json, readTime, type StoreContext, time } from "./query-helpers.js";

// Freeze windows (docs/commands.md, "Freeze windows"): each repository's freezes, and each window's
// steps, claimed by one replica at a time (a lease, taken over when its replica dies) and done once.
// The records and the port are the core's (src/core/records.ts, record-ports.ts), for src/freezes.
export type { Freeze, FreezeStep, FreezeStepClaim, FreezeWindowToEnd };

export type FreezeStore = FreezeRecords;

/** A step done this long ago is forgotten (its window has long ended). */
export const FREEZE_STEP_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export function kyselyFreezes(ctx: StoreContext): FreezeStore {
  return {
    addFreeze: addFreeze(ctx),
    listFreezes: listFreezes(ctx),
    deleteFreeze: deleteFreeze(ctx),
    claimFreezeStep: claimFreezeStep(ctx),
    finishFreezeStep: finishFreezeStep(ctx),
    listFreezeWindowsToEnd: listFreezeWindowsToEnd(ctx),
  };
}

function addFreeze(ctx: StoreContext): FreezeStore["addFreeze"] {
  const { db } = ctx;
  return async (f) => {
    const taken = await db
      .selectFrom("freezes")
      .select("id")
      .where("repository_key", "=", f.repository.key)
      .where("name_key", "=", f.name.toLowerCase())
      .executeTakeFirst();
    if (taken) return "name-taken";
    // The unique constraints settle a race: the loser tries the next number, or finds the name taken.
    for (let attempt = 0; attempt < 3; attempt++) {
      const last = await db
        .selectFrom("freezes")
        .select(sql<number | string | null>`max(number)`.as("n"))
        .where("repository_key", "=", f.repository.key)
        .executeTakeFirst();
      const number = Number(last?.n ?? 0) + 1;
      const row = await db
        .insertInto("freezes")
        .values({
          id: f.id || randomUUID(),
          repository_key: f.repository.key,
          repository: f.repository.fullName,
          number,
          name: f.name,
          name_key: f.name.toLowerCase(),
          schedule: json(f.schedule),
          zone: f.zone,
          created_by: f.createdBy,
          surface: f.surface,
          created_at: time(f.createdAt),
          except_labels: f.except?.length ? json([...f.except]) : null,
        })
        .onConflict((oc) => oc.doNothing())
        .returningAll()
        .executeTakeFirst();
      if (row) return toFreeze(ctx, row);
      const again = await db
        .selectFrom("freezes")
        .select("id")
        .where("repository_key", "=", f.repository.key)
        .where("name_key", "=", f.name.toLowerCase())
        .executeTakeFirst();
      if (again) return "name-taken";
    }
    throw new Error(`could not number a new freeze of ${f.repository.fullName}`);
  };
}

function listFreezes(ctx: StoreContext): FreezeStore["listFreezes"] {
  const { db } = ctx;
  return async (repository) => {
    const rows = await db
      .selectFrom("freezes")
      .selectAll()
      .$if(repository !== undefined, (q) => q.where("repository_key", "=", repository?.key ?? ""))
      .orderBy("repository_key")
      .orderBy("number")
      .execute();
    return rows.map((row) => toFreeze(ctx, row));
  };
}

function deleteFreeze(ctx: StoreContext): FreezeStore["deleteFreeze"] {
  const { db } = ctx;
  return async (repository, which) => {
    const row = await db
      .deleteFrom("freezes")
      .where("repository_key", "=", repository.key)
      .$if("number" in which, (q) => q.where("number", "=", "number" in which ? which.number : 0))
      .$if("name" in which, (q) => q.where("name_key", "=", "name" in which ? which.name.toLowerCase() : ""))
      .returningAll()
      .executeTakeFirst();
    return row ? toFreeze(ctx, row) : null;
  };
}

function claimFreezeStep(ctx: StoreContext): FreezeStore["claimFreezeStep"] {
  const { db } = ctx;
  return async (c) => {
    const now = time(c.now);
    const until = time(new Date(c.now.getTime() + c.leaseMs));
    await ctx.pruneIfDue("freeze_steps", c.now, () =>
      db
        .deleteFrom("freeze_steps")
        .where("ends_at", "<", time(new Date(c.now.getTime() - FREEZE_STEP_RETENTION_MS)))
        .execute(),
    );
    const row = await db
      .insertInto("freeze_steps")
      .values({
        freeze_id: c.freezeId,
        starts_at: time(c.startsAt),
        step: c.step,
        repository_key: c.repository.key,
        repository: c.repository.fullName,
        ends_at: time(c.endsAt),
        reason: c.reason,
        created_by: c.by?.login ?? null,
        surface: c.by?.surface ?? null,
        claimed_by: c.owner,
        claimed_until: until,
        done: 0,
      })
      .onConflict((oc) =>
        oc
          .columns(["freeze_id", "starts_at", "step"])
          .doUpdateSet({ claimed_by: c.owner, claimed_until: until })
          .where("freeze_steps.done", "=", 0)
          .where("freeze_steps.claimed_until", "<=", now),
      )
      .returning("claimed_by")
      .executeTakeFirst();
    return row?.claimed_by === c.owner;
  };
}

function finishFreezeStep(ctx: StoreContext): FreezeStore["finishFreezeStep"] {
  const { db } = ctx;
  return async (freezeId, startsAt, step, owner) => {
    await db
      .updateTable("freeze_steps")
      .set({ done: 1 })
      .where("freeze_id", "=", freezeId)
      .where("starts_at", "=", time(startsAt))
      .where("step", "=", step)
      .where("claimed_by", "=", owner)
      .execute();
  };
}

function listFreezeWindowsToEnd(ctx: StoreContext): FreezeStore["listFreezeWindowsToEnd"] {
  const { db } = ctx;
  return async (now, limit) => {
    const rows = await db
      .selectFrom("freeze_steps as s")
      .select([
        "s.freeze_id",
        "s.repository",
        "s.starts_at",
        "s.ends_at",
        "s.reason",
        "s.created_by",
        "s.surface",
      ])
      .where("s.step", "=", "start")
      .where("s.done", "=", 1)
      .where("s.ends_at", "<=", time(now))
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("freeze_steps as e")
              .select("e.freeze_id")
              .whereRef("e.freeze_id", "=", "s.freeze_id")
              .whereRef("e.starts_at", "=", "s.starts_at")
              .where("e.step", "=", "end")
              .where("e.done", "=", 1),
          ),
        ),
      )
      .orderBy("s.ends_at")
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      freezeId: row.freeze_id,
      repository: Repo.from(row.repository),
      startsAt: readTime(row.starts_at),
      endsAt: readTime(row.ends_at),
      reason: row.reason,
      by: row.created_by && row.surface ? { login: row.created_by, surface: row.surface } : null,
    }));
  };
}

function toFreeze(ctx: StoreContext, row: Selectable<Tables["freezes"]>): Freeze {
  const labels = row.except_labels ? (ctx.v.readJson(row.except_labels) as string[]) : [];
  return {
    id: row.id,
    repository: Repo.from(row.repository),
    number: Number(row.number),
    name: row.name,
    schedule: ctx.v.readJson(row.schedule) as FreezeSchedule,
    zone: row.zone,
    createdBy: row.created_by,
    surface: row.surface,
    createdAt: readTime(row.created_at),
    ...(labels.length ? { except: labels } : {}),
  };
}
