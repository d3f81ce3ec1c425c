import { z } from "zod";
import { buildPauseSchema } from "./pause.schema.js";
import { dateTimeSchema, pullNumberValueSchema, uuidSchema } from "./primitives.schema.js";
import { lenientMode, type SchemaMode } from "./schema-mode.js";

/** Batch status codes (docs/merge-queue-api.md, "Codes"), plus `waiting_for_checks_slot` which the real service also has. */
export const BATCH_STATUS_CODES = [
  "running",
  "bisecting",
  "preparing",
  "failed",
  "merged",
  "waiting_for_merge",
  "waiting_for_previous_batches",
  "waiting_for_requeue",
  "waiting_schedule",
  "waiting_for_batch",
  "waiting_for_checks_slot",
  "frozen",
] as const;
export type BatchStatusCode = (typeof BATCH_STATUS_CODES)[number];

/** Queue modes (reference only: `mode` is not in the spec). */
export const QUEUE_MODES = ["serial", "parallel", "isolated"] as const;
export type QueueMode = (typeof QUEUE_MODES)[number];

/** The status endpoint's answer (docs/merge-queue-api.md). */
export function buildStatusSchemas(mode: SchemaMode) {
  const nullableDateTime = dateTimeSchema.nullable();

  const queuedPullRequest = z.looseObject({
    number: pullNumberValueSchema,
    title: z.string(),
    url: z.string(),
    author: z.looseObject({ id: z.int(), login: z.string() }),
    queued_at: dateTimeSchema,
    priority_alias: z.string(),
    priority_rule_name: z.string(),
    labels: z.array(z.string()),
    scopes: z.array(z.string()),
    github_labels: z
      .array(z.looseObject({ id: z.int(), name: z.string(), color: z.string(), default: z.boolean() }))
      .nullable()
      .optional(),
    estimated_merge_at: nullableDateTime.optional(),
    conflict_with_pull_requests: z.array(pullNumberValueSchema).nullable().optional(),
  });

  const batchStatus = z.looseObject({
    code: mode.oneOf(BATCH_STATUS_CODES),
    batch_filled_slots: z.int().nullable().optional(),
    max_batch_slots: z.int().nullable().optional(),
    batch_max_start_at: nullableDateTime.optional(),
  });

  /** MergeQueueStatusBatchBase: the element of `sub_batches`. */
  const subBatch = z.looseObject({
    id: uuidSchema,
    name: z.string(),
    parent_ids: z.array(uuidSchema),
    status: batchStatus,
    started_at: nullableDateTime,
    estimated_merge_at: nullableDateTime,
    estimated_ci_finish_at: mode.alwaysSent(nullableDateTime),
    ci_finished_at: mode.alwaysSent(nullableDateTime),
    scopes: z.array(z.string()),
    queue_rule_name: z.string(),
    checks_summary: z.looseObject({ passed: z.int(), total: z.int() }),
    pull_requests: z.array(queuedPullRequest),
  });

  /** MergeQueueStatusBatchWithSubBatch: a top-level batch. */
  const batch = subBatch.extend({ sub_batches: z.array(subBatch).nullable().optional() });

  const status = z.looseObject({
    batches: z.array(batch),
    waiting_pull_requests: z.array(queuedPullRequest),
    mode: mode.alwaysSent(mode.oneOf(QUEUE_MODES)),
    scope_queues: z.record(z.string(), z.array(uuidSchema)).optional(),
    pause: buildPauseSchema(mode).nullable().optional(),
  });

  return { queuedPullRequest, batchStatus, subBatch, batch, status };
}

const lenient = buildStatusSchemas(lenientMode);
export const queuedPullRequestSchema = lenient.queuedPullRequest;
export const subBatchSchema = lenient.subBatch;
export const batchSchema = lenient.batch;
export const queueStatusSchema = lenient.status;

export type QueuedPullRequest = z.infer<typeof queuedPullRequestSchema>;
export type SubBatch = z.infer<typeof subBatchSchema>;
export type Batch = z.infer<typeof batchSchema>;
export type QueueStatus = z.infer<typeof queueStatusSchema>;
