import { type Kysely, type Selectable, sql } from "kysely";
import { type Database, inTransaction, type Tables } from "./database.js";
import type { WebhookJob } from "./store.js";

// The queries of webhook jobs (docs/architecture.md, "A command's path"), called by KyselyStore. Times
// are written as ISO-8601 UTC text, as the rest of the store writes them.

const time = (date: Date): string => date.toISOString();

/**
 * Claims the delivery id and records its job, claimed by `owner` until `until`, in one transaction:
 * false (nothing recorded) when the delivery was claimed before (a redelivery). Of two concurrent
 * records of one delivery, one gets true.
 */
export async function recordJob(
  database: Database,
  job: WebhookJob,
  claim: { owner: string; until: Date },
): Promise<boolean> {
  return inTransaction(database, async (tx) => {
    const claimed = await tx
      .insertInto("webhook_deliveries")
      .values({ id: job.deliveryId, received_at: time(job.receivedAt) })
      .onConflict((oc) => oc.column("id").doNothing())
      .returning("id")
      .executeTakeFirst();
    if (!claimed) return false;
    const values = {
      kind: job.kind,
      installation_id: job.installationId,
      payload: JSON.stringify(job.payload ?? null),
      received_at: time(job.receivedAt),
      claimed_by: claim.owner,
      claimed_until: time(claim.until),
      done_at: null,
    };
    // A job left of a delivery forgotten since (older than its retention) is replaced: the delivery is new.
    await tx
      .insertInto("webhook_jobs")
      .values({ delivery_id: job.deliveryId, ...values })
      .onConflict((oc) => oc.column("delivery_id").doUpdateSet(values))
      .execute();
    return true;
  });
}

/**
 * Claims up to `limit` jobs not done whose claim lapsed at `now` (their replica died, or gave up), oldest
 * first, each `owner`'s until `until`. One statement (PostgreSQL skips the rows another replica is
 * claiming): of two concurrent claims, each job goes to one.
 */
export async function claimLapsedJobs(
  database: Database,
  claim: { owner: string; now: Date; until: Date; limit: number },
  readJson: (value: unknown) => unknown,
): Promise<WebhookJob[]> {
  const { db } = database;
  const now = time(claim.now);
  const lapsed = sql<boolean>`(done_at IS NULL AND (claimed_until IS NULL OR claimed_until <= ${now}))`;
  const candidates = db
    .selectFrom("webhook_jobs")
    .select("delivery_id")
    .where(lapsed)
    .orderBy("received_at")
    .limit(claim.limit)
    .$if(database.kind === "postgres", (q) => q.forUpdate().skipLocked());
  // PostgreSQL may run an IN subquery more than once (more rows than the limit): ARRAY() runs it once.
  const chosen =
    database.kind === "postgres"
      ? sql<boolean>`delivery_id = ANY(ARRAY(${candidates}))`
      : sql<boolean>`delivery_id IN (${candidates})`;
  const rows = await db
    .updateTable("webhook_jobs")
    .set({ claimed_by: claim.owner, claimed_until: time(claim.until) })
    .where(chosen)
    .where(lapsed)
    .returningAll()
    .execute();
  return rows
    .map((row) => toJob(row, readJson))
    .sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime());
}

/** Extends `owner`'s claim of a job not done; false if the job is not (or no longer) theirs. */
export async function renewJob(db: Kysely<Tables>, deliveryId: string, owner: string, until: Date) {
  const row = await db
    .updateTable("webhook_jobs")
    .set({ claimed_until: time(until) })
    .where("delivery_id", "=", deliveryId)
    .where("claimed_by", "=", owner)
    .where("done_at", "is", null)
    .returning("delivery_id")
    .executeTakeFirst();
  return row !== undefined;
}

/** Marks `owner`'s job done; false if it was not theirs (another replica took it over) or done already. */
export async function finishJob(db: Kysely<Tables>, deliveryId: string, owner: string, now: Date) {
  const row = await db
    .updateTable("webhook_jobs")
    .set({ done_at: time(now), claimed_until: null })
    .where("delivery_id", "=", deliveryId)
    .where("claimed_by", "=", owner)
    .where("done_at", "is", null)
    .returning("delivery_id")
    .executeTakeFirst();
  return row !== undefined;
}

/** Removes the jobs done before `before`. */
export async function pruneJobs(db: Kysely<Tables>, before: Date): Promise<void> {
  await db.deleteFrom("webhook_jobs").where("done_at", "<", time(before)).execute();
}

function toJob(row: Selectable<Tables["webhook_jobs"]>, readJson: (value: unknown) => unknown): WebhookJob {
  return {
    deliveryId: row.delivery_id,
    kind: row.kind,
    installationId: Number(row.installation_id),
    payload: readJson(row.payload),
    receivedAt: new Date(row.received_at),
  };
}
