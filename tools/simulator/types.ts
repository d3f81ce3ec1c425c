// The interface's closed lists (batch status codes, check states, event outcomes and types) are one
// fact shared with the API client; the simulator's own model is below.

import { KNOWN_EVENT_TYPES as EVENT_TYPES } from "../../src/backends/mergify/event-types.js";
import { EVENT_OUTCOMES } from "../../src/backends/mergify/events.schema.js";
import { CHECK_STATES as QUEUE_CHECK_STATES } from "../../src/backends/mergify/queue-check.schema.js";
import { BATCH_STATUS_CODES } from "../../src/backends/mergify/status.schema.js";

export { BATCH_STATUS_CODES, EVENT_OUTCOMES, EVENT_TYPES, QUEUE_CHECK_STATES };

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

export type EventOutcome = (typeof EVENT_OUTCOMES)[number];

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
