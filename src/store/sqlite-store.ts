import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import type { Logger } from "../logger.js";
import { checkMigrations, MIGRATIONS, type Migration } from "./migrations.js";
import {
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
  toPauseAttribution,
} from "./store.js";

export interface SqliteStoreOptions {
  /** A file path (its directory is created) or ":memory:". */
  path: string;
  logger?: Logger;
  /** How long a write waits for another connection's lock (`busy_timeout`). Default 5000 ms. */
  busyTimeoutMs?: number;
  /** For tests only: the migrations to apply instead of the built-in ones. */
  migrations?: readonly Migration[];
}

type Db = Database.Database;
type Stmt = Database.Statement;

interface LinkRow {
  team_id: string;
  slack_user_id: string;
  github_login: string;
  github_id: number;
  linked_at: string;
}
interface OAuthStateRow {
  state: string;
  team_id: string;
  slack_user_id: string;
  channel_id: string | null;
  response_url: string | null;
  expires_at: string;
}
interface SubscriptionRow {
  channel_id: string;
  repository: string;
  team_id: string | null;
  branch_glob: string | null;
  groups: string;
  created_by: string;
  created_at: string;
}
interface PollCursorRow {
  repository: string;
  received_from: string;
  seen_event_ids: string;
  updated_at: string;
}
interface NotificationRow {
  channel_id: string;
  event_id: number;
  repository: string;
  pull_request: number | null;
  event_type: string;
  payload: string;
  attempts: number;
  claimed_at: string;
}
interface ThreadRow {
  channel_id: string;
  repository: string;
  pull_request: number;
  parent_ts: string;
  state: string;
  updated_at: string;
}
interface BackoffRow {
  key: string;
  failures: number;
  next_attempt_at: string;
  last_error: string;
}
interface PauseAttributionRow {
  repository: string;
  action: "pause" | "unpause";
  reason: string | null;
  actor: string;
  surface: "github" | "slack";
  at: string;
}

/**
 * Opens (creating if needed) a SQLite database: WAL journal, `busy_timeout`, foreign keys on, and the
 * pending migrations applied in one immediate transaction (so two processes opening one file serialise).
 */
export function openSqliteStore(options: SqliteStoreOptions): SqliteStore {
  const { path, logger } = options;
  const inMemory = path === ":memory:" || path === "";
  if (!inMemory && !path.startsWith("file:")) mkdirSync(dirname(resolve(path)), { recursive: true });
  const db = new Database(path);
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
    const mode = db.pragma("journal_mode = WAL", { simple: true });
    if (!inMemory && String(mode).toLowerCase() !== "wal") {
      logger?.warn({ journalMode: mode }, "SQLite did not switch to WAL journal mode");
    }
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    const applied = migrateSqlite(db, options.migrations ?? MIGRATIONS);
    if (applied.length > 0) {
      logger?.info({ store: "sqlite", versions: applied }, "applied store migrations");
    }
    return new SqliteStore(db);
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Applies the migrations not yet recorded in `schema_migrations`, in order, in one `BEGIN IMMEDIATE`
 * transaction. Returns the versions applied (empty when the schema was up to date).
 */
export function migrateSqlite(db: Db, migrations: readonly Migration[] = MIGRATIONS): number[] {
  checkMigrations(migrations);
  const run = db.transaction((): number[] => {
    db.exec(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
    );
    const applied = new Set(db.prepare("SELECT version FROM schema_migrations").pluck().all() as number[]);
    const record = db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)");
    const done: number[] = [];
    for (const m of migrations) {
      if (applied.has(m.version)) continue;
      db.exec(m.sqlite);
      record.run(m.version, m.name, new Date().toISOString());
      done.push(m.version);
    }
    return done;
  });
  return run.immediate();
}

export class SqliteStore implements Store {
  readonly kind = "sqlite" as const;
  #closed = false;
  #lastDeliveryPrune: number | undefined;
  #lastOAuthStatePrune: number | undefined;
  #lastNotificationPrune: number | undefined;
  readonly #s: ReturnType<typeof prepareStatements>;

  /** Use `openSqliteStore` (or `openStore`), which configures and migrates the database first. */
  constructor(private readonly db: Db) {
    this.#s = prepareStatements(db);
  }

  async ping(): Promise<boolean> {
    if (this.#closed) return false;
    try {
      return this.#s.ping.get() !== undefined;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.db.close();
  }

  // Identity links

  async getLink(teamId: string, slackUserId: string): Promise<IdentityLink | null> {
    const row = this.#s.getLink.get(teamId, slackUserId) as LinkRow | undefined;
    return row ? toLink(row) : null;
  }

  async putLink(link: IdentityLink): Promise<void> {
    this.#s.putLink.run(link.teamId, link.slackUserId, link.githubLogin, link.githubId, iso(link.linkedAt));
  }

  async deleteLink(teamId: string, slackUserId: string): Promise<boolean> {
    return this.#s.deleteLink.run(teamId, slackUserId).changes > 0;
  }

  // OAuth states

  async createOAuthState(state: OAuthState): Promise<void> {
    this.#s.createOAuthState.run(
      state.state,
      state.teamId,
      state.slackUserId,
      state.channelId,
      state.responseUrl,
      iso(state.expiresAt),
    );
  }

  async consumeOAuthState(state: string, now: Date): Promise<OAuthState | null> {
    const at = iso(now);
    const row = this.#s.consumeOAuthState.get(state) as OAuthStateRow | undefined;
    if (due(this.#lastOAuthStatePrune, now)) {
      this.#lastOAuthStatePrune = now.getTime();
      this.#s.deleteExpiredOAuthStates.run(at);
    }
    if (!row || row.expires_at <= at) return null;
    return toOAuthState(row);
  }

  // Subscriptions

  async putSubscription(sub: Subscription): Promise<{ created: boolean }> {
    const key = repositoryKey(sub.repository);
    const run = this.db.transaction((): boolean => {
      const exists = this.#s.subscriptionExists.get(sub.channelId, key) !== undefined;
      if (exists) {
        this.#s.updateSubscription.run(
          sub.repository,
          sub.teamId,
          sub.branchGlob,
          json(sub.groups),
          sub.channelId,
          key,
        );
      } else {
        this.#s.insertSubscription.run(
          sub.channelId,
          key,
          sub.repository,
          sub.teamId,
          sub.branchGlob,
          json(sub.groups),
          sub.createdBy,
          iso(sub.createdAt),
        );
      }
      return !exists;
    });
    return { created: run.immediate() };
  }

  async deleteSubscription(channelId: string, repository: string): Promise<boolean> {
    return this.#s.deleteSubscription.run(channelId, repositoryKey(repository)).changes > 0;
  }

  async listSubscriptions(filter: { channelId?: string; repository?: string } = {}): Promise<Subscription[]> {
    const rows = this.#s.listSubscriptions.all({
      channelId: filter.channelId ?? null,
      repositoryKey: filter.repository === undefined ? null : repositoryKey(filter.repository),
    }) as SubscriptionRow[];
    return rows.map(toSubscription);
  }

  async listSubscribedRepositories(): Promise<string[]> {
    return this.#s.listSubscribedRepositories.pluck().all() as string[];
  }

  // Webhook deliveries

  async claimDelivery(id: string, now: Date): Promise<boolean> {
    const at = iso(now);
    if (due(this.#lastDeliveryPrune, now)) {
      this.#lastDeliveryPrune = now.getTime();
      this.#s.pruneDeliveries.run(iso(new Date(now.getTime() - DELIVERY_RETENTION_MS)));
    }
    return this.#s.claimDelivery.run(id, at).changes > 0;
  }

  // Leases

  async tryAcquireLease(name: string, owner: string, now: Date, ttlMs: number): Promise<boolean> {
    const at = iso(now);
    const expiresAt = iso(new Date(now.getTime() + ttlMs));
    return this.#s.acquireLease.run({ name, owner, expiresAt, now: at }).changes > 0;
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    this.#s.releaseLease.run(name, owner);
  }

  // Poll cursors

  async getPollCursor(repository: string): Promise<PollCursor | null> {
    const row = this.#s.getPollCursor.get(repositoryKey(repository)) as PollCursorRow | undefined;
    return row ? toPollCursor(row) : null;
  }

  async putPollCursor(cursor: PollCursor): Promise<void> {
    this.#s.putPollCursor.run(
      repositoryKey(cursor.repository),
      cursor.repository,
      iso(cursor.receivedFrom),
      json(cursor.seenEventIds),
      iso(cursor.updatedAt),
    );
  }

  // Notification outbox

  async claimNotification(n: NotificationClaim): Promise<"claimed" | "pending" | "sent"> {
    const run = this.db.transaction((): "claimed" | "pending" | "sent" => {
      const status = this.#s.notificationStatus.pluck().get(n.channelId, n.eventId) as string | undefined;
      if (status === undefined) {
        this.#s.insertNotification.run(
          n.channelId,
          n.eventId,
          n.repository,
          n.pullRequest,
          n.eventType,
          json(n.payload),
          iso(n.claimedAt),
        );
        return "claimed";
      }
      if (status === "pending") {
        this.#s.bumpNotificationAttempts.run(n.channelId, n.eventId);
        return "pending";
      }
      return "sent";
    });
    return run.immediate();
  }

  async markNotificationSent(
    channelId: string,
    eventId: number,
    message: { ts: string; threadTs: string | null },
    now: Date,
  ): Promise<void> {
    this.#s.markNotificationSent.run(message.ts, message.threadTs, iso(now), channelId, eventId);
    if (due(this.#lastNotificationPrune, now)) {
      this.#lastNotificationPrune = now.getTime();
      this.#s.pruneSentNotifications.run(iso(new Date(now.getTime() - SENT_NOTIFICATION_RETENTION_MS)));
    }
  }

  async releaseNotification(channelId: string, eventId: number): Promise<void> {
    this.#s.releaseNotification.run(channelId, eventId);
  }

  async listPendingNotifications(olderThan: Date, limit: number): Promise<PendingNotification[]> {
    const rows = this.#s.listPendingNotifications.all(iso(olderThan), limitOf(limit)) as NotificationRow[];
    return rows.map(toPendingNotification);
  }

  // Threads

  async getThread(channelId: string, repository: string, pullRequest: number): Promise<ThreadRecord | null> {
    const row = this.#s.getThread.get(channelId, repositoryKey(repository), pullRequest) as
      | ThreadRow
      | undefined;
    return row ? toThread(row) : null;
  }

  async putThread(thread: ThreadRecord): Promise<void> {
    this.#s.putThread.run(
      thread.channelId,
      repositoryKey(thread.repository),
      thread.repository,
      thread.pullRequest,
      thread.parentTs,
      json(thread.state),
      iso(thread.updatedAt),
    );
  }

  // Backoff

  async getBackoff(key: string): Promise<Backoff | null> {
    const row = this.#s.getBackoff.get(key) as BackoffRow | undefined;
    return row ? toBackoff(row) : null;
  }

  async putBackoff(backoff: Backoff): Promise<void> {
    this.#s.putBackoff.run(backoff.key, backoff.failures, iso(backoff.nextAttemptAt), backoff.lastError);
  }

  async clearBackoff(key: string): Promise<void> {
    this.#s.clearBackoff.run(key);
  }

  // Pause attributions

  async putPauseAttribution(a: PauseAttribution): Promise<void> {
    this.#s.putPauseAttribution.run(
      repositoryKey(a.repository),
      a.repository,
      a.action,
      a.reason,
      a.actor,
      a.surface,
      iso(a.at),
    );
  }

  async getPauseAttribution(repository: string): Promise<PauseAttribution | null> {
    const row = this.#s.getPauseAttribution.get(repositoryKey(repository)) as PauseAttributionRow | undefined;
    return row ? toPauseAttribution(row, new Date(row.at)) : null;
  }
}

function prepareStatements(db: Db) {
  const p = (sql: string): Stmt => db.prepare(sql);
  return {
    ping: p("SELECT 1 AS ok"),

    getLink: p("SELECT * FROM identity_links WHERE team_id = ? AND slack_user_id = ?"),
    putLink: p(`
      INSERT INTO identity_links (team_id, slack_user_id, github_login, github_id, linked_at)
      VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (team_id, slack_user_id) DO UPDATE SET
        github_login = excluded.github_login, github_id = excluded.github_id, linked_at = excluded.linked_at`),
    deleteLink: p("DELETE FROM identity_links WHERE team_id = ? AND slack_user_id = ?"),

    createOAuthState: p(`
      INSERT INTO oauth_states (state, team_id, slack_user_id, channel_id, response_url, expires_at)
      VALUES (?, ?, ?, ?, ?, ?)`),
    consumeOAuthState: p("DELETE FROM oauth_states WHERE state = ? RETURNING *"),
    deleteExpiredOAuthStates: p("DELETE FROM oauth_states WHERE expires_at <= ?"),

    subscriptionExists: p("SELECT 1 FROM subscriptions WHERE channel_id = ? AND repository_key = ?"),
    insertSubscription: p(`
      INSERT INTO subscriptions
        (channel_id, repository_key, repository, team_id, branch_glob, groups, created_by, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
    updateSubscription: p(`
      UPDATE subscriptions
      SET repository = ?, team_id = coalesce(?, team_id), branch_glob = ?, groups = ?
      WHERE channel_id = ? AND repository_key = ?`),
    deleteSubscription: p("DELETE FROM subscriptions WHERE channel_id = ? AND repository_key = ?"),
    listSubscriptions: p(`
      SELECT * FROM subscriptions
      WHERE (@channelId IS NULL OR channel_id = @channelId)
        AND (@repositoryKey IS NULL OR repository_key = @repositoryKey)
      ORDER BY repository_key, channel_id`),
    listSubscribedRepositories: p(
      "SELECT min(repository) FROM subscriptions GROUP BY repository_key ORDER BY repository_key",
    ),

    claimDelivery: p(
      "INSERT INTO webhook_deliveries (id, received_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING",
    ),
    pruneDeliveries: p("DELETE FROM webhook_deliveries WHERE received_at < ?"),

    acquireLease: p(`
      INSERT INTO leases (name, owner, expires_at) VALUES (@name, @owner, @expiresAt)
      ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
      WHERE leases.owner = excluded.owner OR leases.expires_at <= @now`),
    releaseLease: p("DELETE FROM leases WHERE name = ? AND owner = ?"),

    getPollCursor: p("SELECT * FROM poll_cursors WHERE repository_key = ?"),
    putPollCursor: p(`
      INSERT INTO poll_cursors (repository_key, repository, received_from, seen_event_ids, updated_at)
      VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (repository_key) DO UPDATE SET
        repository = excluded.repository, received_from = excluded.received_from,
        seen_event_ids = excluded.seen_event_ids, updated_at = excluded.updated_at`),

    notificationStatus: p("SELECT status FROM notifications WHERE channel_id = ? AND event_id = ?"),
    insertNotification: p(`
      INSERT INTO notifications
        (channel_id, event_id, repository, pull_request, event_type, payload, status, attempts, claimed_at)
      VALUES (?, ?, ?, ?, ?, ?, 'pending', 1, ?)`),
    bumpNotificationAttempts: p(
      "UPDATE notifications SET attempts = attempts + 1 WHERE channel_id = ? AND event_id = ? AND status = 'pending'",
    ),
    markNotificationSent: p(`
      UPDATE notifications SET status = 'sent', message_ts = ?, thread_ts = ?, sent_at = ?
      WHERE channel_id = ? AND event_id = ?`),
    pruneSentNotifications: p("DELETE FROM notifications WHERE status = 'sent' AND sent_at < ?"),
    releaseNotification: p(
      "DELETE FROM notifications WHERE channel_id = ? AND event_id = ? AND status = 'pending'",
    ),
    listPendingNotifications: p(`
      SELECT * FROM notifications
      WHERE status = 'pending' AND claimed_at < ?
      ORDER BY claimed_at, channel_id, event_id
      LIMIT ?`),

    getThread: p("SELECT * FROM threads WHERE channel_id = ? AND repository_key = ? AND pull_request = ?"),
    putThread: p(`
      INSERT INTO threads (channel_id, repository_key, repository, pull_request, parent_ts, state, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (channel_id, repository_key, pull_request) DO UPDATE SET
        repository = excluded.repository, parent_ts = excluded.parent_ts,
        state = excluded.state, updated_at = excluded.updated_at`),

    getBackoff: p("SELECT * FROM backoffs WHERE key = ?"),
    putBackoff: p(`
      INSERT INTO backoffs (key, failures, next_attempt_at, last_error) VALUES (?, ?, ?, ?)
      ON CONFLICT (key) DO UPDATE SET
        failures = excluded.failures, next_attempt_at = excluded.next_attempt_at, last_error = excluded.last_error`),
    clearBackoff: p("DELETE FROM backoffs WHERE key = ?"),

    getPauseAttribution: p("SELECT * FROM pause_attributions WHERE repository_key = ?"),
    putPauseAttribution: p(`
      INSERT INTO pause_attributions (repository_key, repository, action, reason, actor, surface, at)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (repository_key) DO UPDATE SET
        repository = excluded.repository, action = excluded.action, reason = excluded.reason,
        actor = excluded.actor, surface = excluded.surface, at = excluded.at`),
  };
}

/** A time as stored in SQLite: ISO-8601 UTC with milliseconds, which sorts as text. Throws on an invalid Date. */
function iso(date: Date): string {
  return date.toISOString();
}

function json(value: unknown): string {
  return JSON.stringify(value ?? null);
}

function due(last: number | undefined, now: Date): boolean {
  return last === undefined || now.getTime() - last >= PRUNE_INTERVAL_MS;
}

function limitOf(limit: number): number {
  return Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : -1;
}

function toLink(row: LinkRow): IdentityLink {
  return {
    teamId: row.team_id,
    slackUserId: row.slack_user_id,
    githubLogin: row.github_login,
    githubId: row.github_id,
    linkedAt: new Date(row.linked_at),
  };
}

function toOAuthState(row: OAuthStateRow): OAuthState {
  return {
    state: row.state,
    teamId: row.team_id,
    slackUserId: row.slack_user_id,
    channelId: row.channel_id,
    responseUrl: row.response_url,
    expiresAt: new Date(row.expires_at),
  };
}

function toSubscription(row: SubscriptionRow): Subscription {
  return {
    channelId: row.channel_id,
    teamId: row.team_id,
    repository: row.repository,
    branchGlob: row.branch_glob,
    groups: JSON.parse(row.groups) as string[],
    createdBy: row.created_by,
    createdAt: new Date(row.created_at),
  };
}

function toPollCursor(row: PollCursorRow): PollCursor {
  return {
    repository: row.repository,
    receivedFrom: new Date(row.received_from),
    seenEventIds: JSON.parse(row.seen_event_ids) as number[],
    updatedAt: new Date(row.updated_at),
  };
}

function toPendingNotification(row: NotificationRow): PendingNotification {
  return {
    channelId: row.channel_id,
    eventId: row.event_id,
    repository: row.repository,
    pullRequest: row.pull_request,
    eventType: row.event_type,
    payload: JSON.parse(row.payload) as unknown,
    claimedAt: new Date(row.claimed_at),
    attempts: row.attempts,
  };
}

function toThread(row: ThreadRow): ThreadRecord {
  return {
    channelId: row.channel_id,
    repository: row.repository,
    pullRequest: row.pull_request,
    parentTs: row.parent_ts,
    state: JSON.parse(row.state) as unknown,
    updatedAt: new Date(row.updated_at),
  };
}

function toBackoff(row: BackoffRow): Backoff {
  return {
    key: row.key,
    failures: row.failures,
    nextAttemptAt: new Date(row.next_attempt_at),
    lastError: row.last_error,
  };
}
