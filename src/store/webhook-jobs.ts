import type { Selectable } from "kysely";
import type { Tables } from "./database.js";
import { type StoreContext, time } from "./query-helpers.js";

// The webhook jobs' bodies: what a comment command needs of its webhook once the webhook was answered
// (docs/architecture.md, "A command's path"). The job's claim is a work item (kind `command`, keyed by
// its delivery id: src/work), and its delivery is handled once by a once-claim (scope
// `github-delivery`): what stays here is only what the job runs, too big for a work item's payload.

/** Webhook deliveries are remembered this long (the once-claims' scope `github-delivery`). */
export const DELIVERY_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** A job's body left behind (its work item gone without it) is pruned this long after it was received. */
export const WEBHOOK_JOB_RETENTION_MS = DELIVERY_RETENTION_MS;

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

/** The bodies of the webhook jobs still to run, by delivery id. */
export interface WebhookJobStore {
  /** Records a job's body (one left of a delivery forgotten since is replaced). */
  recordWebhookJob(job: WebhookJob): Promise<void>;
  /** The job recorded for a delivery; null when there is none (done, or never recorded). */
  readWebhookJob(deliveryId: string): Promise<WebhookJob | null>;
  /**
   * Forgets a job done. Bodies received more than WEBHOOK_JOB_RETENTION_MS before `now` are pruned now
   * and then.
   */
  forgetWebhookJob(deliveryId: string, now: Date): Promise<void>;
}

export function kyselyWebhookJobs(ctx: StoreContext): WebhookJobStore {
  const { db } = ctx;
  return {
    async recordWebhookJob(job) {
      const values = {
        kind: job.kind,
        installation_id: job.installationId,
        payload: JSON.stringify(job.payload ?? null),
        received_at: time(job.receivedAt),
        // To an older replica's sweep (a rolling upgrade from before migration 38) the row reads as done:
        // its claim is the work item's, not this row's.
        claimed_by: null,
        claimed_until: null,
        done_at: time(job.receivedAt),
      };
      await db
        .insertInto("webhook_jobs")
        .values({ delivery_id: job.deliveryId, ...values })
        .onConflict((oc) => oc.column("delivery_id").doUpdateSet(values))
        .execute();
    },
    async readWebhookJob(deliveryId) {
      const row = await db
        .selectFrom("webhook_jobs")
        .selectAll()
        .where("delivery_id", "=", deliveryId)
        .executeTakeFirst();
      return row ? toJob(row, ctx.v.readJson) : null;
    },
    async forgetWebhookJob(deliveryId, now) {
      await db.deleteFrom("webhook_jobs").where("delivery_id", "=", deliveryId).execute();
      await ctx.pruneIfDue("webhook_jobs", now, async () => {
        const before = time(new Date(now.getTime() - WEBHOOK_JOB_RETENTION_MS));
        await db.deleteFrom("webhook_jobs").where("received_at", "<", before).execute();
      });
    },
  };
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
