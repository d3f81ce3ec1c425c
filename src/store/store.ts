import type {
  GitHubQueueMemory,
  GitHubQueuePull,
  NoticePreferences,
  OAuthState,
  PauseAttribution,
  RelayAnswerComment,
  RelayRecord,
  RelayStore,
  ScheduledUnpause,
  ScheduledUnpauseClaims,
  Subscription,
} from "../commands/ports.js";
import type { SummaryCommentRecords } from "../github/summary-comment.js";
import type { WritePaceStore } from "../github/write-pace.js";
import type { Repo } from "../repo.js";
import type { QueueHistory } from "./history.js";

// The records the command core keeps are the core's own (its ports); the store keeps them as they are.
export type {
  GitHubQueuePull,
  NoticePreferences,
  OAuthState,
  PauseAttribution,
  RelayAnswerComment,
  RelayRecord,
  ScheduledUnpause,
  Subscription,
};

/**
 * The store: everything Yardmaster keeps between requests and across replicas.
 *
 * One implementation (kysely-store.ts) over either embedded SQLite (one process) or PostgreSQL
 * (several replicas). Times that matter are passed in (`now`), so callers and tests control the clock;
 * every time comes back as a `Date`. Repositories are `Repo`s, compared case-insensitively as GitHub
 * compares them: each table keeps `repo.key` next to the name as it was given.
 */
export interface Store
  extends RelayStore,
    ScheduledUnpauseClaims,
    GitHubQueueMemory,
    WritePaceStore,
    SummaryCommentRecords {
  readonly kind: "sqlite" | "postgres";
  /** The queue's history (history.ts): its own narrow interface. */
  readonly history: QueueHistory;
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

  // Identity links: Slack user -> GitHub login
  getLink(teamId: string, slackUserId: string): Promise<IdentityLink | null>;
  /** Upsert on (teamId, slackUserId). */
  putLink(link: IdentityLink): Promise<void>;
  /** True when a link was removed. */
  deleteLink(teamId: string, slackUserId: string): Promise<boolean>;
  /** The Slack users linked to a GitHub login (compared case-insensitively), by team then user. */
  listLinksByGithubLogin(githubLogin: string): Promise<IdentityLink[]>;

  // Personal notices: each linked Slack user's preferences (none recorded: the defaults)
  getNoticePreferences(teamId: string, slackUserId: string): Promise<NoticePreferences | null>;
  /** Upsert on (teamId, slackUserId). */
  putNoticePreferences(preferences: NoticePreferences): Promise<void>;
  /** Every recorded preference (the poller asks the log for the groups they want). */
  listNoticePreferences(): Promise<NoticePreferences[]>;

  // OAuth `state` values: single use, bound to a Slack team and user, with an expiry
  createOAuthState(state: OAuthState): Promise<void>;
  /**
   * Deletes the state and returns it; null when unknown, already used, or expired (`expiresAt <= now`).
   * Atomic: of two concurrent consumes of one state, exactly one gets it. Also sweeps expired states.
   */
  consumeOAuthState(state: string, now: Date): Promise<OAuthState | null>;

  // Subscriptions: one per (channelId, repository)
  /**
   * Upsert. An update replaces the repository's spelling, teamId (when given), branchGlob and groups,
   * and keeps the original createdBy and createdAt.
   */
  putSubscription(sub: Subscription): Promise<{ created: boolean }>;
  /** True when a subscription was removed. */
  deleteSubscription(channelId: string, repository: Repo): Promise<boolean>;
  /** Ordered by repository (by key), then channel. */
  listSubscriptions(filter?: { channelId?: string; repository?: Repo }): Promise<Subscription[]>;
  /** Distinct, sorted by key; each in one of the spellings it was subscribed with (the smallest). */
  listSubscribedRepositories(): Promise<Repo[]>;

  // GitHub webhook deliveries handled (X-GitHub-Delivery): exactly-once command handling across replicas
  /** True the first time an id is claimed only. Deliveries older than 7 days are pruned now and then. */
  claimDelivery(id: string, now: Date): Promise<boolean>;

  // Webhook jobs: what a webhook answered at once still has to do (a comment's command), run once
  // across replicas: by the replica that received it, or by another once its claim lapsed
  /**
   * Claims the delivery id (as claimDelivery does) and records its job, `owner`'s until `until`, in one
   * transaction: false, and nothing recorded, for a delivery claimed before (a redelivery).
   */
  recordWebhookJob(job: WebhookJob, claim: { owner: string; until: Date }): Promise<boolean>;
  /**
   * Claims up to `limit` jobs not done whose claim lapsed at `now` (`claimedUntil <= now`), oldest first,
   * each `owner`'s until `until`. One statement: of two concurrent claims, each job goes to one.
   */
  claimLapsedWebhookJobs(claim: {
    owner: string;
    now: Date;
    until: Date;
    limit: number;
  }): Promise<WebhookJob[]>;
  /** Extends `owner`'s claim of a job not done; false if it is not (or no longer) theirs. */
  renewWebhookJob(deliveryId: string, owner: string, until: Date): Promise<boolean>;
  /**
   * Marks `owner`'s job done at `now`; false if it was not theirs (taken over) or done already. Jobs done
   * more than WEBHOOK_JOB_RETENTION_MS before are pruned now and then.
   */
  finishWebhookJob(deliveryId: string, owner: string, now: Date): Promise<boolean>;

  // Slack request signatures accepted (X-Slack-Signature): a signed request runs once across replicas
  /**
   * True the first time a signature is claimed, or when it was last claimed at least
   * SLACK_SIGNATURE_RETENTION_MS before `now`; false otherwise. One statement: of two concurrent
   * claims of one signature, exactly one gets true. Older signatures are pruned now and then.
   */
  claimSlackSignature(signature: string, now: Date): Promise<boolean>;

  // Leases: shared work across replicas (the poller takes one lease per repository per tick)
  /** True if the lease was free, expired (`expiresAt <= now`), or already ours (then extended to now + ttl). */
  tryAcquireLease(name: string, owner: string, now: Date, ttlMs: number): Promise<boolean>;
  /** Releases the lease if `owner` holds it; otherwise does nothing. */
  releaseLease(name: string, owner: string): Promise<void>;

  // Notifier: when each subscribed repository's log is read next, and by which replica (one row per
  // repository, kept with its subscriptions: made due at once by the first, removed with the last)
  /**
   * Claims up to `limit` repositories that are due at `now` (their cadence, doorbell or recheck time has
   * come) and not claimed by a live replica: each is `owner`'s until `now + leaseMs`. One statement
   * (PostgreSQL skips the rows another replica is claiming): of two concurrent claims, each row goes to
   * one. A doorbell or recheck time that has come is cleared by the claim, which reads for it, and the
   * claim is recorded as the repository's last read. A doorbell or recheck time makes a repository due
   * only `minGapMs` (default 0) after its last read: however often GitHub rings, the doorbell reads it at
   * most once per gap, across replicas. Repositories asked for by the doorbell come first.
   */
  claimPolls(claim: {
    owner: string;
    now: Date;
    leaseMs: number;
    limit: number;
    minGapMs?: number;
  }): Promise<ClaimedPoll[]>;
  /** Extends `owner`'s claim of a repository; false if it is not (or no longer) theirs. */
  renewPollClaim(repository: Repo, owner: string, until: Date): Promise<boolean>;
  /**
   * Ends `owner`'s claim of a repository with its next cadence read; does nothing if the claim is not
   * theirs any more. Doorbell and recheck times set meanwhile are kept. `activeUntil`, when given, is
   * recorded if later than the one recorded.
   */
  finishPoll(
    repository: Repo,
    owner: string,
    next: {
      nextPollAt: Date;
      cadence: PollCadence;
      failures: number;
      lastError: string | null;
      activeUntil?: Date;
    },
  ): Promise<void>;
  /**
   * GitHub announced activity on a repository: it is read at `pollAt` (or earlier, if a read was already
   * asked for: a read already due stays the one read), once more at `recheckAt` (replacing the follow-up
   * asked for before: one is kept), and counts as active until `activeUntil`. Returns the schedule after
   * the ring (when the read is due: its doorbell time, or the claim's minimum gap after its last read);
   * null when the repository is not subscribed (nothing to read).
   */
  ringDoorbell(
    repository: Repo,
    at: { pollAt: Date; recheckAt: Date; activeUntil: Date },
  ): Promise<PollSchedule | null>;
  getPollSchedule(repository: Repo): Promise<PollSchedule | null>;

  // Notifier: where each repository's log was read up to
  getPollCursor(repository: Repo): Promise<PollCursor | null>;
  /** Upsert. */
  putPollCursor(cursor: PollCursor): Promise<void>;

  // Notifier: the outbox that makes each (channel, event) post exactly once. Each transition of a row
  // is one call, atomic on its own: claimed (pending), then sent (with its thread) or released.
  /**
   * Inserts a pending row (attempts 1) if none exists for (channelId, eventId) and returns "claimed".
   * Otherwise returns the existing row's status; an existing pending row has its attempts incremented
   * (its claimedAt is kept). One statement: of two concurrent claims, exactly one gets "claimed".
   */
  claimNotification(n: NotificationClaim): Promise<"claimed" | "pending" | "sent">;
  /**
   * Marks the row sent and records the posted message; with `thread`, records in the same transaction
   * the thread of the row's pull request in its channel (created or replaced), so that a message is
   * never recorded without the thread it started or changed, nor the other way round. Does nothing
   * (to the thread either) if there is no such row; `thread` is ignored for a row without a pull request.
   */
  markNotificationSent(sent: SentNotification): Promise<void>;
  /** Deletes a pending row (the post definitely failed), so that it is claimed again later. Sent rows stay. */
  releaseNotification(channelId: string, eventId: number): Promise<void>;
  /**
   * Pending rows claimed strictly before `olderThan`, in order: by their `order` when they have one, else
   * by their claim (then by channel and event id); of one channel when `channelId` is given.
   */
  listPendingNotifications(
    olderThan: Date,
    limit: number,
    channelId?: string,
  ): Promise<PendingNotification[]>;
  /** Per channel with pending rows: how many, and the oldest claim (the outbox metrics). */
  pendingNotificationStats(): Promise<OutboxChannelStats[]>;

  // Notifier: one thread per pull request per channel, written only with the notification that made or
  // changed it (markNotificationSent)
  getThread(channelId: string, repository: Repo, pullRequest: number): Promise<ThreadRecord | null>;
  /**
   * The threads of a repository in channels whose id starts with `channelPrefix` (personal notices: the
   * pull requests a person hears about), by channel then pull request.
   */
  listThreadsOfRepository(repository: Repo, channelPrefix: string): Promise<ThreadRecord[]>;
  /** Threads whose parent is stale (`parentStale`), of one channel or of all, oldest update first. */
  listStaleThreads(channelId?: string): Promise<ThreadRecord[]>;
  /**
   * The thread's parent shows its state as recorded at `updatedAt`: clears `parentStale`, unless the
   * thread was recorded again since (then its newer state is still to show).
   */
  markThreadParentEdited(thread: {
    channelId: string;
    repository: Repo;
    pullRequest: number;
    updatedAt: Date;
  }): Promise<void>;

  // Notifier: failure backoff per repository or channel
  getBackoff(key: string): Promise<Backoff | null>;
  /** Upsert. */
  putBackoff(backoff: Backoff): Promise<void>;
  clearBackoff(key: string): Promise<void>;

  // Who last paused or unpaused a repository's queue through Yardmaster (the merge queue sees only
  // the app's account, so its pause events cannot say who)
  /** Upsert: one record per repository, the latest (`resumesAt` null and `scheduled` false unless given). */
  putPauseAttribution(attribution: PauseAttribution): Promise<void>;
  getPauseAttribution(repository: Repo): Promise<PauseAttribution | null>;

  // Weekly digests: one per (channel, repository, week), posted once across replicas and restarts
  /**
   * Claims a week's digest for `owner` until `until`: "new" the first time, "in-doubt" when an earlier
   * claim ran out without being marked sent (its post may have landed), null when it was sent or a live
   * claim holds it. One statement each way: of two concurrent claims, one gets it.
   */
  claimDigest(claim: DigestClaim): Promise<"new" | "in-doubt" | null>;
  /** Records the digest posted; does nothing unless `owner` holds the claim. */
  markDigestSent(sent: DigestKey & { owner: string; messageTs: string; at: Date }): Promise<void>;
  /** Gives a claim up (nothing was posted), so that the next pass tries again. */
  releaseDigest(key: DigestKey & { owner: string }): Promise<void>;

  // Queue statistics: the facts of each finished UTC day of a repository's log, read from the log once
  /** The days of `days` kept for the repository, by day ("2026-11-20"). */
  getStatsDays(repository: Repo, days: readonly string[]): Promise<Map<string, unknown>>;
  /** Upsert. */
  putStatsDay(repository: Repo, day: string, facts: unknown, now: Date): Promise<void>;

  // Relayed commands followed until the merge queue answers them: RelayStore (src/commands/ports.ts)

  // Timed pauses: when each repository's merge queue is unpaused by itself (one row per repository)
  /** Upsert: replaces the repository's scheduled unpause, and any claim of it. */
  putScheduledUnpause(unpause: ScheduledUnpause): Promise<void>;
  /** True when one was removed (a manual unpause cancels it, claimed or not). */
  deleteScheduledUnpause(repository: Repo): Promise<boolean>;
  getScheduledUnpause(repository: Repo): Promise<ScheduledUnpause | null>;
  // Claiming, renewing and finishing those whose time has come: ScheduledUnpauseClaims (src/commands/ports.ts)

  // The GitHub App's writes, shared by its replicas: one write pace per app (WritePaceStore,
  // src/github/write-pace.ts), and one summary comment per issue (SummaryCommentRecords,
  // src/github/summary-comment.ts), whose records are pruned SUMMARY_COMMENT_RETENTION_MS after written
}

export interface DigestKey {
  channelId: string;
  repository: Repo;
  /** The Monday's date in the digest's time zone, e.g. "2026-11-23". */
  week: string;
}

export interface DigestClaim extends DigestKey {
  owner: string;
  now: Date;
  until: Date;
}

export interface IdentityLink {
  teamId: string;
  slackUserId: string;
  githubLogin: string;
  githubId: number;
  linkedAt: Date;
}

/** Why a repository's next read is scheduled when it is: first read, the interval, the idle period, a retry. */
export type PollCadence = "new" | "interval" | "idle" | "retry";
/** Why a read happens: its cadence, or GitHub's doorbell (an event, or the read a few seconds after it). */
export type PollReason = PollCadence | "doorbell";

export interface PollSchedule {
  repository: Repo;
  nextPollAt: Date;
  cadence: PollCadence;
  doorbellAt: Date | null;
  recheckAt: Date | null;
  /** Read at the interval (not the idle period) until then: GitHub announced activity, or the log had events. */
  activeUntil: Date | null;
  /** Reads failed in a row, and the last failure. */
  failures: number;
  lastError: string | null;
  claimedBy: string | null;
  claimedUntil: Date | null;
  /** When a read last began (its claim); null before the first since this was recorded. */
  lastReadAt: Date | null;
}

export interface ClaimedPoll extends PollSchedule {
  reason: PollReason;
}

export interface PollCursor {
  repository: Repo;
  receivedFrom: Date;
  /** Ids of events at or after receivedFrom already processed, to skip on overlap. */
  seenEventIds: number[];
  updatedAt: Date;
}

/** A webhook's work still to do once it was answered (a comment's command), as recorded. */
export interface WebhookJob {
  /** GitHub's X-GitHub-Delivery: the same on a redelivery. */
  deliveryId: string;
  /** What the job runs: "comment" (a comment command). */
  kind: string;
  /** The installation the webhook came for: the job acts as it. */
  installationId: number;
  /** What running it needs of the webhook's payload (JSON). */
  payload: unknown;
  receivedAt: Date;
}

/**
 * Where a notice stands in its channel's order, when not where its claim puts it: a notice pushed by
 * GitHub's merge queue stands where its webhook was received (`at`), and within one millisecond by the
 * receiving replica's count (`seq`), whenever its row was claimed.
 */
export interface NoticeOrder {
  at: Date;
  seq: number;
}

export interface NotificationClaim {
  /** Absent: the row stands where its claim puts it (`claimedAt`). */
  order?: NoticeOrder;
  channelId: string;
  eventId: number;
  repository: Repo;
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

export interface SentNotification {
  channelId: string;
  eventId: number;
  /** The message posted (or found in the channel after a crash). */
  message: { ts: string; threadTs: string | null };
  /**
   * The thread of the row's pull request after this message: its parent message and what it should
   * show; `parentStale` (default false) when the parent does not show it yet (a reply: edited later).
   */
  thread?: { parentTs: string; state: unknown; parentStale?: boolean };
  /** When it was recorded: the row's sent time and the thread's updatedAt. */
  at: Date;
}

export interface ThreadRecord {
  channelId: string;
  repository: Repo;
  pullRequest: number;
  parentTs: string;
  /** JSON: what the parent message shows, or is to show once edited (`parentStale`). */
  state: unknown;
  /** The parent message still shows an earlier state: an edit is to do. */
  parentStale: boolean;
  updatedAt: Date;
}

export interface OutboxChannelStats {
  channelId: string;
  pending: number;
  oldestClaimedAt: Date;
}

export interface Backoff {
  key: string;
  failures: number;
  nextAttemptAt: Date;
  lastError: string;
}

/** A webhook job is kept this long after it was done (the delivery itself is remembered 7 days). */
export const WEBHOOK_JOB_RETENTION_MS = 24 * 60 * 60 * 1000;
/** Webhook deliveries are remembered this long. */
export const DELIVERY_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** A relay is forgotten this long after its deadline (pruned now and then, when relays are created). */
export const RELAY_RETENTION_MS = 24 * 60 * 60 * 1000;
/**
 * Slack request signatures are remembered this long. A request is accepted while its timestamp is
 * within 5 minutes of the clock either way, so its signature can come back at most 10 minutes after it
 * was first seen; 5 more minutes cover replicas whose clocks disagree.
 */
export const SLACK_SIGNATURE_RETENTION_MS = 15 * 60 * 1000;
/** Sent notifications are remembered this long (the poller must not read events older than this). */
export const SENT_NOTIFICATION_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/**
 * A day's queue figures are kept this long: stats reads at most 60 days back (30 days and the 30 before),
 * and the merge queue's log keeps 90.
 */
export const STATS_DAY_RETENTION_MS = 100 * 24 * 60 * 60 * 1000;
/** A sent (or abandoned) weekly digest's record is kept this long: only this week's is ever asked for. */
export const DIGEST_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;
/**
 * What GitHub's merge queue said of a pull request is kept as long as the outbox keeps its notices, within
 * which a redelivered webhook is still posted once.
 */
export const GITHUB_QUEUE_PULL_RETENTION_MS = SENT_NOTIFICATION_RETENTION_MS;
/**
 * A summary comment's record is kept this long after it was last written: an older summary is found on
 * GitHub again (and recorded again) when a command comes.
 */
export const SUMMARY_COMMENT_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;
/** Pruning runs at most this often per store instance (driven by the `now` callers pass). */
export const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
