import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { Repo } from "../../src/repo.js";
import { claimSignaturesOnce } from "../../src/slack/request-verification.js";
import {
  kyselyStore,
  LATEST_SCHEMA_VERSION,
  MIGRATIONS,
  type Migration,
  openDatabase,
  openStore,
  type Store,
} from "../../src/store/index.js";
import { PG_URL } from "../helpers/postgres.js";

// PostgreSQL-specific behaviour. Each test works in its own fresh schema, dropped afterwards.

const T0 = new Date("2025-03-01T12:00:00.000Z");
/** A once-claim of `owner`'s at `now`, held a minute, remembered a week. */
const once = (owner: string, now: Date) => ({
  owner,
  now,
  until: new Date(now.getTime() + 60_000),
  keepMs: 7 * 24 * 60 * 60 * 1000,
});

function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      callback();
    },
  });
  return { logger: createLogger({ level: "info" }, destination), lines };
}

describe("the store on PostgreSQL", () => {
  let admin: pg.Client;
  const stores: Store[] = [];
  const schemas: string[] = [];

  let unreachable: Error | undefined;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5000 });
    try {
      await admin.connect();
    } catch (error) {
      const e = error as { code?: string; message?: string };
      unreachable = new Error(
        `PostgreSQL is not reachable at ${PG_URL.replace(/:[^:@/]*@/, ":***@")} (${e.code ?? e.message}). ` +
          "The PostgreSQL store tests need it (CI provides one): start PostgreSQL or set TEST_DATABASE_URL.",
      );
    }
  });
  // Thrown from each test's setup, so that every PostgreSQL test fails (none is skipped).
  beforeEach(() => {
    if (unreachable) throw unreachable;
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const schema of schemas.splice(0)) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });
  afterAll(async () => {
    if (!unreachable) await admin.end();
  });

  function freshSchema(): string {
    const schema = `ym_test_${randomBytes(6).toString("hex")}`;
    schemas.push(schema);
    return schema;
  }

  async function open(
    schema: string,
    logger?: ReturnType<typeof createLogger>,
    url = PG_URL,
  ): Promise<Store> {
    const store = await openStore({ kind: "postgres", url, schema }, logger);
    stores.push(store);
    return store;
  }

  async function migrationRows(schema: string): Promise<{ version: number; name: string }[]> {
    const { rows } = await admin.query<{ version: number; name: string }>(
      `SELECT version, name FROM "${schema}".schema_migrations ORDER BY version`,
    );
    return rows;
  }

  async function tablesIn(schema: string): Promise<string[]> {
    const { rows } = await admin.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
      [schema],
    );
    return rows.map((r) => r.table_name);
  }

  const expectedTables = [
    "backoffs",
    "command_step_intents",
    "command_steps",
    "digests",
    "failure_details",
    "flake_shields",
    "freeze_steps",
    "freezes",
    "gate_checks",
    "gate_holds",
    "gate_passes",
    "gate_pauses",
    "github_queue_pulls",
    "github_write_pace",
    "health_episodes",
    "identity_links",
    "leases",
    "merged_pulls",
    "notice_preferences",
    "notifications",
    "oauth_states",
    "once_claims",
    "pause_attributions",
    "poll_cursors",
    "poll_schedule",
    "queue_events",
    "queue_requests",
    "relays",
    "scheduled_unpauses",
    "schema_migrations",
    "shield_retries",
    "slack_events",
    "slack_signatures",
    "stats_days",
    "subscriptions",
    "summary_comments",
    "threads",
    "webhook_deliveries",
    "webhook_jobs",
    "work_items",
  ];

  it("creates its schema and keeps every table in it", async () => {
    const schema = freshSchema();
    const store = await open(schema);
    expect(store.kind).toBe("postgres");
    expect(await store.ping()).toBe(true);
    expect(await tablesIn(schema)).toEqual(expectedTables);
  });

  it("records each migration once and makes a reopen a no-op", async () => {
    const schema = freshSchema();
    const first = capturingLogger();
    const store = await open(schema, first.logger);
    await store.putLink({
      teamId: "T1",
      slackUserId: "U1",
      githubLogin: "octocat",
      githubId: 1,
      linkedAt: T0,
    });
    await store.close();
    expect(first.lines.filter((l) => l.msg === "applied store migrations")).toEqual([
      expect.objectContaining({ versions: MIGRATIONS.map((m) => m.version), schema }),
    ]);
    const expected = MIGRATIONS.map((m) => ({ version: m.version, name: m.name }));
    expect(await migrationRows(schema)).toEqual(expected);

    const second = capturingLogger();
    const reopened = await open(schema, second.logger);
    expect(second.lines.filter((l) => l.msg === "applied store migrations")).toEqual([]);
    expect(await migrationRows(schema)).toEqual(expected);
    expect(await reopened.getLink("T1", "U1")).toMatchObject({ githubLogin: "octocat", linkedAt: T0 });
  });

  it("lets several stores migrate the same fresh schema at once", async () => {
    const schema = freshSchema();
    const opened = await Promise.all(Array.from({ length: 4 }, () => open(schema)));
    expect(opened).toHaveLength(4);
    expect(await migrationRows(schema)).toEqual(
      MIGRATIONS.map((m) => ({ version: m.version, name: m.name })),
    );
    for (const store of opened) expect(await store.ping()).toBe(true);
  });

  it("applies only new migrations, and rolls back a failing one entirely", async () => {
    const schema = freshSchema();
    await (await open(schema)).close();
    const broken: Migration = {
      version: LATEST_SCHEMA_VERSION + 1,
      name: "broken",
      async up(db) {
        await sql`CREATE TABLE half (id integer)`.execute(db);
        await sql`SELECT no_such_function()`.execute(db);
      },
    };
    await expect(
      openStore({ kind: "postgres", url: PG_URL, schema }, undefined, [...MIGRATIONS, broken]),
    ).rejects.toThrow(/no_such_function/);
    expect(await tablesIn(schema)).toEqual(expectedTables);

    const next: Migration = {
      ...broken,
      name: "extra",
      async up(db) {
        await sql`CREATE TABLE extra (id integer PRIMARY KEY)`.execute(db);
      },
    };
    const store = await openStore({ kind: "postgres", url: PG_URL, schema }, undefined, [
      ...MIGRATIONS,
      next,
    ]);
    stores.push(store);
    expect((await migrationRows(schema)).map((r) => r.version)).toEqual([
      ...MIGRATIONS.map((m) => m.version),
      next.version,
    ]);
    expect(await tablesIn(schema)).toContain("extra");
  });

  it("keeps the schema when the URL carries its own options", async () => {
    const schema = freshSchema();
    const url = `${PG_URL}${PG_URL.includes("?") ? "&" : "?"}options=${encodeURIComponent("-c statement_timeout=5000")}`;
    const store = await open(schema, undefined, url);
    expect(await tablesIn(schema)).toEqual(expectedTables);
    await store.putBackoff({ key: "k", failures: 1, nextAttemptAt: T0, lastError: "e" });
    const { rows } = await admin.query(`SELECT key FROM "${schema}".backoffs`);
    expect(rows).toEqual([{ key: "k" }]);
  });

  it("refuses an unsafe schema name", async () => {
    await expect(
      openStore({ kind: "postgres", url: PG_URL, schema: 'x"; DROP TABLE y; --' }),
    ).rejects.toThrow(/Invalid PostgreSQL schema name/);
  });

  it("shares state between stores (replicas) on one schema", async () => {
    const schema = freshSchema();
    const [a, b] = await Promise.all([open(schema), open(schema)]);
    if (!a || !b) throw new Error("unreachable");

    await a.createOAuthState({
      state: "s",
      teamId: "T1",
      slackUserId: "U1",
      channelId: null,
      responseUrl: null,
      expiresAt: new Date(T0.getTime() + 60_000),
    });
    const consumed = await Promise.all([a.consumeOAuthState("s", T0), b.consumeOAuthState("s", T0)]);
    expect(consumed.filter((c) => c !== null)).toHaveLength(1);

    const delivered = await Promise.all([
      a.claimOnce("github-delivery", "d-1", once("a", T0)),
      b.claimOnce("github-delivery", "d-1", once("b", T0)),
    ]);
    expect(delivered.sort()).toEqual(["claimed", "held"]);

    const signed = await Promise.all([
      claimSignaturesOnce(a, "a")("v0=1", T0),
      claimSignaturesOnce(b, "b")("v0=1", T0),
    ]);
    expect(signed.sort()).toEqual([false, true]);
    expect(await claimSignaturesOnce(b, "b")("v0=1", new Date(T0.getTime() + 60_000))).toBe(false);

    await a.scheduleWork({ kind: "deliver", key: "C1", dueAt: T0 });
    const work = { kind: "deliver", now: T0, leaseMs: 10_000, limit: 1 };
    const leased = await Promise.all([
      a.claimWork({ ...work, owner: "a" }),
      b.claimWork({ ...work, owner: "b" }),
    ]);
    expect(leased.flatMap((w) => w.claimed)).toHaveLength(1);

    const claim = {
      channelId: "C1",
      eventId: 1,
      repository: Repo.of("acme", "widgets"),
      pullRequest: 1,
      eventType: "action.queue.enter",
      payload: {},
      claimedAt: T0,
    };
    const claims = await Promise.all([a.addNotification(claim), b.addNotification(claim)]);
    expect(claims.sort()).toEqual(["added", "pending"]);
  });

  it("prunes the Slack signatures it no longer needs", async () => {
    const schema = freshSchema();
    const store = await open(schema);
    const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);
    const claim = claimSignaturesOnce(store, "a");
    expect(await claim("v0=old", minutes(0))).toBe(true);
    expect(await claim("v0=recent", minutes(10))).toBe(true);
    expect(await claim("v0=new", minutes(20))).toBe(true);
    const { rows } = await admin.query(
      `SELECT key FROM "${schema}".once_claims WHERE scope = 'slack-signature' ORDER BY key`,
    );
    expect(rows.map((r: { key: string }) => r.key)).toEqual(["v0=new", "v0=recent"]);
  });

  it("answers ping with false, not a throw, when the database is unreachable", async () => {
    const database = openDatabase({
      kind: "postgres",
      url: "postgres://postgres@127.0.0.1:1/test",
      connectionTimeoutMs: 1000,
    });
    const store = kyselyStore(database);
    try {
      expect(await store.ping()).toBe(false);
    } finally {
      await store.close();
    }
  });

  it("fails to open when the database is unreachable", async () => {
    await expect(
      openStore({ kind: "postgres", url: "postgres://postgres@127.0.0.1:1/test", connectionTimeoutMs: 1000 }),
    ).rejects.toThrow();
  });
});
