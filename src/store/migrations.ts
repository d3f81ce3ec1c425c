/**
 * Schema migrations, numbered and ordered, one SQL script per dialect. Each store applies the ones not yet
 * recorded in `schema_migrations` when it opens. Never edit a released migration: add the next one.
 *
 * Conventions: times are ISO-8601 UTC strings in SQLite (`Date#toISOString`, so they sort as text) and
 * `timestamptz` in PostgreSQL; JSON is text in SQLite and `jsonb` in PostgreSQL; `*_key` columns hold the
 * lower-case repository name that uniqueness and lookups use, next to the name as given.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sqlite: string;
  readonly postgres: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "initial",
    sqlite: `
      CREATE TABLE identity_links (
        team_id       TEXT NOT NULL,
        slack_user_id TEXT NOT NULL,
        github_login  TEXT NOT NULL,
        github_id     INTEGER NOT NULL,
        linked_at     TEXT NOT NULL,
        PRIMARY KEY (team_id, slack_user_id)
      );

      CREATE TABLE oauth_states (
        state         TEXT PRIMARY KEY,
        team_id       TEXT NOT NULL,
        slack_user_id TEXT NOT NULL,
        channel_id    TEXT,
        response_url  TEXT,
        expires_at    TEXT NOT NULL
      );
      CREATE INDEX oauth_states_expires_at ON oauth_states (expires_at);

      CREATE TABLE subscriptions (
        channel_id     TEXT NOT NULL,
        repository_key TEXT NOT NULL,
        repository     TEXT NOT NULL,
        team_id        TEXT,
        branch_glob    TEXT,
        groups         TEXT NOT NULL,
        created_by     TEXT NOT NULL,
        created_at     TEXT NOT NULL,
        PRIMARY KEY (channel_id, repository_key)
      );
      CREATE INDEX subscriptions_repository_key ON subscriptions (repository_key, channel_id);

      CREATE TABLE webhook_deliveries (
        id          TEXT PRIMARY KEY,
        received_at TEXT NOT NULL
      );
      CREATE INDEX webhook_deliveries_received_at ON webhook_deliveries (received_at);

      CREATE TABLE leases (
        name       TEXT PRIMARY KEY,
        owner      TEXT NOT NULL,
        expires_at TEXT NOT NULL
      );

      CREATE TABLE poll_cursors (
        repository_key TEXT PRIMARY KEY,
        repository     TEXT NOT NULL,
        received_from  TEXT NOT NULL,
        seen_event_ids TEXT NOT NULL,
        updated_at     TEXT NOT NULL
      );

      CREATE TABLE notifications (
        channel_id   TEXT NOT NULL,
        event_id     INTEGER NOT NULL,
        repository   TEXT NOT NULL,
        pull_request INTEGER,
        event_type   TEXT NOT NULL,
        payload      TEXT NOT NULL,
        status       TEXT NOT NULL CHECK (status IN ('pending', 'sent')),
        attempts     INTEGER NOT NULL DEFAULT 1,
        claimed_at   TEXT NOT NULL,
        sent_at      TEXT,
        message_ts   TEXT,
        thread_ts    TEXT,
        PRIMARY KEY (channel_id, event_id)
      );
      CREATE INDEX notifications_pending ON notifications (claimed_at) WHERE status = 'pending';
      CREATE INDEX notifications_sent ON notifications (sent_at) WHERE status = 'sent';

      CREATE TABLE threads (
        channel_id     TEXT NOT NULL,
        repository_key TEXT NOT NULL,
        repository     TEXT NOT NULL,
        pull_request   INTEGER NOT NULL,
        parent_ts      TEXT NOT NULL,
        state          TEXT NOT NULL,
        updated_at     TEXT NOT NULL,
        PRIMARY KEY (channel_id, repository_key, pull_request)
      );

      CREATE TABLE backoffs (
        key             TEXT PRIMARY KEY,
        failures        INTEGER NOT NULL,
        next_attempt_at TEXT NOT NULL,
        last_error      TEXT NOT NULL
      );
    `,
    postgres: `
      CREATE TABLE identity_links (
        team_id       text NOT NULL,
        slack_user_id text NOT NULL,
        github_login  text NOT NULL,
        github_id     bigint NOT NULL,
        linked_at     timestamptz NOT NULL,
        PRIMARY KEY (team_id, slack_user_id)
      );

      CREATE TABLE oauth_states (
        state         text PRIMARY KEY,
        team_id       text NOT NULL,
        slack_user_id text NOT NULL,
        channel_id    text,
        response_url  text,
        expires_at    timestamptz NOT NULL
      );
      CREATE INDEX oauth_states_expires_at ON oauth_states (expires_at);

      CREATE TABLE subscriptions (
        channel_id     text NOT NULL,
        repository_key text NOT NULL,
        repository     text NOT NULL,
        team_id        text,
        branch_glob    text,
        groups         text[] NOT NULL,
        created_by     text NOT NULL,
        created_at     timestamptz NOT NULL,
        PRIMARY KEY (channel_id, repository_key)
      );
      CREATE INDEX subscriptions_repository_key ON subscriptions (repository_key, channel_id);

      CREATE TABLE webhook_deliveries (
        id          text PRIMARY KEY,
        received_at timestamptz NOT NULL
      );
      CREATE INDEX webhook_deliveries_received_at ON webhook_deliveries (received_at);

      CREATE TABLE leases (
        name       text PRIMARY KEY,
        owner      text NOT NULL,
        expires_at timestamptz NOT NULL
      );

      CREATE TABLE poll_cursors (
        repository_key text PRIMARY KEY,
        repository     text NOT NULL,
        received_from  timestamptz NOT NULL,
        seen_event_ids jsonb NOT NULL,
        updated_at     timestamptz NOT NULL
      );

      CREATE TABLE notifications (
        channel_id   text NOT NULL,
        event_id     bigint NOT NULL,
        repository   text NOT NULL,
        pull_request bigint,
        event_type   text NOT NULL,
        payload      jsonb NOT NULL,
        status       text NOT NULL CHECK (status IN ('pending', 'sent')),
        attempts     integer NOT NULL DEFAULT 1,
        claimed_at   timestamptz NOT NULL,
        sent_at      timestamptz,
        message_ts   text,
        thread_ts    text,
        PRIMARY KEY (channel_id, event_id)
      );
      CREATE INDEX notifications_pending ON notifications (claimed_at) WHERE status = 'pending';
      CREATE INDEX notifications_sent ON notifications (sent_at) WHERE status = 'sent';

      CREATE TABLE threads (
        channel_id     text NOT NULL,
        repository_key text NOT NULL,
        repository     text NOT NULL,
        pull_request   bigint NOT NULL,
        parent_ts      text NOT NULL,
        state          jsonb NOT NULL,
        updated_at     timestamptz NOT NULL,
        PRIMARY KEY (channel_id, repository_key, pull_request)
      );

      CREATE TABLE backoffs (
        key             text PRIMARY KEY,
        failures        integer NOT NULL,
        next_attempt_at timestamptz NOT NULL,
        last_error      text NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: "pause attributions",
    sqlite: `
      CREATE TABLE pause_attributions (
        repository_key TEXT PRIMARY KEY,
        repository     TEXT NOT NULL,
        action         TEXT NOT NULL CHECK (action IN ('pause', 'unpause')),
        reason         TEXT,
        actor          TEXT NOT NULL,
        surface        TEXT NOT NULL,
        at             TEXT NOT NULL
      );
    `,
    postgres: `
      CREATE TABLE pause_attributions (
        repository_key text PRIMARY KEY,
        repository     text NOT NULL,
        action         text NOT NULL CHECK (action IN ('pause', 'unpause')),
        reason         text,
        actor          text NOT NULL,
        surface        text NOT NULL,
        at             timestamptz NOT NULL
      );
    `,
  },
];

/** The highest migration version this build knows. */
export const LATEST_SCHEMA_VERSION: number = MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0);

/** Throws unless versions are positive, unique and strictly increasing (a programming error). */
export function checkMigrations(migrations: readonly Migration[]): void {
  let previous = 0;
  for (const m of migrations) {
    if (!Number.isInteger(m.version) || m.version <= previous) {
      throw new Error(
        `Migrations must be numbered in strictly increasing order: ${m.version} after ${previous}`,
      );
    }
    previous = m.version;
  }
}
