import { randomUUID } from "node:crypto";
import { type Selectable, sql } from "kysely";
import type { FreezeRecords } from "../core/record-ports.js";
import type { Freeze, FreezeSchedule, FreezeStep, FreezeWindowToEnd } from "../core/records.js";
import { Repo } from "../repo.js";
import type { Tables } from "./database.js";
import { json, readTime, type StoreContext, time } from "./query-helpers.js";
import { kyselyWorkItems } from "./work-items.js";

// Freeze windows (docs/commands.md, "Freeze windows"): each repository's freezes. Their steps are
// durable work (src/work, work-items.ts): one item of kind `freeze` per freeze, due at its next step,
// made and removed with the freeze here; each window's end is an item of kind `freeze-end` of its own
// (src/freezes/runner.ts), so that a window in progress ends after its freeze is removed. The records
// and the port are the core's (src/core/records.ts, record-ports.ts), for src/freezes.
export type { Freeze, FreezeStep, FreezeWindowToEnd };

export type FreezeStore = FreezeRecords;

/** The kind of durable work of each freeze's next step (the notice before a window, its start). */
export const FREEZE_KIND = "freeze";

/** The kind of durable work of a started window's end (its key: the freeze's id, `@`, the window's start). */
export const FREEZE_END_KIND = "freeze-end";

export function kyselyFreezes(ctx: StoreContext): FreezeStore {
  return {
    addFreeze: addFreeze(ctx),
    listFreezes: listFreezes(ctx),
    deleteFreeze: deleteFreeze(ctx),
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
      if (row) {
        // Its steps: due at once, the runner reckons the next from there.
        await kyselyWorkItems(ctx).scheduleWork({
          kind: FREEZE_KIND,
          key: row.id,
          dueAt: f.createdAt,
          payload: { repository: f.repository.fullName },
          when: "absent",
        });
        return toFreeze(ctx, row);
      }
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
    if (!row) return null;
    // Its next step goes; a window in progress still ends (its end is an item of its own).
    await db.deleteFrom("work_items").where("kind", "=", FREEZE_KIND).where("key", "=", row.id).execute();
    return toFreeze(ctx, row);
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
