import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { Repo } from "../../src/repo.js";
import { MIGRATIONS, openStore, POLL_KIND, type Store } from "../../src/store/index.js";
import { PG_URL, usePostgres } from "../helpers/postgres.js";
import { LEGACY_MIGRATIONS, migrateLegacyPostgres, migrateLegacySqlite } from "./fixtures/legacy-schema.js";

// A database made and written by the releases before the store moved to Kysely opens with the new
// code as it is: nothing migrated again (only the migrations added since are applied, in place), every
// row read back, and new writes land beside the old ones.

/** The versions added after the hand-written SQL: the only ones applied to its databases. */
const LATER = MIGRATIONS.map((m) => m.version).filter((v) => !LEGACY_MIGRATIONS.some((l) => l.version === v));
const applied = (lines: Record<string, unknown>[]) =>
  lines.filter((l) => l.msg === "applied store migrations").map((l) => l.versions);

const T0 = new Date("2025-03-01T12:00:00.000Z");
const at = (ms: number): Date => new Date(T0.getTime() + ms);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

type Row = Record<string, unknown>;

/** Rows as the earlier stores wrote them: times, JSON and lists each in its dialect's form. */
function legacyRows(dialect: "sqlite" | "postgres"): [table: string, row: Row][] {
  const time = (date: Date) => (dialect === "sqlite" ? date.toISOString() : date);
  const json = (value: unknown) => JSON.stringify(value);
  const list = (values: string[]) => (dialect === "sqlite" ? JSON.stringify(values) : values);
  return [
    [
      "identity_links",
      { team_id: "T1", slack_user_id: "U1", github_login: "octocat", github_id: 583231, linked_at: time(T0) },
    ],
    [
      "oauth_states",
      {
        state: "s-1",
        team_id: "T1",
        slack_user_id: "U1",
        channel_id: "C1",
        response_url: null,
        expires_at: time(at(10 * MINUTE)),
      },
    ],
    [
      "subscriptions",
      {
        channel_id: "C1",
        repository_key: "acme/widgets",
        repository: "Acme/Widgets",
        team_id: "T1",
        branch_glob: "release/*",
        groups: list(["queue", "pause"]),
        created_by: "U1",
        created_at: time(T0),
      },
    ],
    ["webhook_deliveries", { id: "d-1", received_at: time(T0) }],
    ["leases", { name: "poll:acme/widgets", owner: "old-replica", expires_at: time(at(MINUTE)) }],
    [
      "poll_cursors",
      {
        repository_key: "acme/widgets",
        repository: "Acme/Widgets",
        received_from: time(at(-HOUR)),
        seen_event_ids: json([101, 102]),
        updated_at: time(T0),
      },
    ],
    [
      "notifications",
      {
        channel_id: "C1",
        event_id: 4241,
        repository: "Acme/Widgets",
        pull_request: 42,
        event_type: "action.queue.enter",
        payload: json({ id: 4241 }),
        status: "sent",
        attempts: 1,
        claimed_at: time(T0),
        sent_at: time(T0),
        message_ts: "1.1",
        thread_ts: null,
      },
    ],
    [
      "notifications",
      {
        channel_id: "C1",
        event_id: 4242,
        repository: "Acme/Widgets",
        pull_request: 42,
        event_type: "action.queue.checks_start",
        payload: json({ id: 4242, title: 'Fix <it> & "quote"' }),
        status: "pending",
        attempts: 2,
        claimed_at: time(T0),
        sent_at: null,
        message_ts: null,
        thread_ts: null,
      },
    ],
    [
      "threads",
      {
        channel_id: "C1",
        repository_key: "acme/widgets",
        repository: "Acme/Widgets",
        pull_request: 42,
        parent_ts: "1.1",
        state: json({ latest: "queued" }),
        updated_at: time(T0),
      },
    ],
    [
      "backoffs",
      { key: "channel:C1", failures: 2, next_attempt_at: time(at(MINUTE)), last_error: "not_in_channel" },
    ],
    [
      "pause_attributions",
      {
        repository_key: "acme/widgets",
        repository: "Acme/Widgets",
        action: "pause",
        reason: "release freeze",
        actor: "alice",
        surface: "slack",
        at: time(T0),
      },
    ],
  ];
}

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

const widgets = Repo.of("acme", "widgets");
const spelled = Repo.of("Acme", "Widgets");

/** Reads every row of `legacyRows` back through the store, then writes through it. */
async function readsAndWritesLegacyRows(store: Store): Promise<void> {
  expect(await store.getLink("T1", "U1")).toEqual({
    teamId: "T1",
    slackUserId: "U1",
    githubLogin: "octocat",
    githubId: 583231,
    linkedAt: T0,
  });
  expect(await store.consumeOAuthState("s-1", at(MINUTE))).toEqual({
    state: "s-1",
    teamId: "T1",
    slackUserId: "U1",
    channelId: "C1",
    responseUrl: null,
    expiresAt: at(10 * MINUTE),
  });
  expect(await store.listSubscriptions({ repository: widgets })).toEqual([
    {
      channelId: "C1",
      teamId: "T1",
      repository: spelled,
      branchGlob: "release/*",
      groups: ["queue", "pause"],
      createdBy: "U1",
      createdAt: T0,
    },
  ]);
  expect(await store.listSubscribedRepositories()).toEqual([spelled]);
  // Its subscribed repository got a read schedule with the migration, due at once.
  expect(
    (await store.claimWork({ kind: POLL_KIND, owner: "new-replica", now: T0, leaseMs: 1000, limit: 10 }))
      .claimed,
  ).toEqual([
    expect.objectContaining({
      key: widgets.key,
      payload: expect.objectContaining({ repository: spelled.fullName, cadence: "new" }),
      attempts: 0,
      claimedBy: "new-replica",
    }),
  ]);
  // The deliveries handled are once-claims now (migration 38): done, a redelivery records nothing.
  const redelivery = { owner: "new-replica", now: at(MINUTE), until: at(2 * MINUTE), keepMs: 7 * 24 * HOUR };
  expect(await store.claimOnce("github-delivery", "d-1", redelivery)).toBe("done");
  expect(await store.getPollCursor(widgets)).toEqual({
    repository: spelled,
    receivedFrom: at(-HOUR),
    seenEventIds: [101, 102],
    updatedAt: T0,
  });
  expect(await store.listPendingNotifications(at(HOUR), 10)).toEqual([
    {
      channelId: "C1",
      eventId: 4242,
      repository: spelled,
      pullRequest: 42,
      eventType: "action.queue.checks_start",
      payload: { id: 4242, title: 'Fix <it> & "quote"' },
      claimedAt: T0,
      attempts: 2,
      begunBy: null,
    },
  ]);
  expect(await store.getThread("C1", widgets, 42)).toEqual({
    channelId: "C1",
    repository: spelled,
    pullRequest: 42,
    parentTs: "1.1",
    state: { latest: "queued" },
    parentStale: false,
    updatedAt: T0,
  });
  expect(await store.getBackoff("channel:C1")).toEqual({
    key: "channel:C1",
    failures: 2,
    nextAttemptAt: at(MINUTE),
    lastError: "not_in_channel",
  });
  expect(await store.getPauseAttribution(widgets)).toEqual({
    repository: spelled,
    action: "pause",
    reason: "release freeze",
    actor: "alice",
    surface: "slack",
    at: T0,
    // A pause recorded before timed pauses: it ends when someone unpauses it.
    resumesAt: null,
    scheduled: false,
  });

  // The outbox goes on from where the old code left it.
  const claim = { channelId: "C1", repository: widgets, pullRequest: 42, payload: {}, claimedAt: at(HOUR) };
  expect(await store.addNotification({ ...claim, eventId: 4241, eventType: "action.queue.enter" })).toBe(
    "sent",
  );
  expect(
    await store.addNotification({ ...claim, eventId: 4242, eventType: "action.queue.checks_start" }),
  ).toBe("pending");
  await store.markNotificationSent({
    channelId: "C1",
    eventId: 4242,
    message: { ts: "1.2", threadTs: "1.1" },
    thread: { parentTs: "1.1", state: { latest: "checks" } },
    at: at(HOUR),
  });
  expect(await store.listPendingNotifications(at(2 * HOUR), 10)).toEqual([]);
  expect(await store.getThread("C1", widgets, 42)).toMatchObject({ state: { latest: "checks" } });
  expect(await store.putSubscription({ ...subscriptionOf("C2"), createdAt: at(HOUR) })).toEqual({
    created: true,
  });
  expect(await store.putSubscription(subscriptionOf("C1"))).toEqual({ created: false });
  expect((await store.listSubscriptions({ channelId: "C1" }))[0]).toMatchObject({
    repository: widgets,
    createdAt: T0,
  });
}

function subscriptionOf(channelId: string) {
  return {
    channelId,
    teamId: null,
    repository: widgets,
    branchGlob: null,
    groups: ["queue"],
    createdBy: "U2",
    createdAt: at(HOUR),
  };
}

describe("a SQLite database made by the earlier releases", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "ym-legacy-"));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("opens without migrating again but for the later migrations, and its rows read back", async () => {
    const path = join(dir, "yardmaster.db");
    const legacy = new Database(path);
    migrateLegacySqlite(legacy);
    for (const [table, row] of legacyRows("sqlite")) {
      const columns = Object.keys(row);
      legacy
        .prepare(`INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`)
        .run(...Object.values(row));
    }
    const bookkeeping = () => {
      const db = new Database(path, { readonly: true });
      try {
        return db.prepare("SELECT * FROM schema_migrations ORDER BY version").all();
      } finally {
        db.close();
      }
    };
    const before = bookkeeping();
    expect(before.map((r) => (r as { version: number }).version)).toEqual([1, 2]);
    legacy.close();

    const { logger, lines } = capturingLogger();
    const store = await openStore({ kind: "sqlite", path }, logger);
    try {
      expect(applied(lines)).toEqual([LATER]);
      await readsAndWritesLegacyRows(store);
    } finally {
      await store.close();
    }
    const after = bookkeeping() as { version: number }[];
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length).map((r) => r.version)).toEqual(LATER);
  });
});

describe("a PostgreSQL database made by the earlier releases", () => {
  const pg = usePostgres();

  it("opens without migrating again but for the later migrations, and its rows read back", async () => {
    const schema = pg.freshSchema();
    const admin = pg.admin();
    await migrateLegacyPostgres(admin, schema);
    for (const [table, row] of legacyRows("postgres")) {
      const columns = Object.keys(row);
      await admin.query(
        `INSERT INTO "${schema}".${table} (${columns.join(", ")}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(", ")})`,
        Object.values(row),
      );
    }
    const bookkeeping = async () =>
      (await admin.query(`SELECT * FROM "${schema}".schema_migrations ORDER BY version`)).rows;
    const before = await bookkeeping();
    expect(before.map((r) => r.version)).toEqual([1, 2]);

    const { logger, lines } = capturingLogger();
    const store = await openStore({ kind: "postgres", url: PG_URL, schema }, logger);
    try {
      expect(applied(lines)).toEqual([LATER]);
      await readsAndWritesLegacyRows(store);
    } finally {
      await store.close();
    }
    const after = await bookkeeping();
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length).map((r) => r.version)).toEqual(LATER);
  });
});
