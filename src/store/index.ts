export { COMMAND_STEP_RETENTION_MS, type CommandStepStore } from "./command-steps.js";
export { type Database, type DatabaseSettings, openDatabase, type Tables } from "./database.js";
export type { DetailsEdit, FailureDetailsRecord, FailureDetailsStore } from "./failure-details.js";
export {
  type FlakeShieldStore,
  SHIELD_RETRY_RETENTION_MS,
  type ShieldOutcome,
  type ShieldRetry,
  type ShieldRetryClaim,
} from "./flake-shield.js";
export {
  FREEZE_END_KIND,
  FREEZE_KIND,
  type Freeze,
  type FreezeStep,
  type FreezeStore,
  type FreezeWindowToEnd,
} from "./freezes.js";
export type { GateCheckRecord, GateHold, GatePauseRecord, GateStore } from "./gates.js";
export type { GitHubQueueMemory, GitHubQueuePull } from "./github-queue-pulls.js";
export { GITHUB_QUEUE_PULL_RETENTION_MS } from "./github-queue-pulls.js";
export type {
  ClosedHealthEpisode,
  EpisodeRef,
  HealthEpisode,
  HealthEpisodePost,
  HealthEpisodeStore,
} from "./health-episodes.js";
export { HISTORY_ROWS_PER_STATEMENT, QUEUE_EVENT_RETENTION_MS, type QueueHistory } from "./history.js";
export type {
  IdentityLink,
  IdentityLinkStore,
  IdentityStore,
  NoticePreferenceStore,
  OAuthStateStore,
} from "./identities.js";
export { kyselyStore } from "./kysely-store.js";
export {
  MERGED_PULL_KIND,
  MERGED_PULL_RETENTION_MS,
  type MergedPullStore,
  type MergeJudgement,
  type WatchedMerge,
} from "./merged-pulls.js";
export { type ColumnTypes, LATEST_SCHEMA_VERSION, MIGRATIONS, type Migration } from "./migrations/index.js";
export { MIGRATION_LOCK_CLASS, migrate } from "./migrations/migrate.js";
export type { OnceClaim, OnceClaimRequest, OnceClaimStore, OnceRecord } from "./once-claims.js";
export { openStore, openStoreAsIs } from "./open-store.js";
export {
  type Backoff,
  type BackoffStore,
  type NoticeOrder,
  type NotificationClaim,
  type OutboxChannelStats,
  type OutboxStore,
  type PendingNotification,
  SENT_NOTIFICATION_RETENTION_MS,
  type SentNotification,
  type ThreadRecord,
  type ThreadStore,
} from "./outbox.js";
export type {
  PauseAttributionStore,
  PauseStore,
  ScheduledUnpauseStore,
} from "./pauses.js";
export { scheduledUnpauseOf, UNPAUSE_KIND } from "./pauses.js";
export type {
  PollCadence,
  PollCursor,
  PollCursorStore,
  PollPayload,
  PollReason,
  PollSchedule,
  PollScheduleStore,
  PollStore,
} from "./polls.js";
export { cursorOf, cursorPayload, POLL_KIND } from "./polls.js";
export { PRUNE_INTERVAL_MS } from "./query-helpers.js";
export { QUEUE_REQUEST_RETENTION_MS, type QueueRequestStore } from "./queue-requests.js";
export { RELAY_ANSWER_KIND, RELAY_RETENTION_MS, type RelayStore } from "./relays.js";
export {
  type PaceChange,
  type PaceKind,
  SUMMARY_COMMENT_RETENTION_MS,
  type SummaryCommentRecords,
  type WaitingKind,
  type WaitingWrites,
  type WritePaceState,
  type WritePaceStore,
} from "./shared-github-writes.js";
export { STATS_DAY_RETENTION_MS, type StatsDayStore } from "./stats-and-digests.js";
export type { Store, StoreLifecycle } from "./store.js";
export type { SubscriptionStore } from "./subscriptions.js";
export {
  DELIVERY_RETENTION_MS,
  WEBHOOK_JOB_RETENTION_MS,
  type WebhookJob,
  type WebhookJobStore,
} from "./webhook-jobs.js";
export type {
  ClaimedWork,
  ClaimWork,
  ScheduleWork,
  WorkDone,
  WorkItem,
  WorkPayload,
  WorkStore,
} from "./work-items.js";
