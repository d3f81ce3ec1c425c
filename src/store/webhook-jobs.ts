import { type Kysely, type Selectable, sql } from "kysely";
import { type Database, inTransaction, type Tables } from "./database.js";
import { chosenBy, type StoreContext, time } from "./query-helpers.js";

// What makes a request run once across replicas: GitHub webhook deliveries handled (X-GitHub-Delivery),
// the webhook jobs still to do once a webhook was answered (docs/architecture.md, "A command's path"),
// and Slack request signatures accepted (X-Slack-Signature).

/** A webhook job is kept this long after it was done (the delivery itself is remembered 7 days). */
export const WEBHOOK_JOB_RETENTION_MS = 24 * 60 * 60 * 1000;
/** Webhook deliveries are remembered this long. */
export const DELIVERY_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/**
 * Slack request signatures are remembered this long. A request is accepted while its timestamp is
 * within 5 minutes of the clock either way, so its signature can come back at most 10 minutes after it
 * was first seen; 5 more minutes cover replicas whose clocks disagree.
 */
export const SLACK_SIGNATURE_RETENTION_MS = 15 * 60 * 1000;

/** A webhook's work still to do once it was answered (a comment's command), as recorded. */
export interface WebhookJob {
  /** GitHub's X-GitHub-Delivery: the same on a redelivery. */
  deliveryId: string;
  /** What the job runs: "comment" (a comment command). */
  kind: string;
  /** The installation the webhook came for: the job acts as it. */
  installationId: number;
  /** What running it needs of the webhook's payload (JSON). */
  payload: unknown;
  receivedAt: Date;
}

/**
 * GitHub webhook deliveries handled, exactly once across replicas, and the jobs they leave: run once,
 * by the replica that received it, or by another once its claim lapsed.
 */
export interface WebhookJobStore {
  /** True the first time an id is claimed only. Deliveries older than 7 days are pruned now and then. */
  claimDelivery(id: string, now: Date): Promise<boolean>;
  /**
   * Claims the delivery id (as claimDelivery does) and records its job, `owner`'s until `until`, in one
   * transaction: false, and nothing recorded, for a delivery claimed before (a redelivery).
   */
  recordWebhookJob(job: WebhookJob, claim: { owner: string; until: Date }): Promise<boolean>;
  /**
   * Claims up to `limit` jobs not done whose claim lapsed at `now` (`claimedUntil <= now`), oldest first,
   * each `owner`'s until `until`. One statement: of two concurrent claims, each job goes to one.
   */
  claimLapsedWebhookJobs(claim: {
    owner: string;
    now: Date;
    until: Date;
    limit: number;
  }): Promise<WebhookJob[]>;
  /** Extends `owner`'s claim of a job not done; false if it is not (or no longer) theirs. */
  renewWebhookJob(deliveryId: string, owner: string, until: Date): Promise<boolean>;
  /**
   * Marks `owner`'s job done at `now`; false if it was not theirs (taken over) or done already. Jobs done
   * more than WEBHOOK_JOB_RETENTION_MS before are pruned now and then.
   */
  finishWebhookJob(deliveryId: string, owner: string, now: Date): Promise<boolean>;
}

/** Slack request signatures accepted: a signed request runs once across replicas. */
export interface SlackSignatureStore {
  /**
   * True the first time a signature is claimed, or when it was last claimed at least
   * SLACK_SIGNATURE_RETENTION_MS before `now`; false otherwise. One statement: of two concurrent
   * claims of one signature, exactly one gets true. Older signatures are pruned now and then.
   */
  claimSlackSignature(signature: string, now: Date): Promise<boolean>;
}

export function kyselyWebhookJobs(ctx: StoreContext): WebhookJobStore & SlackSignatureStore {
  const { db } = ctx;
  const pruneDeliveries = (now: Date) =>
    ctx.pruneIfDue("webhook_deliveries", now, async () => {
      await db
        .deleteFrom("webhook_deliveries")
        .where("received_at", "<", time(new Date(now.getTime() - DELIVERY_RETENTION_MS)))
        .execute();
    });
  return {
    async claimDelivery(id, now) {
      await pruneDeliveries(now);
      const inserted = await db
        .insertInto("webhook_deliveries")
        .values({ id, received_at: time(now) })
        .onConflict((oc) => oc.column("id").doNothing())
        .returning("id")
        .executeTakeFirst();
      return inserted !== undefined;
    },
    async recordWebhookJob(job, claim) {
      await pruneDeliveries(job.receivedAt);
      return recordJob(ctx.database, job, claim);
    },
    claimLapsedWebhookJobs: (claim) => claimLapsedJobs(ctx.database, claim, ctx.v.readJson),
    renewWebhookJob: (deliveryId, owner, until) => renewJob(db, deliveryId, owner, until),
    async finishWebhookJob(deliveryId, owner, now) {
      const finished = await finishJob(db, deliveryId, owner, now);
      await ctx.pruneIfDue("webhook_jobs", now, () =>
        pruneJobs(db, new Date(now.getTime() - WEBHOOK_JOB_RETENTION_MS)),
      );
      return finished;
    },
    claimSlackSignature: (signature, now) => claimSlackSignature(ctx, signature, now),
  };
}

async function claimSlackSignature(ctx: StoreContext, signature: string, now: Date): Promise<boolean> {
  const { db } = ctx;
  const forgotten = time(new Date(now.getTime() - SLACK_SIGNATURE_RETENTION_MS));
  await ctx.pruneIfDue(
    "slack_signatures",
    now,
    async () => {
      await db.deleteFrom("slack_signatures").where("seen_at", "<=", forgotten).execute();
    },
    SLACK_SIGNATURE_RETENTION_MS,
  );
  // A row older than the retention that pruning has not removed yet counts as forgotten: the claim
  // takes it over. Otherwise the conflict leaves the row as it is and returns nothing.
  const claimed = await db
    .insertInto("slack_signatures")
    .values({ signature, seen_at: time(now) })
    .onConflict((oc) =>
      oc
        .column("signature")
        .doUpdateSet({ seen_at: time(now) })
        .where("slack_signatures.seen_at", "<=", forgotten),
    )
    .returning("signature")
    .executeTakeFirst();
  return claimed !== undefined;
}

/**
 * Claims the delivery id and records its job, claimed by `owner` until `until`, in one transaction:
 * false (nothing recorded) when the delivery was claimed before (a redelivery). Of two concurrent
 * records of one delivery, one gets true.
 */
async function recordJob(
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
async function claimLapsedJobs(
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
  const rows = await db
    .updateTable("webhook_jobs")
    .set({ claimed_by: claim.owner, claimed_until: time(claim.until) })
    .where(chosenBy(database.kind, "delivery_id", candidates))
    .where(lapsed)
    .returningAll()
    .execute();
  return rows
    .map((row) => toJob(row, readJson))
    .sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime());
}

/** Extends `owner`'s claim of a job not done; false if the job is not (or no longer) theirs. */
async function renewJob(db: Kysely<Tables>, deliveryId: string, owner: string, until: Date) {
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
async function finishJob(db: Kysely<Tables>, deliveryId: string, owner: string, now: Date) {
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
async function pruneJobs(db: Kysely<Tables>, before: Date): Promise<void> {
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
