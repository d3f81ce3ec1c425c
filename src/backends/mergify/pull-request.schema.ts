import { z } from "zod";
import { dateTimeSchema, pullNumberValueSchema } from "./primitives.schema.js";
import { buildQueueCheckSchema } from "./queue-check.schema.js";
import { lenientMode, type SchemaMode } from "./schema-mode.js";

/** Check types (docs/merge-queue-api.md), plus `trusted` which the real service also has. */
export const CHECK_TYPES = ["in_place", "draft_pr", "trusted"] as const;
/** CI states (docs/merge-queue-api.md). */
export const CI_STATES = ["pending", "success", "failed"] as const;

/** QueueConditionEvaluationJsonSerialized (docs/merge-queue-api.md): a node of the queue rule's condition tree. */
export interface ConditionEvaluation {
  match: boolean;
  label: string;
  description: string | null;
  documentation_url?: string | null | undefined;
  schedule: ({ timezone: string; days: Record<string, unknown> } & Record<string, unknown>) | null;
  /** Null on a leaf condition. */
  subconditions: ConditionEvaluation[] | null;
  /** Null on a non-leaf condition. */
  evaluations: ConditionEvaluationResult[] | null;
  [key: string]: unknown;
}

export interface ConditionEvaluationResult {
  pull_request: number;
  match: boolean;
  evaluation_error: string | null;
  related_checks: string[];
  next_evaluation_at: string | null;
  [key: string]: unknown;
}

/** The single-pull-request endpoint's answer (docs/merge-queue-api.md). */
export function buildPullRequestSchemas(mode: SchemaMode) {
  const nullableDateTime = dateTimeSchema.nullable();

  const evaluation = z.looseObject({
    pull_request: pullNumberValueSchema,
    match: z.boolean(),
    evaluation_error: z.string().nullable(),
    related_checks: z.array(z.string()),
    next_evaluation_at: nullableDateTime,
  });

  const schedule = z.looseObject({ timezone: z.string(), days: z.record(z.string(), z.unknown()) });

  const conditionEvaluation: z.ZodType<ConditionEvaluation> = z.looseObject({
    match: z.boolean(),
    label: z.string(),
    description: z.string().nullable(),
    documentation_url: mode.alwaysSent(z.string().nullable()),
    schedule: schedule.nullable(),
    get subconditions() {
      return z.array(conditionEvaluation).nullable();
    },
    evaluations: z.array(evaluation).nullable(),
  });

  const mergeabilityCheck = z.looseObject({
    check_type: mode.oneOf(CHECK_TYPES),
    queue_pull_request_number: pullNumberValueSchema,
    started_at: nullableDateTime,
    ci_ended_at: nullableDateTime,
    ci_state: mode.oneOf(CI_STATES),
    state: z.string(),
    checks: z.array(buildQueueCheckSchema(mode)),
    conditions_evaluation: conditionEvaluation.nullable(),
  });

  const details = z.looseObject({
    number: pullNumberValueSchema,
    queued_at: dateTimeSchema,
    estimated_time_of_merge: nullableDateTime,
    position: z.int(),
    priority_rule_name: z.string(),
    queue_rule_name: z.string(),
    checks_timeout_at: nullableDateTime,
    queue_rule: z.looseObject({ name: z.string(), config: z.record(z.string(), z.unknown()) }),
    mergeability_check: mergeabilityCheck.nullable(),
  });

  return { conditionEvaluation, mergeabilityCheck, details };
}

const lenient = buildPullRequestSchemas(lenientMode);
export const mergeabilityCheckSchema = lenient.mergeabilityCheck;
export const pullRequestQueueDetailsSchema = lenient.details;

export type MergeabilityCheck = z.infer<typeof mergeabilityCheckSchema>;
export type PullRequestQueueDetails = z.infer<typeof pullRequestQueueDetailsSchema>;
