import type { CommandStepStore } from "./command-steps.js";
import type { FailureDetailsStore } from "./failure-details.js";
import type { FlakeShieldStore } from "./flake-shield.js";
import type { FreezeStore } from "./freezes.js";
import type { GateStore } from "./gates.js";
import type { GitHubQueueMemory } from "./github-queue-pulls.js";
import type { HealthEpisodeStore } from "./health-episodes.js";
import type { QueueHistory } from "./history.js";
import type { IdentityStore } from "./identities.js";
import type { MergedPullStore } from "./merged-pulls.js";
import type { OnceClaimStore } from "./once-claims.js";
import type { BackoffStore, OutboxStore, ThreadStore } from "./outbox.js";
import type { PauseStore } from "./pauses.js";
import type { PollStore } from "./polls.js";
import type { QueueRequestStore } from "./queue-requests.js";
import type { RelayStore } from "./relays.js";
import type { SummaryCommentRecords, WritePaceStore } from "./shared-github-writes.js";
import type { StatsDayStore } from "./stats-and-digests.js";
import type { SubscriptionStore } from "./subscriptions.js";
import type { WebhookJobStore } from "./webhook-jobs.js";
import type { WorkStore } from "./work-items.js";

/** The store itself: which database, whether it answers, and its end. */
export interface StoreLifecycle {
  readonly kind: "sqlite" | "postgres";
  /**
   * A real query and an empty write transaction (SQLite: also that its file is still there and writable):
   * false (never a throw) when the database cannot be reached or written, or the store is closed.
   */
  ping(): Promise<boolean>;
  /** Idempotent. */
  close(): Promise<void>;
  /**
   * The schema versions recorded as applied (`schema_migrations`), ascending; empty when the database
   * was never migrated. The setup check compares them with the migrations this build knows.
   */
  appliedMigrations(): Promise<number[]>;
}

/**
 * The store: everything Yardmaster keeps between requests and across replicas, as one facade over one
 * narrow interface per concern (each in its own file, with its records and its queries: the table in
 * docs/architecture.md, "The store"). A consumer takes the narrow interfaces it uses; only the
 * composition root (src/app/create-app.ts) and the features' wiring hold the whole store.
 *
 * One implementation (kysely-store.ts composes the concerns' queries) over either embedded SQLite (one
 * process) or PostgreSQL (several replicas). Times that matter are passed in (`now`), so callers and
 * tests control the clock; every time comes back as a `Date`. Repositories are `Repo`s, compared
 * case-insensitively as GitHub compares them: each table keeps `repo.key` next to the name as it was
 * given.
 */
export interface Store
  extends StoreLifecycle,
    IdentityStore,
    SubscriptionStore,
    WebhookJobStore,
    PollStore,
    OutboxStore,
    ThreadStore,
    BackoffStore,
    PauseStore,
    StatsDayStore,
    RelayStore,
    GitHubQueueMemory,
    QueueRequestStore,
    WritePaceStore,
    SummaryCommentRecords,
    QueueHistory,
    FreezeStore,
    HealthEpisodeStore,
    GateStore,
    CommandStepStore,
    FailureDetailsStore,
    MergedPullStore,
    FlakeShieldStore,
    WorkStore,
    OnceClaimStore {}
