// Builders of log events, with the `metadata` shape the real service uses for each type
// (components.schemas.Event*Metadata of its OpenAPI description).

import type { NewLogEvent } from "./log.js";
import type { QueueEntry } from "./model.js";
import type { Actor, EventOutcome, EventType, QueueCheck } from "./types.js";

export const TRIGGER_ENGINE = "merge queue";
export const TRIGGER_API = "merge queue API";

export function commandTrigger(command: string): string {
  return `Command: ${command}`;
}

const iso = (ms: number): string => new Date(ms).toISOString();

interface Base {
  repository: string;
  at: number;
  trigger: string;
}

function make(
  base: Base,
  type: EventType,
  outcome: EventOutcome,
  pullRequest: number | null,
  baseRef: string | null,
  metadata: Record<string, unknown>,
): NewLogEvent {
  return {
    receivedAt: base.at,
    trigger: base.trigger,
    repository: base.repository,
    pullRequest,
    baseRef,
    outcome,
    type,
    metadata,
  };
}

function entryBase(entry: QueueEntry) {
  return {
    branch: entry.pull.baseRef,
    priority_rule_name: entry.priorityRuleName,
    queue_name: entry.queueName,
    queued_at: iso(entry.queuedAt),
  };
}

export function queueEnter(base: Base, entry: QueueEntry): NewLogEvent {
  return make(base, "action.queue.enter", "neutral", entry.pull.number, entry.pull.baseRef, {
    queue_name: entry.queueName,
    branch: entry.pull.baseRef,
    queued_at: iso(entry.queuedAt),
    priority_rule_name: entry.priorityRuleName,
    session_id: entry.sessionId,
  });
}

export function queueChange(
  base: Base,
  entry: QueueEntry | null,
  branch: string,
  queueName: string,
  size: number,
): NewLogEvent {
  return make(base, "action.queue.change", "neutral", entry?.pull.number ?? null, branch, {
    queue_name: queueName,
    priority_rule_name: entry?.priorityRuleName ?? "default",
    size,
  });
}

/** What a speculative check run looks like in checks events (Signals_SpeculativeCheckPullRequest). */
export interface SpeculativeCheck {
  number: number;
  in_place: boolean;
  checks_timed_out: boolean;
  checks_conclusion:
    | "success"
    | "failure"
    | "neutral"
    | "cancelled"
    | "skipped"
    | "stale"
    | "action_required"
    | "timed_out"
    | "error"
    | "pending";
  checks_started_at: string | null;
  checks_ended_at: string | null;
  unsuccessful_checks: QueueCheck[];
  pull_request_numbers: number[];
}

export function speculativeCheck(
  run: {
    queuePullNumber: number | null;
    inPlace: boolean;
    startedAt: number | null;
    ciFinishedAt: number | null;
  },
  entries: QueueEntry[],
  conclusion: SpeculativeCheck["checks_conclusion"],
  unsuccessful: QueueCheck[] = [],
): SpeculativeCheck {
  return {
    number: run.queuePullNumber ?? entries[0]?.pull.number ?? 0,
    in_place: run.inPlace,
    checks_timed_out: false,
    checks_conclusion: conclusion,
    checks_started_at: run.startedAt === null ? null : iso(run.startedAt),
    checks_ended_at: run.ciFinishedAt === null ? null : iso(run.ciFinishedAt),
    unsuccessful_checks: unsuccessful,
    pull_request_numbers: entries.map((entry) => entry.pull.number),
  };
}

export interface BatchContext {
  batchId: string;
  batchName: string;
  scopes: string[];
  parentBatchIds: string[];
}

export function checksStart(
  base: Base,
  entry: QueueEntry,
  batch: BatchContext,
  speculative: SpeculativeCheck,
  startReason: string,
  previous: { id: string; name: string } | null,
): NewLogEvent {
  return make(base, "action.queue.checks_start", "pending", entry.pull.number, entry.pull.baseRef, {
    ...entryBase(entry),
    start_reason: startReason,
    speculative_check_pull_request: speculative,
    batch_id: batch.batchId,
    train_car_id: batch.batchId,
    batch_name: batch.batchName,
    scopes: batch.scopes,
    parent_batch_ids: batch.parentBatchIds,
    previous_batch_id: previous?.id ?? null,
    previous_batch_name: previous?.name ?? null,
    session_id: entry.sessionId,
    all_scopes: false,
  });
}

export interface ChecksEndResult {
  aborted: boolean;
  abortCode: string | null;
  abortReason: string | null;
  abortStatus: "DEFINITIVE" | "REEMBARKED";
}

export function checksEnd(
  base: Base,
  entry: QueueEntry,
  batch: BatchContext,
  speculative: SpeculativeCheck,
  result: ChecksEndResult,
): NewLogEvent {
  const outcome: EventOutcome = result.aborted
    ? "neutral"
    : speculative.checks_conclusion === "success"
      ? "success"
      : "failure";
  return make(base, "action.queue.checks_end", outcome, entry.pull.number, entry.pull.baseRef, {
    aborted: result.aborted,
    abort_code: result.abortCode,
    abort_reason: result.abortReason,
    abort_status: result.abortStatus,
    ...entryBase(entry),
    retry_attempt: null,
    max_retries: null,
    speculative_check_pull_request: speculative,
    batch_id: batch.batchId,
    train_car_id: batch.batchId,
    batch_name: batch.batchName,
    scopes: batch.scopes,
    parent_batch_ids: batch.parentBatchIds,
    session_id: entry.sessionId,
    all_scopes: false,
  });
}

export function queueMerged(base: Base, entry: QueueEntry, mergeCommitSha: string): NewLogEvent {
  return make(base, "action.queue.merged", "success", entry.pull.number, entry.pull.baseRef, {
    branch: entry.pull.baseRef,
    queue_name: entry.queueName,
    queued_at: iso(entry.queuedAt),
    priority_rule_name: entry.priorityRuleName,
    session_id: entry.sessionId,
    merge_commit_sha: mergeCommitSha,
  });
}

export interface LeaveDetails {
  reason: string;
  merged: boolean;
  dequeueCode: string;
  checks: QueueCheck[];
  unsuccessfulChecks: QueueCheck[];
  batchId: string | null;
  scopes: string[];
}

export function queueLeave(base: Base, entry: QueueEntry, details: LeaveDetails): NewLogEvent {
  const outcome: EventOutcome = details.merged
    ? "success"
    : details.dequeueCode === "PR_MANUALLY_DEQUEUED" || details.dequeueCode === "PR_DEQUEUED"
      ? "neutral"
      : "failure";
  return make(base, "action.queue.leave", outcome, entry.pull.number, entry.pull.baseRef, {
    reason: details.reason,
    merged: details.merged,
    queue_name: entry.queueName,
    branch: entry.pull.baseRef,
    queued_at: iso(entry.queuedAt),
    seconds_waiting_for_schedule: 0,
    seconds_waiting_for_freeze: 0,
    priority_rule_name: entry.priorityRuleName,
    conditions_evaluation: null,
    checks: details.checks,
    unsuccessful_checks: details.unsuccessfulChecks,
    pull_request_head_sha: entry.pull.headSha,
    session_id: entry.sessionId,
    dequeue_code: details.dequeueCode,
    batch_id: details.batchId,
    scopes: details.scopes,
    all_scopes: false,
  });
}

export interface BisectionContext {
  branch: string;
  queueName: string;
  priorityRuleName: string;
  originalNumbers: number[];
  sessionId: string;
  batchId: string;
  batchName: string;
}

export function bisectionStart(
  base: Base,
  context: BisectionContext,
  split: { sizeBeforeSplit: number; subBatches: number; depth: number },
): NewLogEvent {
  return make(base, "action.queue.batch_bisection_start", "pending", null, context.branch, {
    queue_name: context.queueName,
    priority_rule_name: context.priorityRuleName,
    original_batch_pr_numbers: context.originalNumbers,
    batch_size_before_split: split.sizeBeforeSplit,
    number_of_sub_batches: split.subBatches,
    bisection_depth: split.depth,
    is_top_level: split.depth === 1,
    session_id: context.sessionId,
    batch_id: context.batchId,
    train_car_id: context.batchId,
    batch_name: context.batchName,
  });
}

export function bisectionEnd(
  base: Base,
  context: BisectionContext,
  result: { culprits: number[]; remaining: number[] },
): NewLogEvent {
  const found = result.culprits.length > 0;
  return make(base, "action.queue.batch_bisection_end", found ? "success" : "neutral", null, context.branch, {
    queue_name: context.queueName,
    priority_rule_name: context.priorityRuleName,
    original_batch_pr_numbers: context.originalNumbers,
    culprit_found: found,
    culprit_pr_numbers: result.culprits,
    confirmed_culprit_pr_numbers: result.culprits,
    dropped_unverified_pr_numbers: [],
    remaining_pr_numbers: result.remaining,
    max_failure_resolution_reached: false,
    session_id: context.sessionId,
    batch_id: context.batchId,
    train_car_id: context.batchId,
    batch_name: context.batchName,
  });
}

export function pauseCreate(base: Base, reason: string, by: Actor): NewLogEvent {
  return make(base, "queue.pause.create", "neutral", null, null, {
    reason,
    created_by: by,
    created_by_staff: false,
  });
}

export function pauseUpdate(base: Base, reason: string, by: Actor): NewLogEvent {
  return make(base, "queue.pause.update", "neutral", null, null, {
    reason,
    updated_by: by,
    updated_by_staff: false,
  });
}

export function pauseDelete(base: Base, by: Actor): NewLogEvent {
  return make(base, "queue.pause.delete", "neutral", null, null, {
    deleted_by: by,
    deleted_by_staff: false,
  });
}

export interface CommandAuthor {
  id: number;
  login: string;
}

export function command(
  base: Base,
  type: "command.queue" | "command.dequeue" | "command.requeue",
  accepted: boolean,
  pull: { number: number; baseRef: string; url: string },
  details: { author: CommandAuthor; commentId: number; sessionId: string | null },
): NewLogEvent {
  return make(base, type, accepted ? "success" : "failure", pull.number, pull.baseRef, {
    author: {
      login: details.author.login,
      id: details.author.id,
      type: details.author.login.endsWith("[bot]") ? "Bot" : "User",
      avatar_url: null,
    },
    comment_id: details.commentId,
    session_id: details.sessionId,
    command_trigger: "comment",
    trigger_comment_url: `${pull.url}#issuecomment-${details.commentId}`,
  });
}

export function label(
  base: Base,
  pull: { number: number; baseRef: string },
  added: string[],
  removed: string[],
): NewLogEvent {
  return make(base, "action.label", "success", pull.number, pull.baseRef, { added, removed });
}

export function comment(base: Base, pull: { number: number; baseRef: string }, message: string): NewLogEvent {
  return make(base, "action.comment", "success", pull.number, pull.baseRef, { message });
}
