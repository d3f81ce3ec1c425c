import pg from "pg";
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

export interface PostgresStoreOptions {
  /** A `postgres://` connection URL. */
  url: string;
  /**
   * The schema to keep the tables in (created if missing; set as the connections' `search_path`).
   * Lower-case letters, digits and `_`. Default: the connection's own search_path (usually `public`).
   */
  schema?: string;
  logger?: Logger;
  /** Pool size. Default 10. */
  maxConnections?: number;
  /** How long to wait for a connection (and for `ping`). Default 5000 ms. */
  connectionTimeoutMs?: number;
  /** For tests only: the migrations to apply instead of the built-in ones. */
  migrations?: readonly Migration[];
}

/** First key of the two-key advisory lock that serialises migrations ("YmSt"); the second is the schema's hash. */
export const MIGRATION_LOCK_CLASS = 0x596d5374;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

interface LinkRow {
  team_id: string;
  slack_user_id: string;
  github_login: string;
  github_id: string;
  linked_at: Date;
}
interface OAuthStateRow {
  state: string;
  team_id: string;
  slack_user_id: string;
  channel_id: string | null;
  response_url: string | null;
  expires_at: Date;
}
interface SubscriptionRow {
  channel_id: string;
  repository: string;
  team_id: string | null;
  branch_glob: string | null;
  groups: string[];
  created_by: string;
  created_at: Date;
}
interface PollCursorRow {
  repository: string;
  received_from: Date;
  seen_event_ids: number[];
  updated_at: Date;
}
interface NotificationRow {
  channel_id: string;
  event_id: string;
  repository: string;
  pull_request: string | null;
  event_type: string;
  payload: unknown;
  attempts: number;
  claimed_at: Date;
}
interface ThreadRow {
  channel_id: string;
  repository: string;
  pull_request: string;
  parent_ts: string;
  state: unknown;
  updated_at: Date;
}
interface PauseAttributionRow {
  repository: string;
  action: "pause" | "unpause";
  reason: string | null;
  actor: string;
  surface: "github" | "slack";
  at: Date;
}
interface BackoffRow {
  key: string;
  failures: number;
  next_attempt_at: Date;
  last_error: string;
}

/**
 * Connects to PostgreSQL and applies the pending migrations (under an advisory lock, so replicas starting
 * at once take turns). Fails if the database cannot be reached.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const { logger, schema } = options;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new Error(
      `Invalid PostgreSQL schema name ${JSON.stringify(schema)}: use lower-case letters, digits and "_"`,
    );
  }
  const pool = new pg.Pool(poolConfig(options));
  pool.on("error", (err) => logger?.warn({ err }, "idle PostgreSQL connection failed"));
  try {
    const applied = await migratePostgres(pool, { schema, migrations: options.migrations });
    if (applied.length > 0) {
      logger?.info({ store: "postgres", schema, versions: applied }, "applied store migrations");
    }
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
  return new PostgresStore(pool, options.connectionTimeoutMs ?? 5000);
}

function poolConfig(options: PostgresStoreOptions): pg.PoolConfig {
  const config: pg.PoolConfig = {
    connectionString: options.url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 5000,
    application_name: "yardmaster",
  };
  if (options.schema !== undefined) {
    // A startup parameter, so that every connection of the pool uses the schema from its first query.
    // Options in the URL would replace ours (pg lets the URL win), so fold them together.
    const searchPath = `-c search_path=${options.schema}`;
    config.options = searchPath;
    try {
      const url = new URL(options.url);
      const existing = url.searchParams.get("options");
      if (existing !== null) {
        url.searchParams.delete("options");
        config.connectionString = url.toString();
        config.options = `${existing} ${searchPath}`;
      }
    } catch {
      // Not a WHATWG-parsable URL: leave it to pg.
    }
  }
  return config;
}

/**
 * Applies the migrations not yet recorded in `schema_migrations`, in order, in one transaction holding
 * a transaction-scoped advisory lock keyed on the schema: a second replica waits, then finds nothing to
 * do. Creates the schema first when one is named. Returns the versions applied.
 */
export async function migratePostgres(
  pool: pg.Pool,
  options: { schema?: string | undefined; migrations?: readonly Migration[] | undefined } = {},
): Promise<number[]> {
  const migrations = options.migrations ?? MIGRATIONS;
  checkMigrations(migrations);
  const client = await pool.connect();
  let failed = false;
  try {
    await client.query("BEGIN");
    await client.query(
      "SELECT pg_advisory_xact_lock($1, hashtext(coalesce($2::text, current_schema(), '')))",
      [MIGRATION_LOCK_CLASS, options.schema ?? null],
    );
    if (options.schema !== undefined) {
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${options.schema}"`);
    }
    await client.query(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    const { rows } = await client.query<{ version: number }>("SELECT version FROM schema_migrations");
    const applied = new Set(rows.map((r) => r.version));
    const done: number[] = [];
    for (const m of migrations) {
      if (applied.has(m.version)) continue;
      await client.query(m.postgres);
      await client.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [
        m.version,
        m.name,
      ]);
      done.push(m.version);
    }
    await client.query("COMMIT");
    return done;
  } catch (error) {
    failed = true;
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    // A connection whose transaction failed oddly is not handed back to the pool.
    client.release(failed);
  }
}

export class PostgresStore implements Store {
  readonly kind = "postgres" as const;
  #closed = false;
  #lastDeliveryPrune: number | undefined;
  #lastOAuthStatePrune: number | undefined;
  #lastNotificationPrune: number | undefined;

  /** Use `openPostgresStore` (or `openStore`), which migrates the database first. */
  constructor(
    private readonly pool: pg.Pool,
    private readonly pingTimeoutMs = 5000,
  ) {}

  async ping(): Promise<boolean> {
    if (this.#closed) return false;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), this.pingTimeoutMs);
    });
    try {
      const query = this.pool.query("SELECT 1 AS ok").then(
        (r) => r.rowCount === 1,
        () => false,
      );
      return await Promise.race([query, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.pool.end();
  }

  // Identity links

  async getLink(teamId: string, slackUserId: string): Promise<IdentityLink | null> {
    const { rows } = await this.pool.query<LinkRow>(
      "SELECT * FROM identity_links WHERE team_id = $1 AND slack_user_id = $2",
      [teamId, slackUserId],
    );
    return rows[0] ? toLink(rows[0]) : null;
  }

  async putLink(link: IdentityLink): Promise<void> {
    await this.pool.query(
      `INSERT INTO identity_links (team_id, slack_user_id, github_login, github_id, linked_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (team_id, slack_user_id) DO UPDATE SET
         github_login = excluded.github_login, github_id = excluded.github_id, linked_at = excluded.linked_at`,
      [link.teamId, link.slackUserId, link.githubLogin, link.githubId, time(link.linkedAt)],
    );
  }

  async deleteLink(teamId: string, slackUserId: string): Promise<boolean> {
    const r = await this.pool.query("DELETE FROM identity_links WHERE team_id = $1 AND slack_user_id = $2", [
      teamId,
      slackUserId,
    ]);
    return (r.rowCount ?? 0) > 0;
  }

  // OAuth states

  async createOAuthState(state: OAuthState): Promise<void> {
    await this.pool.query(
      `INSERT INTO oauth_states (state, team_id, slack_user_id, channel_id, response_url, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [
        state.state,
        state.teamId,
        state.slackUserId,
        state.channelId,
        state.responseUrl,
        time(state.expiresAt),
      ],
    );
  }

  async consumeOAuthState(state: string, now: Date): Promise<OAuthState | null> {
    const { rows } = await this.pool.query<OAuthStateRow>(
      "DELETE FROM oauth_states WHERE state = $1 RETURNING *",
      [state],
    );
    if (due(this.#lastOAuthStatePrune, now)) {
      this.#lastOAuthStatePrune = now.getTime();
      // Its own statement, skipping rows another transaction holds: never waits, so never deadlocks.
      await this.pool.query(
        `DELETE FROM oauth_states WHERE state IN
           (SELECT state FROM oauth_states WHERE expires_at <= $1 FOR UPDATE SKIP LOCKED)`,
        [time(now)],
      );
    }
    const row = rows[0];
    if (!row || row.expires_at.getTime() <= now.getTime()) return null;
    return toOAuthState(row);
  }

  // Subscriptions

  async putSubscription(sub: Subscription): Promise<{ created: boolean }> {
    const { rows } = await this.pool.query<{ created: boolean }>(
      `INSERT INTO subscriptions
         (channel_id, repository_key, repository, team_id, branch_glob, groups, created_by, created_at)
       VALUES ($1, $2, $3, $4, $5, $6::text[], $7, $8)
       ON CONFLICT (channel_id, repository_key) DO UPDATE SET
         repository = excluded.repository, team_id = coalesce(excluded.team_id, subscriptions.team_id),
         branch_glob = excluded.branch_glob, groups = excluded.groups
       RETURNING (xmax = 0) AS created`,
      [
        sub.channelId,
        repositoryKey(sub.repository),
        sub.repository,
        sub.teamId,
        sub.branchGlob,
        sub.groups,
        sub.createdBy,
        time(sub.createdAt),
      ],
    );
    return { created: rows[0]?.created === true };
  }

  async deleteSubscription(channelId: string, repository: string): Promise<boolean> {
    const r = await this.pool.query(
      "DELETE FROM subscriptions WHERE channel_id = $1 AND repository_key = $2",
      [channelId, repositoryKey(repository)],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async listSubscriptions(filter: { channelId?: string; repository?: string } = {}): Promise<Subscription[]> {
    const { rows } = await this.pool.query<SubscriptionRow>(
      `SELECT * FROM subscriptions
       WHERE ($1::text IS NULL OR channel_id = $1) AND ($2::text IS NULL OR repository_key = $2)
       ORDER BY repository_key COLLATE "C", channel_id COLLATE "C"`,
      [filter.channelId ?? null, filter.repository === undefined ? null : repositoryKey(filter.repository)],
    );
    return rows.map(toSubscription);
  }

  async listSubscribedRepositories(): Promise<string[]> {
    const { rows } = await this.pool.query<{ repository: string }>(
      `SELECT min(repository COLLATE "C") AS repository FROM subscriptions
       GROUP BY repository_key ORDER BY repository_key COLLATE "C"`,
    );
    return rows.map((r) => r.repository);
  }

  // Webhook deliveries

  async claimDelivery(id: string, now: Date): Promise<boolean> {
    if (due(this.#lastDeliveryPrune, now)) {
      this.#lastDeliveryPrune = now.getTime();
      await this.pool.query("DELETE FROM webhook_deliveries WHERE received_at < $1", [
        new Date(now.getTime() - DELIVERY_RETENTION_MS),
      ]);
    }
    const r = await this.pool.query(
      "INSERT INTO webhook_deliveries (id, received_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING",
      [id, time(now)],
    );
    return (r.rowCount ?? 0) > 0;
  }

  // Leases

  async tryAcquireLease(name: string, owner: string, now: Date, ttlMs: number): Promise<boolean> {
    const r = await this.pool.query(
      `INSERT INTO leases (name, owner, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
       WHERE leases.owner = excluded.owner OR leases.expires_at <= $4`,
      [name, owner, new Date(time(now).getTime() + ttlMs), now],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    await this.pool.query("DELETE FROM leases WHERE name = $1 AND owner = $2", [name, owner]);
  }

  // Poll cursors

  async getPollCursor(repository: string): Promise<PollCursor | null> {
    const { rows } = await this.pool.query<PollCursorRow>(
      "SELECT * FROM poll_cursors WHERE repository_key = $1",
      [repositoryKey(repository)],
    );
    return rows[0] ? toPollCursor(rows[0]) : null;
  }

  async putPollCursor(cursor: PollCursor): Promise<void> {
    await this.pool.query(
      `INSERT INTO poll_cursors (repository_key, repository, received_from, seen_event_ids, updated_at)
       VALUES ($1, $2, $3, $4::jsonb, $5)
       ON CONFLICT (repository_key) DO UPDATE SET
         repository = excluded.repository, received_from = excluded.received_from,
         seen_event_ids = excluded.seen_event_ids, updated_at = excluded.updated_at`,
      [
        repositoryKey(cursor.repository),
        cursor.repository,
        time(cursor.receivedFrom),
        json(cursor.seenEventIds),
        time(cursor.updatedAt),
      ],
    );
  }

  // Notification outbox

  async claimNotification(n: NotificationClaim): Promise<"claimed" | "pending" | "sent"> {
    // The conflict arm only touches a pending row; no row back means the existing one was sent
    // (sent rows are never deleted by a release, and a row deleted meanwhile makes PostgreSQL retry the insert).
    const { rows } = await this.pool.query<{ inserted: boolean }>(
      `INSERT INTO notifications
         (channel_id, event_id, repository, pull_request, event_type, payload, status, attempts, claimed_at)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, 'pending', 1, $7)
       ON CONFLICT (channel_id, event_id) DO UPDATE SET attempts = notifications.attempts + 1
       WHERE notifications.status = 'pending'
       RETURNING (xmax = 0) AS inserted`,
      [n.channelId, n.eventId, n.repository, n.pullRequest, n.eventType, json(n.payload), time(n.claimedAt)],
    );
    const row = rows[0];
    if (!row) return "sent";
    return row.inserted ? "claimed" : "pending";
  }

  async markNotificationSent(
    channelId: string,
    eventId: number,
    message: { ts: string; threadTs: string | null },
    now: Date,
  ): Promise<void> {
    await this.pool.query(
      `UPDATE notifications SET status = 'sent', message_ts = $3, thread_ts = $4, sent_at = $5
       WHERE channel_id = $1 AND event_id = $2`,
      [channelId, eventId, message.ts, message.threadTs, time(now)],
    );
    if (due(this.#lastNotificationPrune, now)) {
      this.#lastNotificationPrune = now.getTime();
      await this.pool.query("DELETE FROM notifications WHERE status = 'sent' AND sent_at < $1", [
        new Date(now.getTime() - SENT_NOTIFICATION_RETENTION_MS),
      ]);
    }
  }

  async releaseNotification(channelId: string, eventId: number): Promise<void> {
    await this.pool.query(
      "DELETE FROM notifications WHERE channel_id = $1 AND event_id = $2 AND status = 'pending'",
      [channelId, eventId],
    );
  }

  async listPendingNotifications(olderThan: Date, limit: number): Promise<PendingNotification[]> {
    const { rows } = await this.pool.query<NotificationRow>(
      `SELECT * FROM notifications
       WHERE status = 'pending' AND claimed_at < $1
       ORDER BY claimed_at, channel_id COLLATE "C", event_id
       LIMIT $2`,
      [time(olderThan), Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : null],
    );
    return rows.map(toPendingNotification);
  }

  // Threads

  async getThread(channelId: string, repository: string, pullRequest: number): Promise<ThreadRecord | null> {
    const { rows } = await this.pool.query<ThreadRow>(
      "SELECT * FROM threads WHERE channel_id = $1 AND repository_key = $2 AND pull_request = $3",
      [channelId, repositoryKey(repository), pullRequest],
    );
    return rows[0] ? toThread(rows[0]) : null;
  }

  async putThread(thread: ThreadRecord): Promise<void> {
    await this.pool.query(
      `INSERT INTO threads (channel_id, repository_key, repository, pull_request, parent_ts, state, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7)
       ON CONFLICT (channel_id, repository_key, pull_request) DO UPDATE SET
         repository = excluded.repository, parent_ts = excluded.parent_ts,
         state = excluded.state, updated_at = excluded.updated_at`,
      [
        thread.channelId,
        repositoryKey(thread.repository),
        thread.repository,
        thread.pullRequest,
        thread.parentTs,
        json(thread.state),
        time(thread.updatedAt),
      ],
    );
  }

  // Backoff

  async getBackoff(key: string): Promise<Backoff | null> {
    const { rows } = await this.pool.query<BackoffRow>("SELECT * FROM backoffs WHERE key = $1", [key]);
    return rows[0] ? toBackoff(rows[0]) : null;
  }

  async putBackoff(backoff: Backoff): Promise<void> {
    await this.pool.query(
      `INSERT INTO backoffs (key, failures, next_attempt_at, last_error) VALUES ($1, $2, $3, $4)
       ON CONFLICT (key) DO UPDATE SET
         failures = excluded.failures, next_attempt_at = excluded.next_attempt_at, last_error = excluded.last_error`,
      [backoff.key, backoff.failures, time(backoff.nextAttemptAt), backoff.lastError],
    );
  }

  async clearBackoff(key: string): Promise<void> {
    await this.pool.query("DELETE FROM backoffs WHERE key = $1", [key]);
  }

  // Pause attributions

  async putPauseAttribution(a: PauseAttribution): Promise<void> {
    await this.pool.query(
      `INSERT INTO pause_attributions (repository_key, repository, action, reason, actor, surface, at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (repository_key) DO UPDATE SET
         repository = excluded.repository, action = excluded.action, reason = excluded.reason,
         actor = excluded.actor, surface = excluded.surface, at = excluded.at`,
      [repositoryKey(a.repository), a.repository, a.action, a.reason, a.actor, a.surface, time(a.at)],
    );
  }

  async getPauseAttribution(repository: string): Promise<PauseAttribution | null> {
    const { rows } = await this.pool.query<PauseAttributionRow>(
      "SELECT * FROM pause_attributions WHERE repository_key = $1",
      [repositoryKey(repository)],
    );
    return rows[0] ? toPauseAttribution(rows[0], rows[0].at) : null;
  }
}

/** Refuses an invalid Date (pg would send "Invalid Date" and fail less clearly). */
function time(date: Date): Date {
  if (Number.isNaN(date.getTime())) throw new RangeError("Invalid time value");
  return date;
}

function json(value: unknown): string {
  return JSON.stringify(value ?? null);
}

function due(last: number | undefined, now: Date): boolean {
  return last === undefined || now.getTime() - last >= PRUNE_INTERVAL_MS;
}

function toLink(row: LinkRow): IdentityLink {
  return {
    teamId: row.team_id,
    slackUserId: row.slack_user_id,
    githubLogin: row.github_login,
    githubId: Number(row.github_id),
    linkedAt: row.linked_at,
  };
}

function toOAuthState(row: OAuthStateRow): OAuthState {
  return {
    state: row.state,
    teamId: row.team_id,
    slackUserId: row.slack_user_id,
    channelId: row.channel_id,
    responseUrl: row.response_url,
    expiresAt: row.expires_at,
  };
}

function toSubscription(row: SubscriptionRow): Subscription {
  return {
    channelId: row.channel_id,
    teamId: row.team_id,
    repository: row.repository,
    branchGlob: row.branch_glob,
    groups: row.groups,
    createdBy: row.created_by,
    createdAt: row.created_at,
  };
}

function toPollCursor(row: PollCursorRow): PollCursor {
  return {
    repository: row.repository,
    receivedFrom: row.received_from,
    seenEventIds: row.seen_event_ids,
    updatedAt: row.updated_at,
  };
}

function toPendingNotification(row: NotificationRow): PendingNotification {
  return {
    channelId: row.channel_id,
    eventId: Number(row.event_id),
    repository: row.repository,
    pullRequest: row.pull_request === null ? null : Number(row.pull_request),
    eventType: row.event_type,
    payload: row.payload,
    claimedAt: row.claimed_at,
    attempts: row.attempts,
  };
}

function toThread(row: ThreadRow): ThreadRecord {
  return {
    channelId: row.channel_id,
    repository: row.repository,
    pullRequest: Number(row.pull_request),
    parentTs: row.parent_ts,
    state: row.state,
    updatedAt: row.updated_at,
  };
}

function toBackoff(row: BackoffRow): Backoff {
  return {
    key: row.key,
    failures: row.failures,
    nextAttemptAt: row.next_attempt_at,
    lastError: row.last_error,
  };
}
