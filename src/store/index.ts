export { type Database, type DatabaseSettings, openDatabase, type Tables } from "./database.js";
export { KyselyQueueHistory, QUEUE_EVENT_RETENTION_MS, type QueueHistory } from "./history.js";
export { KyselyStore } from "./kysely-store.js";
export { type ColumnTypes, LATEST_SCHEMA_VERSION, MIGRATIONS, type Migration } from "./migrations/index.js";
export { MIGRATION_LOCK_CLASS, migrate } from "./migrations/migrate.js";
export { openStore, openStoreAsIs } from "./open-store.js";
export {
  type Backoff,
  type ClaimedPoll,
  DELIVERY_RETENTION_MS,
  type IdentityLink,
  type NoticeOrder,
  type NoticePreferences,
  type NotificationClaim,
  type OAuthState,
  type PauseAttribution,
  type PendingNotification,
  type PollCadence,
  type PollCursor,
  type PollReason,
  type PollSchedule,
  PRUNE_INTERVAL_MS,
  type ScheduledUnpause,
  SENT_NOTIFICATION_RETENTION_MS,
  type SentNotification,
  SLACK_SIGNATURE_RETENTION_MS,
  type Store,
  type Subscription,
  type ThreadRecord,
  WEBHOOK_JOB_RETENTION_MS,
  type WebhookJob,
} from "./store.js";
