export { LATEST_SCHEMA_VERSION, MIGRATIONS, type Migration } from "./migrations.js";
export { type DatabaseSettings, openStore } from "./open-store.js";
export {
  MIGRATION_LOCK_CLASS,
  migratePostgres,
  openPostgresStore,
  PostgresStore,
  type PostgresStoreOptions,
} from "./postgres-store.js";
export { migrateSqlite, openSqliteStore, SqliteStore, type SqliteStoreOptions } from "./sqlite-store.js";
export {
  type Backoff,
  DELIVERY_RETENTION_MS,
  type IdentityLink,
  type NotificationClaim,
  type OAuthState,
  type PauseAttribution,
  type PendingNotification,
  type PollCursor,
  PRUNE_INTERVAL_MS,
  repositoryKey,
  SENT_NOTIFICATION_RETENTION_MS,
  type Store,
  type Subscription,
  type ThreadRecord,
} from "./store.js";
