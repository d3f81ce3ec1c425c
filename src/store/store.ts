/**
 * The store: everything Yardmaster keeps between requests and across replicas.
 *
 * Two implementations share this Promise-based interface: embedded SQLite (one process) and
 * PostgreSQL (several replicas). Times that matter are passed in (`now`), so callers and tests control
 * the clock; every time comes back as a `Date`. Repository names are compared case-insensitively
 * (GitHub's are): each table keeps a lower-case key next to the name as it was given.
 */
export interface Store {
  readonly kind: "sqlite" | "postgres";
  /** A trivial query: false (never a throw) when the database cannot be reached or the store is closed. */
  ping(): Promise<boolean>;
  /** Idempotent. */
  close(): Promise<void>;

  // Identity links: Slack user -> GitHub login (PRODUCT.md section 3)
  getLink(teamId: string, slackUserId: string): Promise<IdentityLink | null>;
  /** Upsert on (teamId, slackUserId). */
  putLink(link: IdentityLink): Promise<void>;
  /** True when a link was removed. */
  deleteLink(teamId: string, slackUserId: string): Promise<boolean>;

  // OAuth `state` values: single use, bound to a Slack team and user, with an expiry
  createOAuthState(state: OAuthState): Promise<void>;
  /**
   * Deletes the state and returns it; null when unknown, already used, or expired (`expiresAt <= now`).
   * Atomic: of two concurrent consumes of one state, exactly one gets it. Also sweeps expired states.
   */
  consumeOAuthState(state: string, now: Date): Promise<OAuthState | null>;

  // Subscriptions (PRODUCT.md section 5): one per (channelId, repository case-insensitively)
  /**
   * Upsert. An update replaces the repository's spelling, teamId (when given), branchGlob and groups,
   * and keeps the original createdBy and createdAt.
   */
  putSubscription(sub: Subscription): Promise<{ created: boolean }>;
  /** True when a subscription was removed. */
  deleteSubscription(channelId: string, repository: string): Promise<boolean>;
  /** Ordered by repository (case-insensitively), then channel. `repository` matches case-insensitively. */
  listSubscriptions(filter?: { channelId?: string; repository?: string }): Promise<Subscription[]>;
  /**
   * Distinct (case-insensitively), sorted case-insensitively; each in one of the spellings it was
   * subscribed with (the smallest).
   */
  listSubscribedRepositories(): Promise<string[]>;

  // GitHub webhook deliveries handled (X-GitHub-Delivery): exactly-once command handling across replicas
  /** True the first time an id is claimed only. Deliveries older than 7 days are pruned now and then. */
  claimDelivery(id: string, now: Date): Promise<boolean>;

  // Leases: shared work across replicas (the poller takes one lease per repository per tick)
  /** True if the lease was free, expired (`expiresAt <= now`), or already ours (then extended to now + ttl). */
  tryAcquireLease(name: string, owner: string, now: Date, ttlMs: number): Promise<boolean>;
  /** Releases the lease if `owner` holds it; otherwise does nothing. */
  releaseLease(name: string, owner: string): Promise<void>;

  // Notifier: where each repository's log was read up to (repository matched case-insensitively)
  getPollCursor(repository: string): Promise<PollCursor | null>;
  /** Upsert. */
  putPollCursor(cursor: PollCursor): Promise<void>;

  // Notifier: the outbox that makes each (channel, event) post exactly once
  /**
   * Inserts a pending row (attempts 1) if none exists for (channelId, eventId) and returns "claimed".
   * Otherwise returns the existing row's status; an existing pending row has its attempts incremented
   * (its claimedAt is kept).
   */
  claimNotification(n: NotificationClaim): Promise<"claimed" | "pending" | "sent">;
  /** Marks the row sent and records the posted message. Does nothing if there is no such row. */
  markNotificationSent(
    channelId: string,
    eventId: number,
    message: { ts: string; threadTs: string | null },
    now: Date,
  ): Promise<void>;
  /** Deletes a pending row (the post definitely failed), so that it is claimed again later. Sent rows stay. */
  releaseNotification(channelId: string, eventId: number): Promise<void>;
  /** Pending rows claimed strictly before `olderThan` (in doubt after a crash), oldest claim first. */
  listPendingNotifications(olderThan: Date, limit: number): Promise<PendingNotification[]>;

  // Notifier: one thread per pull request per channel (repository matched case-insensitively)
  getThread(channelId: string, repository: string, pullRequest: number): Promise<ThreadRecord | null>;
  /** Upsert. */
  putThread(thread: ThreadRecord): Promise<void>;

  // Notifier: failure backoff per repository or channel
  getBackoff(key: string): Promise<Backoff | null>;
  /** Upsert. */
  putBackoff(backoff: Backoff): Promise<void>;
  clearBackoff(key: string): Promise<void>;

  // Who last paused or unpaused a repository's queue through Yardmaster (the merge queue sees only
  // the app's account, so its pause events cannot say who); repository matched case-insensitively
  /** Upsert: one record per repository, the latest. */
  putPauseAttribution(attribution: PauseAttribution): Promise<void>;
  getPauseAttribution(repository: string): Promise<PauseAttribution | null>;
}

export interface IdentityLink {
  teamId: string;
  slackUserId: string;
  githubLogin: string;
  githubId: number;
  linkedAt: Date;
}

export interface OAuthState {
  state: string;
  teamId: string;
  slackUserId: string;
  channelId: string | null;
  responseUrl: string | null;
  expiresAt: Date;
}

export interface Subscription {
  channelId: string;
  teamId: string | null;
  /** "owner/repo"; unique per channel case-insensitively. */
  repository: string;
  branchGlob: string | null;
  groups: string[];
  createdBy: string;
  createdAt: Date;
}

export interface PollCursor {
  repository: string;
  receivedFrom: Date;
  /** Ids of events at or after receivedFrom already processed, to skip on overlap. */
  seenEventIds: number[];
  updatedAt: Date;
}

export interface NotificationClaim {
  channelId: string;
  eventId: number;
  repository: string;
  pullRequest: number | null;
  eventType: string;
  /** JSON the notifier needs to re-post (stored as JSON text in SQLite, jsonb in PostgreSQL). */
  payload: unknown;
  claimedAt: Date;
}

export interface PendingNotification extends NotificationClaim {
  /** 1 at the first claim, incremented by each later claim while pending. */
  attempts: number;
}

export interface ThreadRecord {
  channelId: string;
  repository: string;
  pullRequest: number;
  parentTs: string;
  /** JSON: what the parent message shows. */
  state: unknown;
  updatedAt: Date;
}

export interface PauseAttribution {
  repository: string;
  action: "pause" | "unpause";
  /** The reason given, for a pause. */
  reason: string | null;
  /** The GitHub login of the person who asked. */
  actor: string;
  surface: "github" | "slack";
  at: Date;
}

export interface Backoff {
  key: string;
  failures: number;
  nextAttemptAt: Date;
  lastError: string;
}

/** The case-insensitive key a repository ("owner/repo") is stored under. */
export function repositoryKey(repository: string): string {
  return repository.toLowerCase();
}

/** Webhook deliveries are remembered this long. */
export const DELIVERY_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** Sent notifications are remembered this long (the poller must not read events older than this). */
export const SENT_NOTIFICATION_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/** Pruning runs at most this often per store instance (driven by the `now` callers pass). */
export const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

/** A stored pause attribution, whichever dialect read it (the time already a Date). */
export function toPauseAttribution(row: Omit<PauseAttribution, "at">, at: Date): PauseAttribution {
  return {
    repository: row.repository,
    action: row.action,
    reason: row.reason,
    actor: row.actor,
    surface: row.surface,
    at,
  };
}
