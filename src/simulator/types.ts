// Response shapes served by the simulator. They follow the real service's OpenAPI description
// (every field it marks required is present), written here so the simulator depends on nothing else.

export type IsoDateTime = string;

export interface PullRequestAuthor {
  id: number;
  login: string;
}

export interface PullRequestLabel {
  id: number;
  name: string;
  color: string;
  default: boolean;
}

export interface MergeQueuePauseResponse {
  paused: boolean;
  reason: string | null;
  paused_at: IsoDateTime | null;
}

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

export interface BatchStatus {
  code: BatchStatusCode;
  batch_filled_slots: number | null;
  max_batch_slots: number | null;
  batch_max_start_at: IsoDateTime | null;
  retries: number;
  max_retries: number;
}

export interface BatchChecksSummary {
  passed: number;
  total: number;
}

export interface MergeQueueStatusPullRequest {
  number: number;
  title: string;
  url: string;
  author: PullRequestAuthor;
  queued_at: IsoDateTime;
  priority_alias: string;
  priority_rule_name: string;
  labels: string[];
  scopes: string[];
  all_scopes: boolean;
  github_labels: PullRequestLabel[] | null;
  estimated_merge_at: IsoDateTime | null;
  estimated_ci_finish_at: IsoDateTime | null;
  conflict_with_pull_requests: number[] | null;
  batch_reason: null;
  is_frozen: boolean;
  dequeue_requested: boolean;
  depends_on_pull_requests: number[] | null;
}

export interface MergeQueueStatusBatchBase {
  id: string;
  name: string;
  parent_ids: string[];
  status: BatchStatus;
  started_at: IsoDateTime | null;
  estimated_merge_at: IsoDateTime | null;
  estimated_ci_finish_at: IsoDateTime | null;
  ci_finished_at: IsoDateTime | null;
  scopes: string[];
  queue_rule_name: string;
  checks_summary: BatchChecksSummary;
  pull_requests: MergeQueueStatusPullRequest[];
  all_scopes: boolean;
  checks_timeout_at: IsoDateTime | null;
  intermediate_results_skipped: boolean;
  queue_pull_request_number: number | null;
}

export interface MergeQueueStatusBatchWithSubBatch extends MergeQueueStatusBatchBase {
  sub_batches: MergeQueueStatusBatchBase[] | null;
}

export type QueueMode = "serial" | "parallel";

export interface MergeQueueStatus {
  batches: MergeQueueStatusBatchWithSubBatch[];
  waiting_pull_requests: MergeQueueStatusPullRequest[];
  mode: QueueMode;
  scope_queues: Record<string, string[]>;
  pause: MergeQueuePauseResponse | null;
}

export const QUEUE_CHECK_STATES = [
  "failure",
  "error",
  "cancelled",
  "action_required",
  "timed_out",
  "pending",
  "neutral",
  "skipped",
  "stale",
  "success",
] as const;
export type QueueCheckState = (typeof QUEUE_CHECK_STATES)[number];

export interface QueueCheck {
  name: string;
  description: string;
  url: string | null;
  details_url: string | null;
  state: QueueCheckState;
  avatar_url: string | null;
}

export interface Evaluation {
  pull_request: number;
  match: boolean;
  evaluation_error: string | null;
  related_checks: string[];
  next_evaluation_at: IsoDateTime | null;
}

export interface QueueConditionEvaluation {
  match: boolean;
  label: string;
  description: string | null;
  documentation_url: string | null;
  schedule: null;
  subconditions: QueueConditionEvaluation[];
  evaluations: Evaluation[];
}

export interface MergeQueueMergeabilityCheck {
  check_type: "in_place" | "draft_pr";
  queue_pull_request_number: number;
  started_at: IsoDateTime | null;
  ci_ended_at: IsoDateTime | null;
  ci_state: "pending" | "success" | "failed";
  state: string;
  checks: QueueCheck[];
  conditions_evaluation: QueueConditionEvaluation | null;
}

export interface MergeQueuePullRequest {
  number: number;
  queued_at: IsoDateTime;
  estimated_time_of_merge: IsoDateTime | null;
  position: number;
  priority_rule_name: string;
  queue_rule_name: string;
  checks_timeout_at: IsoDateTime | null;
  queue_rule: { name: string; config: Record<string, unknown> };
  mergeability_check: MergeQueueMergeabilityCheck | null;
}

export const EVENT_OUTCOMES = ["success", "failure", "pending", "neutral"] as const;
export type EventOutcome = (typeof EVENT_OUTCOMES)[number];

/**
 * Event types accepted by the `event_type` filter: the spec's closed list plus the types the real
 * service's OpenAPI adds (`action.dequeue`, `action.queue.conflict_deferred`, `product.*`, `test.*`).
 */
export const EVENT_TYPES = [
  "action.assign",
  "action.backport",
  "action.close",
  "action.comment",
  "action.copy",
  "action.delete_head_branch",
  "action.dequeue",
  "action.dismiss_reviews",
  "action.edit",
  "action.github_actions",
  "action.label",
  "action.merge",
  "action.post_check",
  "action.rebase",
  "action.refresh",
  "action.request_reviews",
  "action.requeue",
  "action.review",
  "action.squash",
  "action.unqueue",
  "action.update",
  "action.queue.batch_bisection_end",
  "action.queue.batch_bisection_start",
  "action.queue.change",
  "action.queue.checks.change",
  "action.queue.checks_end",
  "action.queue.checks_not_started",
  "action.queue.checks_start",
  "action.queue.conflict_deferred",
  "action.queue.enter",
  "action.queue.leave",
  "action.queue.merged",
  "ci_insights.auto_quarantine.disabled",
  "ci_insights.auto_quarantine.enabled",
  "ci_insights.auto_quarantine.modified",
  "ci_insights.job_retried",
  "ci_issue.created",
  "ci_issue.linked",
  "ci_issue.merged",
  "ci_issue.renamed",
  "ci_issue.reopened",
  "ci_issue.resolved",
  "ci_issue.unresolved",
  "command.dequeue",
  "command.queue",
  "command.requeue",
  "product.disabled",
  "product.enabled",
  "queue.pause.create",
  "queue.pause.delete",
  "queue.pause.update",
  "scheduled_freeze.create",
  "scheduled_freeze.delete",
  "scheduled_freeze.update",
  "test.dequarantined",
  "test.quarantined",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** An event as the log endpoint serves it. */
export interface LogEventResponse {
  id: number;
  received_at: IsoDateTime;
  trigger: string;
  repository: string;
  pull_request: number | null;
  base_ref: string | null;
  outcome: EventOutcome;
  type: EventType;
  metadata: Record<string, unknown>;
}

export interface EventsResponse {
  size: number;
  per_page: number;
  events: LogEventResponse[];
}

/** Who did something, in pause and other repository-level event metadata. */
export interface Actor {
  type: "application" | "user";
  id: number | string;
  name: string;
}

/** Validation error item, FastAPI style. */
export interface ValidationErrorItem {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}
