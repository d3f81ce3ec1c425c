import { accessSync, constants, mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import SqliteDatabase from "better-sqlite3";
import { type ColumnType, type Generated, Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import type { Logger } from "../logger.js";
import { preparedOnce } from "./sqlite-statements.js";

/** Where the store lives: an SQLite file (or `:memory:`), or a PostgreSQL database. */
export type DatabaseSettings =
  | { kind: "sqlite"; path: string }
  | {
      kind: "postgres";
      url: string;
      /** Keep the tables in this schema (created if missing) instead of the connection's default. */
      schema?: string;
      /** How long to wait for a connection, and for `ping`. Default 5000 ms. */
      connectionTimeoutMs?: number;
    };

/** One database, either dialect, through one query builder. `close` is idempotent. */
export interface Database {
  readonly kind: "sqlite" | "postgres";
  readonly db: Kysely<Tables>;
  /** PostgreSQL: the schema named in the settings, if any. */
  readonly schema: string | undefined;
  /** How long `ping` waits for an answer. */
  readonly pingTimeoutMs: number;
  /**
   * SQLite: throws when the database file is no longer the one opened (deleted or replaced under the
   * process, which would go on writing to the unlinked file) or cannot be written. Otherwise does nothing.
   */
  checkFile(): void;
}

// The tables as the queries see them. Where the dialects store a value differently, the column's type
// says what a read may return; each concern's file turns it into the record's type (with the "Dialect
// values" of query-helpers.ts).

/** Written as ISO-8601 UTC text, which SQLite keeps (it sorts) and PostgreSQL parses into timestamptz. */
type Time = ColumnType<Date | string, string, string>;
type NullableTime = ColumnType<Date | string | null, string | null, string | null>;
/** Written as JSON text; PostgreSQL (jsonb) hands it back parsed, SQLite as the text. */
type Json = ColumnType<unknown, string, string>;
type NullableJson = ColumnType<unknown, string | null, string | null>;
/** A 64-bit integer: pg hands bigint back as a string (it may not fit a number), SQLite as a number. */
type Int8 = ColumnType<number | string, number, number>;
type NullableInt8 = ColumnType<number | string | null, number | null, number | null>;
/** A list of strings: text[] in PostgreSQL, JSON text in SQLite. */
type TextList = ColumnType<string[] | string, string[] | string, string[] | string>;

/** Why a repository's next read is scheduled when it is: first read, the interval, the idle period, a retry. */
export type PollCadence = "new" | "interval" | "idle" | "retry";
/** Why a read happens: its cadence, or GitHub's doorbell (an event, or the read a few seconds after it). */
export type PollReason = PollCadence | "doorbell";

export interface Tables {
  identity_links: {
    team_id: string;
    slack_user_id: string;
    github_login: string;
    github_id: Int8;
    linked_at: Time;
  };
  oauth_states: {
    state: string;
    team_id: string;
    slack_user_id: string;
    channel_id: string | null;
    response_url: string | null;
    expires_at: Time;
    /** Who signed in on GitHub, on a confirmation's state (migration 27); null on a sign-in link's. */
    github_login: string | null;
    github_id: NullableInt8;
  };
  subscriptions: {
    channel_id: string;
    repository_key: string;
    repository: string;
    team_id: string | null;
    branch_glob: string | null;
    groups: TextList;
    created_by: string;
    created_at: Time;
    digest: ColumnType<"weekly" | null, "weekly" | null | undefined, "weekly" | null>;
    digest_since: ColumnType<Date | string | null, string | null | undefined, string | null>;
  };
  webhook_deliveries: { id: string; received_at: Time };
  webhook_jobs: {
    delivery_id: string;
    kind: string;
    installation_id: Int8;
    payload: Json;
    received_at: Time;
    claimed_by: string | null;
    claimed_until: NullableTime;
    done_at: NullableTime;
  };
  /** No longer used (a channel's delivery is a work item); kept for a rolling upgrade's older replicas. */
  leases: { name: string; owner: string; expires_at: Time };
  poll_cursors: {
    repository_key: string;
    repository: string;
    received_from: Time;
    seen_event_ids: Json;
    updated_at: Time;
  };
  notifications: {
    channel_id: string;
    event_id: Int8;
    repository: string;
    pull_request: NullableInt8;
    event_type: string;
    payload: Json;
    status: "pending" | "sent";
    attempts: ColumnType<number, number | undefined, number>;
    claimed_at: Time;
    sent_at: NullableTime;
    message_ts: string | null;
    thread_ts: string | null;
    /** Where the row stands in its channel's order when not its claim (a pushed notice: its webhook). */
    order_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
    order_seq: ColumnType<number | string | null, number | null | undefined, number | null>;
    /** The replica that began posting the row (set just before its post), null while nobody has. */
    attempted_by: ColumnType<string | null, string | null | undefined, string | null>;
    /** A removal's message: 1 when it showed its failure details, 0 when not (yet); null for the others. */
    shows_details: ColumnType<number | null, number | null | undefined, number | null>;
  };
  failure_details: {
    event_id: Int8;
    repository: string;
    status: "reading" | "read" | "none";
    due_at: Time;
    claimed_by: string;
    claimed_until: Time;
    details: NullableJson;
    created_at: Time;
  };
  threads: {
    channel_id: string;
    repository_key: string;
    repository: string;
    pull_request: Int8;
    parent_ts: string;
    state: Json;
    updated_at: Time;
    /** 1: the parent does not show `state` yet (its edit is to do). */
    parent_stale: ColumnType<number, number | undefined, number>;
  };
  backoffs: { key: string; failures: number; next_attempt_at: Time; last_error: string };
  pause_attributions: {
    repository_key: string;
    repository: string;
    action: "pause" | "unpause";
    reason: string | null;
    actor: string;
    surface: "github" | "slack";
    at: Time;
    resumes_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
    /** 1: an unpause made by the schedule of a timed pause. */
    scheduled: ColumnType<number, number | undefined, number>;
  };
  scheduled_unpauses: {
    repository_key: string;
    repository: string;
    reason: string;
    resumes_at: Time;
    scheduled_by: string;
    surface: "github" | "slack";
    created_at: Time;
    claimed_by: string | null;
    claimed_until: NullableTime;
  };
  slack_signatures: { signature: string; seen_at: Time };
  slack_events: {
    event_id: string;
    received_at: Time;
    claimed_by: string | null;
    claimed_until: NullableTime;
    done_at: NullableTime;
  };
  once_claims: {
    scope: string;
    key: string;
    first_at: Time;
    claimed_by: string | null;
    claimed_until: NullableTime;
    done_at: NullableTime;
    result: NullableJson;
  };
  command_steps: { run_id: string; step: string; result: Json; done_at: Time };
  command_step_intents: { run_id: string; step: string; begun_at: Time };
  queue_events: QueueEventsTable;
  queue_requests: {
    repository_key: string;
    pull_number: number;
    login: string;
    asked_at: Time;
  };
  github_queue_pulls: {
    repository_key: string;
    repository: string;
    pull_number: number;
    base_ref: string;
    entered_at: Time;
    entry_delivery: string;
    group_sha: string | null;
    removed_by: string | null;
    removed_at: NullableTime;
    left_at: NullableTime;
  };
  digests: {
    channel_id: string;
    repository_key: string;
    week: string;
    claimed_by: string;
    claimed_at: Time;
    claimed_until: Time;
    sent_at: NullableTime;
    message_ts: string | null;
  };
  github_write_pace: {
    app: string;
    last_start_at: NullableTime;
    blocked_until: NullableTime;
    /** Ms since the epoch, oldest first. */
    content_starts: Json;
    waiting: Json;
    updated_at: Time;
  };
  summary_comments: {
    repository_key: string;
    repository: string;
    issue_number: number;
    comment_id: NullableInt8;
    claimed_by: string | null;
    claimed_until: NullableTime;
    updated_at: Time;
  };
  stats_days: { repository_key: string; day: string; facts: Json; computed_at: Time };
  relays: {
    id: string;
    repository_key: string;
    repository: string;
    pull_request: Int8;
    command_name: string;
    surface: "github" | "slack";
    relayed_at: Time;
    deadline: Time;
    relay: Json;
    presentation: NullableJson;
    answer_comment_id: NullableInt8;
    answer_body: string | null;
    answer_url: string | null;
    answer_at: NullableTime;
    answer_version: ColumnType<number, number | undefined, number>;
    applied_version: ColumnType<number, number | undefined, number>;
    superseded: ColumnType<number, number | undefined, number>;
    apply_owner: string | null;
    apply_until: NullableTime;
  };
  notice_preferences: {
    team_id: string;
    slack_user_id: string;
    /** 1: personal notices on. */
    enabled: number;
    groups: TextList;
    /** Muted repositories (`owner/repo`, as given). */
    muted: TextList;
    updated_at: Time;
  };
  /** Durable work of every kind (src/store/work-items.ts, src/work). */
  work_items: {
    kind: string;
    key: string;
    due_at: Time;
    claimed_by: string | null;
    claimed_until: NullableTime;
    started_at: NullableTime;
    attempts: ColumnType<number, number | undefined, number>;
    last_error: string | null;
    payload: Json;
  };
  poll_schedule: {
    repository_key: string;
    repository: string;
    next_poll_at: Time;
    cadence: PollCadence;
    doorbell_at: NullableTime;
    recheck_at: NullableTime;
    active_until: NullableTime;
    failures: ColumnType<number, number | undefined, number>;
    last_error: string | null;
    claimed_by: string | null;
    claimed_until: NullableTime;
    claim_reason: PollReason | null;
    last_read_at: NullableTime;
  };
  /** Freeze windows (src/store/freezes.ts). */
  freezes: {
    id: string;
    repository_key: string;
    repository: string;
    number: number;
    name: string;
    name_key: string;
    schedule: Json;
    zone: string;
    created_by: string;
    surface: "github" | "slack";
    created_at: Time;
    /** Migration 31: labels whose pull requests pass while a window holds the queue (null: none). */
    except_labels: ColumnType<unknown, string | null | undefined, string | null>;
  };
  freeze_steps: {
    freeze_id: string;
    starts_at: Time;
    step: "warn" | "start" | "end";
    repository_key: string;
    repository: string;
    ends_at: Time;
    reason: string;
    claimed_by: string;
    claimed_until: Time;
    done: ColumnType<number, number | undefined, number>;
    /** Migration 34: who made the freeze, its login and surface (null on steps made before it). */
    created_by: ColumnType<string | null, string | null | undefined, string | null>;
    surface: ColumnType<
      "github" | "slack" | null,
      "github" | "slack" | null | undefined,
      "github" | "slack" | null
    >;
  };
  /** Pull requests merged, until judged through their queue or outside it (src/store/merged-pulls.ts). */
  merged_pulls: {
    merge_key: string;
    repository_key: string;
    repository: string;
    pull_number: number;
    noted_at: Time;
    queue_merged_at: NullableTime;
    branch: string | null;
    merged_at: NullableTime;
    merged_by: string | null;
    merge_sha: string | null;
    title: string | null;
    delivery_id: string | null;
    received_at: NullableTime;
    decide_at: NullableTime;
    give_up_at: NullableTime;
    claimed_by: string | null;
    claimed_until: NullableTime;
    judged_at: NullableTime;
    verdict: string | null;
  };
  /** The queue's health episodes (src/store/health-episodes.ts). */
  health_episodes: {
    repository_key: string;
    kind: string;
    key: string;
    repository: string;
    since: Time;
    opened_at: Time;
    opened_by: string;
    facts: Json;
    posts: Json;
    last_posted_at: NullableTime;
    closed_at: NullableTime;
    ending: string | null;
  };
  /** The gate check of GitHub's merge queue (src/store/gates.ts). */
  gate_pauses: {
    repository_key: string;
    branch: string;
    repository: string;
    pause_id: string;
    reason: string;
    paused_by: string;
    paused_at: Time;
    /** Migration 31: the drain in force, a new id each time one begins (null: a pause). */
    drain_id: ColumnType<string | null, string | null | undefined, string | null>;
    /** Migration 31: the drain's author, start and the entries queued then (null: a pause). */
    drain: ColumnType<unknown, string | null | undefined, string | null>;
    /** Migration 31: when nothing queued before the drain was left (null: still draining, or a pause). */
    drained_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
    /** Migration 31: labels whose pull requests pass (null: none). */
    except_labels: ColumnType<unknown, string | null | undefined, string | null>;
  };
  /** Migration 31: pull requests an admin let through a branch's pause, and with which others. */
  gate_passes: {
    repository_key: string;
    branch: string;
    pause_id: string;
    pull_number: number;
    pass_id: string;
    pulls: Json;
    passed_by: string;
    passed_at: Time;
  };
  gate_checks: {
    repository_key: string;
    head_sha: string;
    check_name: string;
    repository: string;
    branch: string;
    kind: "group" | "pull";
    pull_number: number;
    position: number;
    check_run_id: NullableInt8;
    state: "claimed" | "queued" | "success";
    claimed_by: string;
    created_at: Time;
    completed_at: NullableTime;
    /**
     * Migration 20: when the claim was last taken (null: at `created_at`). Since migration 43 the claims,
     * completions and retries are work items (kinds `gate-check`, `gate-complete`): this column,
     * `completing_at`, `attempts` and `retry_at` are kept for a rolling upgrade's older replicas.
     */
    claimed_at: NullableTime;
    /** Migration 20: when a held gate's completion was claimed (null: not being completed). */
    completing_at: NullableTime;
    /** Migration 24: how often GitHub refused its check run or completion (the backoff's count). */
    attempts: Generated<number>;
    /** Migration 24: a refused check run or completion is made again no sooner than this. */
    retry_at: NullableTime;
    /** Migration 31: 1 while a held gate waits to be decided again (GitHub could not be read). */
    reconsider: ColumnType<number, number | undefined, number>;
  };
  gate_holds: {
    repository_key: string;
    branch: string;
    pause_id: string;
    pull_number: number;
    pull_head_sha: string;
    position: number;
    held_at: Time;
    timed_out: ColumnType<number, number | undefined, number>;
  };
  /** The flake shield (src/store/flake-shield.ts). */
  flake_shields: {
    repository_key: string;
    repository: string;
    /** 1: on. */
    enabled: number;
    changed_by: string;
    surface: "github" | "slack";
    changed_at: Time;
  };
  shield_retries: {
    repository_key: string;
    repository: string;
    pull_number: number;
    entry_key: string;
    left_event_id: Int8;
    left_at: Time;
    check_name: string;
    claimed_by: string;
    claimed_at: Time;
    outcome: "pending" | "requeued" | "failed" | "skipped";
    detail: string | null;
    decided_at: NullableTime;
  };
}

const BUSY_TIMEOUT_MS = 5000;
const CONNECTION_TIMEOUT_MS = 5000;
const POOL_SIZE = 10;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Opens the database (no query is run yet for PostgreSQL; the migrations are the first). */
export function openDatabase(settings: DatabaseSettings, logger?: Logger): Database {
  return settings.kind === "sqlite" ? openSqlite(settings.path, logger) : openPostgres(settings, logger);
}

/**
 * An SQLite file (its directory created) or `:memory:`: WAL, so that readers do not wait for the
 * writer; `busy_timeout`, so that a second process waits for the write lock instead of failing; foreign
 * keys on, which SQLite leaves off by default.
 */
function openSqlite(path: string, logger?: Logger): Database {
  const inMemory = path === ":memory:" || path === "";
  const file = inMemory || path.startsWith("file:") ? undefined : resolve(path);
  if (file) mkdirSync(dirname(file), { recursive: true });
  const sqlite = new SqliteDatabase(path);
  let checkFile = () => {};
  try {
    if (file) {
      const opened = statSync(file);
      checkFile = () => {
        const now = statSync(file);
        if (now.ino !== opened.ino || now.dev !== opened.dev) {
          throw new Error(`${file} is not the file that was opened`);
        }
        accessSync(file, constants.W_OK);
      };
    }
    sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const mode = sqlite.pragma("journal_mode = WAL", { simple: true });
    if (!inMemory && String(mode).toLowerCase() !== "wal") {
      logger?.warn({ journalMode: mode }, "SQLite did not switch to WAL journal mode");
    }
    sqlite.pragma("synchronous = NORMAL");
    sqlite.pragma("foreign_keys = ON");
  } catch (error) {
    sqlite.close();
    throw error;
  }
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: preparedOnce(sqlite) }) });
  return { kind: "sqlite", db, schema: undefined, pingTimeoutMs: BUSY_TIMEOUT_MS, checkFile };
}

function openPostgres(settings: Extract<DatabaseSettings, { kind: "postgres" }>, logger?: Logger): Database {
  const { schema } = settings;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new Error(
      `Invalid PostgreSQL schema name ${JSON.stringify(schema)}: use lower-case letters, digits and "_"`,
    );
  }
  const timeout = settings.connectionTimeoutMs ?? CONNECTION_TIMEOUT_MS;
  const pool = new pg.Pool(poolConfig(settings.url, schema, timeout));
  pool.on("error", (err) => logger?.warn({ err }, "idle PostgreSQL connection failed"));
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  return { kind: "postgres", db, schema, pingTimeoutMs: timeout, checkFile: () => {} };
}

function poolConfig(url: string, schema: string | undefined, timeoutMs: number): pg.PoolConfig {
  const config: pg.PoolConfig = {
    connectionString: url,
    max: POOL_SIZE,
    connectionTimeoutMillis: timeoutMs,
    application_name: "yardmaster",
  };
  if (schema !== undefined) {
    // A startup parameter, so that every connection of the pool uses the schema from its first query.
    // Options in the URL would replace ours (pg lets the URL win), so fold them together.
    const searchPath = `-c search_path=${schema}`;
    config.options = searchPath;
    try {
      const parsed = new URL(url);
      const existing = parsed.searchParams.get("options");
      if (existing !== null) {
        parsed.searchParams.delete("options");
        config.connectionString = parsed.toString();
        config.options = `${existing} ${searchPath}`;
      }
    } catch {
      // Not a WHATWG-parsable URL: leave it to pg.
    }
  }
  return config;
}

/**
 * Runs `work` in one transaction on one connection, committed if it resolves, rolled back if it throws.
 * SQLite's starts IMMEDIATE, taking the write lock at once: a transaction that reads before it writes
 * could otherwise fail with SQLITE_BUSY when another process wrote in between, instead of waiting.
 */
export async function inTransaction<T>(
  database: Database,
  work: (tx: Kysely<Tables>) => Promise<T>,
): Promise<T> {
  return database.db.connection().execute(async (tx) => {
    await sql.raw(database.kind === "sqlite" ? "begin immediate" : "begin").execute(tx);
    try {
      const result = await work(tx);
      await sql.raw("commit").execute(tx);
      return result;
    } catch (error) {
      await sql
        .raw("rollback")
        .execute(tx)
        .catch(() => {});
      throw error;
    }
  });
}

/** The table as the queries see it (database.ts's Tables has it): times and JSON as the store writes them. */
export interface QueueEventsTable {
  event_key: string;
  repository_key: string;
  repository: string;
  branch: string | null;
  pull_request: ColumnType<number | string | null, number | null, number | null>;
  kind: string;
  at: ColumnType<Date | string, string, string>;
  /** JSON text; PostgreSQL (jsonb) hands it back parsed, SQLite as the text. */
  event: ColumnType<unknown, string, string>;
  recorded_at: ColumnType<Date | string, string, string>;
}
