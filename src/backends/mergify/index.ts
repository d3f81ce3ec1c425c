export { branchesSchema } from "./branches.schema.js";
export { MergeQueueClient, type MergeQueueClientOptions } from "./client.js";
export { type CommandAnswer, type CommandAnswerKind, classifyCommandAnswer } from "./command-answer.js";
export {
  formatFieldPath,
  isMergeQueueError,
  MergeQueueError,
  MergeQueueErrorCode,
  type MergeQueueErrorDetails,
} from "./errors.js";
export {
  ABORT_CODES,
  type Actor,
  CHECKS_CONCLUSIONS,
  type CommandMetadata,
  DEQUEUE_CODES,
  type EventMetadataByType,
  eventMetadataSchemas,
  type GitHubAccount,
  MERGED_DEQUEUE_CODES,
  type QueueBatchBisectionEndMetadata,
  type QueueBatchBisectionStartMetadata,
  type QueueChangeMetadata,
  type QueueChecksChangeMetadata,
  type QueueChecksEndMetadata,
  type QueueChecksNotStartedMetadata,
  type QueueChecksStartMetadata,
  type QueueConflictDeferredMetadata,
  type QueueEnterMetadata,
  type QueueLeaveMetadata,
  type QueueMergedMetadata,
  type QueuePauseCreateMetadata,
  type QueuePauseDeleteMetadata,
  type QueuePauseUpdateMetadata,
  type SpeculativeCheckPullRequest,
} from "./event-metadata.schema.js";
export { eventQueryParams } from "./event-query.js";
export {
  ACTION_EVENT_TYPES,
  CI_INSIGHTS_EVENT_TYPES,
  CI_ISSUE_EVENT_TYPES,
  COMMAND_EVENT_TYPES,
  type CommandEventType,
  isKnownEventType,
  isTypedEventType,
  KNOWN_EVENT_TYPES,
  type KnownEventType,
  PAUSE_EVENT_TYPES,
  type PauseEventType,
  QUEUE_EVENT_TYPES,
  type QueueEventType,
  SCHEDULED_FREEZE_EVENT_TYPES,
  TYPED_EVENT_TYPES,
  type TypedEventType,
} from "./event-types.js";
export {
  compareLogEvents,
  EVENT_OUTCOMES,
  type EventOutcome,
  type EventsResponse,
  eventsResponseSchema,
  type LogEvent,
  logEventSchema,
  parseEventMetadata,
  type TypedLogEvent,
  typedEventSchemas,
} from "./events.schema.js";
export {
  baseRefSchema,
  branchSchema,
  characterCount,
  checkInput,
  eventTypeFilterSchema,
  LIMITS,
  ownerSchema,
  pauseReasonSchema,
  perPageSchema,
  pullNumberSchema,
  repositorySchema,
  timestampSchema,
} from "./limits.js";
export { findLink, type LinkValue, parseLinkHeader } from "./link-header.js";
export { type PauseState, pauseStateSchema } from "./pause.schema.js";
export {
  CHECK_TYPES,
  CI_STATES,
  type ConditionEvaluation,
  type ConditionEvaluationResult,
  type MergeabilityCheck,
  mergeabilityCheckSchema,
  type PullRequestQueueDetails,
  pullRequestQueueDetailsSchema,
} from "./pull-request.schema.js";
export { CHECK_STATES, type CheckState } from "./queue-check.schema.js";
export {
  backoffDelayMs,
  DEFAULT_RETRY_POLICY,
  parseRetryAfterMs,
  planRetry,
  type RetryDecision,
  type RetryPolicy,
} from "./retry.js";
export type { OpenEnum } from "./schema-mode.js";
export {
  BATCH_STATUS_CODES,
  type Batch,
  type BatchStatusCode,
  batchSchema,
  QUEUE_MODES,
  type QueuedPullRequest,
  type QueueMode,
  type QueueStatus,
  queuedPullRequestSchema,
  queueStatusSchema,
  type SubBatch,
  subBatchSchema,
} from "./status.schema.js";
export { strictSchemas } from "./strict.schema.js";
export type { CallRecord, EventQuery, EventsPage } from "./types.js";
