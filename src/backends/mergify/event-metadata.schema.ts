import { z } from "zod";
import type { TypedEventType } from "./event-types.js";
import { dateTimeSchema, pullNumberValueSchema, uuidSchema } from "./primitives.schema.js";
import { buildQueueCheckSchema } from "./queue-check.schema.js";
import { lenientMode, type SchemaMode } from "./schema-mode.js";

/** Dequeue codes of a pull request that left the queue merged. */
export const MERGED_DEQUEUE_CODES = ["PR_MERGED", "PR_MERGED_INTERMEDIATE_RESULTS_SKIPPED"] as const;

/** Why checks were aborted or a pull request was dequeued without merging. */
export const ABORT_CODES = [
  "PR_DEQUEUED",
  "PR_DEQUEUED_FROM_PARTITION",
  "PR_AHEAD_DEQUEUED",
  "BATCH_AHEAD_FAILED",
  "PR_WITH_HIGHER_PRIORITY_QUEUED",
  "SCHEDULED_FREEZE_STATUS_CHANGED",
  "SPECULATIVE_CHECK_NUMBER_REDUCED",
  "CHECKS_TIMEOUT",
  "CHECKS_FAILED",
  "DROPPED_BY_BISECTION_ELIMINATION",
  "QUEUE_RULE_MISSING",
  "BASE_BRANCH_MISSING",
  "BASE_BRANCH_CHANGED",
  "PR_UNEXPECTEDLY_FAILED_TO_MERGE",
  "BATCH_MAX_FAILURE_RESOLUTION_ATTEMPTS",
  "PR_CHECKS_STOPPED_BECAUSE_MERGE_QUEUE_PAUSE",
  "CONFLICT_WITH_BASE_BRANCH",
  "CONFLICT_WITH_PULL_AHEAD",
  "BRANCH_UPDATE_FAILED",
  "DRAFT_PULL_REQUEST_CHANGED",
  "BATCH_PULL_REQUEST_CLOSED",
  "PULL_REQUEST_UPDATED",
  "MERGE_QUEUE_RESET",
  "INCOMPATIBILITY_WITH_BRANCH_PROTECTIONS",
  "PR_MANUALLY_MERGED",
  "DRAFT_PULL_REQUEST_CREATION_FAILED",
  "DRAFT_PULL_REQUEST_CREATION_BRANCH_NOT_INDEXED",
  "CONFIGURATION_CHANGED",
  "UNPROCESSABLE_PULL_REQUEST",
  "PR_MANUALLY_DEQUEUED",
  "STACK_PREDECESSOR_DEQUEUED",
  "INTERMEDIATE_RESULTS_SKIPPED",
  "CHECKS_RETRIED",
  "SCHEDULE_BLOCKED_AHEAD_YIELDED",
  "BASE_REF_ALIGNMENT_TIMEOUT",
  "GITHUB_STACKED_PULL_REQUEST_MERGE_UNSUPPORTED",
  "BATCH_SCOPES_CHANGED",
  "BATCH_AHEAD_BRANCH_EDITED",
  "CHECKS_INTERRUPTED",
] as const;

export const DEQUEUE_CODES = [...MERGED_DEQUEUE_CODES, ...ABORT_CODES] as const;

export const CHECKS_CONCLUSIONS = [
  "success",
  "failure",
  "neutral",
  "cancelled",
  "skipped",
  "stale",
  "action_required",
  "timed_out",
  "error",
  "pending",
] as const;

/**
 * Metadata of the queue, pause and command events, from the reference's `Event*Metadata` schemas.
 * The spec shows no metadata, so when lenient every field is optional (but typed when present);
 * strict requires what the real service always sends. Nested check objects follow QueueCheck (docs/merge-queue-api.md).
 */
export function buildEventMetadataSchemas(mode: SchemaMode) {
  const check = buildQueueCheckSchema(mode);
  const { actor, gitHubAccount, speculativeCheckPullRequest } = accountSchemas(mode, check);
  const fields = sharedFields(mode, speculativeCheckPullRequest, check);
  const byType = {
    ...queueMembershipSchemas(mode, fields),
    ...checksSchemas(mode, fields),
    ...bisectionAndConflictSchemas(mode, fields),
    ...pauseSchemas(mode, actor),
    ...commandSchemas(mode, gitHubAccount),
  } satisfies Record<TypedEventType, z.ZodType>;

  return { actor, gitHubAccount, speculativeCheckPullRequest, byType };
}

type QueueCheckSchema = ReturnType<typeof buildQueueCheckSchema>;

/** Who paused or ran a command, and the pull request that ran speculative checks. */
function accountSchemas(mode: SchemaMode, check: QueueCheckSchema) {
  const sent = <T extends z.ZodType>(schema: T) => mode.alwaysSent(schema);
  const nullableDateTime = dateTimeSchema.nullable();

  /** Actor: who paused, updated or unpaused. */
  const actor = z.looseObject({
    type: sent(mode.oneOf(["application", "user"])),
    id: sent(z.union([z.int(), uuidSchema])),
    name: sent(z.string()),
  });

  /** GitHubAccount: the author of a command comment. */
  const gitHubAccount = z.looseObject({
    login: sent(z.string()),
    id: sent(z.int()),
    type: sent(mode.oneOf(["User", "Organization", "Bot", "Mannequin", "Enterprise"]).nullable()),
    avatar_url: z.string().nullable().optional(),
  });

  /** Signals_SpeculativeCheckPullRequest: the pull request that ran the speculative checks. */
  const speculativeCheckPullRequest = z.looseObject({
    number: sent(z.int()),
    in_place: sent(z.boolean()),
    checks_timed_out: sent(z.boolean()),
    checks_conclusion: sent(mode.oneOf(CHECKS_CONCLUSIONS)),
    checks_started_at: sent(nullableDateTime),
    checks_ended_at: sent(nullableDateTime),
    unsuccessful_checks: sent(z.array(check)),
    pull_request_numbers: sent(z.array(pullNumberValueSchema)),
  });
  return { actor, gitHubAccount, speculativeCheckPullRequest };
}

type SharedFields = ReturnType<typeof sharedFields>;

/** Fields several event types share. */
function sharedFields(
  mode: SchemaMode,
  speculativeCheckPullRequest: ReturnType<typeof accountSchemas>["speculativeCheckPullRequest"],
  check: QueueCheckSchema,
) {
  const sent = <T extends z.ZodType>(schema: T) => mode.alwaysSent(schema);
  // Fields shared by several types, always sent where they appear.
  const queued = {
    branch: sent(z.string()),
    queue_name: sent(z.string()),
    queued_at: sent(dateTimeSchema),
    priority_rule_name: sent(z.string().nullable()),
  };
  const session = { session_id: sent(uuidSchema) };
  const batch = {
    batch_id: sent(uuidSchema.nullable()),
    /** Deprecated alias of batch_id. */
    train_car_id: sent(uuidSchema.nullable()),
    batch_name: sent(z.string().nullable()),
  };
  const scopes = {
    scopes: sent(z.array(z.string()).nullable()),
    all_scopes: z.boolean().nullable().optional(),
  };
  const checksRun = {
    ...queued,
    ...session,
    ...batch,
    ...scopes,
    speculative_check_pull_request: sent(speculativeCheckPullRequest),
    parent_batch_ids: sent(z.array(uuidSchema).nullable()),
  };
  const bisection = {
    queue_name: sent(z.string()),
    priority_rule_name: sent(z.string().nullable()),
    original_batch_pr_numbers: sent(z.array(pullNumberValueSchema)),
    ...session,
    ...batch,
  };
  return { queued, session, batch, scopes, checksRun, bisection, check };
}

/** A pull request entering, leaving or merged from a queue, and a queue's size. */
function queueMembershipSchemas(mode: SchemaMode, f: SharedFields) {
  const sent = <T extends z.ZodType>(schema: T) => mode.alwaysSent(schema);
  const { queued, session, scopes, check } = f;
  return {
    "action.queue.enter": z.looseObject({ ...queued, ...session }),
    "action.queue.leave": z.looseObject({
      ...queued,
      ...scopes,
      reason: sent(z.string()),
      merged: sent(z.boolean()),
      dequeue_code: sent(mode.oneOf(DEQUEUE_CODES).nullable()),
      checks: sent(z.array(check)),
      unsuccessful_checks: sent(z.array(check)),
      pull_request_head_sha: sent(z.string()),
      seconds_waiting_for_schedule: sent(z.int()),
      seconds_waiting_for_freeze: sent(z.int()),
      conditions_evaluation: sent(z.record(z.string(), z.unknown()).nullable()),
      session_id: sent(uuidSchema.nullable()),
      batch_id: sent(uuidSchema.nullable()),
      all_scopes: sent(z.boolean().nullable()),
    }),
    "action.queue.merged": z.looseObject({
      ...queued,
      ...session,
      merge_commit_sha: sent(z.string().nullable()),
    }),
    "action.queue.change": z.looseObject({
      queue_name: sent(z.string()),
      priority_rule_name: sent(z.string().nullable()),
      size: sent(z.int()),
    }),
  };
}

/** Speculative checks started, ended, counted, or not started. */
function checksSchemas(mode: SchemaMode, f: SharedFields) {
  const sent = <T extends z.ZodType>(schema: T) => mode.alwaysSent(schema);
  const { queued, session, checksRun } = f;
  return {
    "action.queue.checks_start": z.looseObject({
      ...checksRun,
      start_reason: sent(z.string()),
      previous_batch_id: sent(uuidSchema.nullable()),
      previous_batch_name: sent(z.string().nullable()),
    }),
    "action.queue.checks_end": z.looseObject({
      ...checksRun,
      aborted: sent(z.boolean()),
      abort_code: sent(mode.oneOf(ABORT_CODES).nullable()),
      abort_reason: sent(z.string().nullable()),
      abort_status: sent(mode.oneOf(["DEFINITIVE", "REEMBARKED"])),
      retry_attempt: sent(z.int().nullable()),
      max_retries: sent(z.int().nullable()),
    }),
    "action.queue.checks.change": z.looseObject({
      queue_name: sent(z.string()),
      running_checks: sent(z.int()),
    }),
    "action.queue.checks_not_started": z.looseObject({ ...queued, ...session, reason: sent(z.string()) }),
  };
}

/** A failed batch bisected, and a pull request deferred for a conflict. */
function bisectionAndConflictSchemas(mode: SchemaMode, f: SharedFields) {
  const sent = <T extends z.ZodType>(schema: T) => mode.alwaysSent(schema);
  const { queued, session, bisection } = f;
  return {
    "action.queue.batch_bisection_start": z.looseObject({
      ...bisection,
      batch_size_before_split: sent(z.int()),
      number_of_sub_batches: sent(z.int()),
      bisection_depth: sent(z.int()),
      is_top_level: sent(z.boolean()),
    }),
    "action.queue.batch_bisection_end": z.looseObject({
      ...bisection,
      culprit_found: sent(z.boolean()),
      culprit_pr_numbers: sent(z.array(pullNumberValueSchema)),
      confirmed_culprit_pr_numbers: sent(z.array(pullNumberValueSchema).nullable()),
      dropped_unverified_pr_numbers: sent(z.array(pullNumberValueSchema).nullable()),
      remaining_pr_numbers: sent(z.array(pullNumberValueSchema)),
      max_failure_resolution_reached: sent(z.boolean()),
    }),
    "action.queue.conflict_deferred": z.looseObject({
      ...queued,
      ...session,
      reason: sent(z.string()),
      blocking_pull_request_numbers: sent(z.array(pullNumberValueSchema)),
    }),
  };
}

/** A queue paused, its pause changed, or removed. */
function pauseSchemas<A extends z.ZodType>(mode: SchemaMode, actor: A) {
  const sent = <T extends z.ZodType>(schema: T) => mode.alwaysSent(schema);
  return {
    "queue.pause.create": z.looseObject({
      reason: sent(z.string()),
      created_by: sent(actor),
      created_by_staff: sent(z.boolean()),
    }),
    "queue.pause.update": z.looseObject({
      reason: sent(z.string()),
      updated_by: sent(actor),
      updated_by_staff: sent(z.boolean()),
    }),
    "queue.pause.delete": z.looseObject({
      deleted_by: sent(actor),
      deleted_by_staff: sent(z.boolean()),
    }),
  };
}

/** The merge queue's comment commands. */
function commandSchemas<G extends z.ZodType>(mode: SchemaMode, gitHubAccount: G) {
  const sent = <T extends z.ZodType>(schema: T) => mode.alwaysSent(schema);
  const command = z.looseObject({
    author: sent(gitHubAccount),
    comment_id: sent(z.int()),
    session_id: sent(uuidSchema.nullable()),
    command_trigger: sent(mode.oneOf(["comment", "checkbox"]).nullable()),
    trigger_comment_url: sent(z.string().nullable()),
  });

  return {
    // The reference has no command.requeue schema; it is a command like the other two.
    "command.queue": command,
    "command.dequeue": command,
    "command.requeue": command,
  };
}

const lenient = buildEventMetadataSchemas(lenientMode);
/** Lenient metadata schema of each typed event type. */
export const eventMetadataSchemas = lenient.byType;

export type EventMetadataByType = { [K in TypedEventType]: z.infer<(typeof eventMetadataSchemas)[K]> };
export type Actor = z.infer<typeof lenient.actor>;
export type GitHubAccount = z.infer<typeof lenient.gitHubAccount>;
export type SpeculativeCheckPullRequest = z.infer<typeof lenient.speculativeCheckPullRequest>;
export type QueueEnterMetadata = EventMetadataByType["action.queue.enter"];
export type QueueLeaveMetadata = EventMetadataByType["action.queue.leave"];
export type QueueMergedMetadata = EventMetadataByType["action.queue.merged"];
export type QueueChangeMetadata = EventMetadataByType["action.queue.change"];
export type QueueChecksStartMetadata = EventMetadataByType["action.queue.checks_start"];
export type QueueChecksEndMetadata = EventMetadataByType["action.queue.checks_end"];
export type QueueChecksChangeMetadata = EventMetadataByType["action.queue.checks.change"];
export type QueueChecksNotStartedMetadata = EventMetadataByType["action.queue.checks_not_started"];
export type QueueBatchBisectionStartMetadata = EventMetadataByType["action.queue.batch_bisection_start"];
export type QueueBatchBisectionEndMetadata = EventMetadataByType["action.queue.batch_bisection_end"];
export type QueueConflictDeferredMetadata = EventMetadataByType["action.queue.conflict_deferred"];
export type QueuePauseCreateMetadata = EventMetadataByType["queue.pause.create"];
export type QueuePauseUpdateMetadata = EventMetadataByType["queue.pause.update"];
export type QueuePauseDeleteMetadata = EventMetadataByType["queue.pause.delete"];
export type CommandMetadata = EventMetadataByType["command.queue"];
