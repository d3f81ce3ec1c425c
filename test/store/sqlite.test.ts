import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import Database from "better-sqlite3";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { Repo } from "../../src/repo.js";
import { claimSignaturesOnce } from "../../src/slack/request-verification.js";
import {
  LATEST_SCHEMA_VERSION,
  MIGRATIONS,
  type Migration,
  migrate,
  openDatabase,
  openStore,
  type Store,
} from "../../src/store/index.js";

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

function migrationRows(path: string): { version: number; name: string }[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare("SELECT version, name FROM schema_migrations ORDER BY version").all() as {
      version: number;
      name: string;
    }[];
  } finally {
    db.close();
  }
}

describe("the store on SQLite", () => {
  let dir: string;
  const open: Store[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "ym-store-"));
  });
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function openFile(
    path: string,
    logger?: ReturnType<typeof createLogger>,
    migrations: readonly Migration[] = MIGRATIONS,
  ): Promise<Store> {
    const store = await openStore({ kind: "sqlite", path }, logger, migrations);
    open.push(store);
    return store;
  }

  it("creates the parent directory, turns WAL on, and reopens with data intact", async () => {
    const path = join(dir, "nested", "deeper", "yardmaster.db");
    const store = await openFile(path);
    expect(store.kind).toBe("sqlite");
    await store.putLink({
      teamId: "T1",
      slackUserId: "U1",
      githubLogin: "octocat",
      githubId: 1,
      linkedAt: T0,
    });
    await store.putSubscription({
      channelId: "C1",
      teamId: "T1",
      repository: Repo.of("acme", "widgets"),
      branchGlob: "main",
      groups: ["queue"],
      createdBy: "U1",
      createdAt: T0,
    });
    expect(
      await store.addNotification({
        channelId: "C1",
        eventId: 1,
        repository: Repo.of("acme", "widgets"),
        pullRequest: 1,
        eventType: "action.queue.enter",
        payload: { a: 1 },
        claimedAt: T0,
      }),
    ).toBe("added");
    expect(existsSync(`${path}-wal`)).toBe(true);
    await store.close();

    const db = new Database(path, { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();

    const reopened = await openFile(path);
    expect(await reopened.getLink("T1", "U1")).toMatchObject({ githubLogin: "octocat", linkedAt: T0 });
    expect((await reopened.listSubscribedRepositories()).map(String)).toEqual(["acme/widgets"]);
    expect(
      await reopened.addNotification({
        channelId: "C1",
        eventId: 1,
        repository: Repo.of("acme", "widgets"),
        pullRequest: 1,
        eventType: "action.queue.enter",
        payload: { a: 1 },
        claimedAt: T0,
      }),
    ).toBe("pending");
  });

  it("records each migration once and makes a reopen a no-op", async () => {
    const path = join(dir, "ym.db");
    const first = capturingLogger();
    await (await openFile(path, first.logger)).close();
    expect(first.lines.filter((l) => l.msg === "applied store migrations")).toEqual([
      expect.objectContaining({ versions: MIGRATIONS.map((m) => m.version) }),
    ]);
    const expected = MIGRATIONS.map((m) => ({ version: m.version, name: m.name }));
    expect(migrationRows(path)).toEqual(expected);
    expect(expected.at(-1)?.version).toBe(LATEST_SCHEMA_VERSION);

    const second = capturingLogger();
    await (await openFile(path, second.logger)).close();
    expect(second.lines.filter((l) => l.msg === "applied store migrations")).toEqual([]);
    expect(migrationRows(path)).toEqual(expected);

    const database = openDatabase({ kind: "sqlite", path });
    expect(await migrate(database)).toEqual([]);
    await database.db.destroy();
  });

  it("applies only the new migrations to an existing database", async () => {
    const path = join(dir, "ym.db");
    await (await openFile(path)).close();
    const next: Migration = {
      version: LATEST_SCHEMA_VERSION + 1,
      name: "extra",
      async up(db) {
        await db.schema
          .createTable("extra")
          .addColumn("id", "integer", (c) => c.primaryKey())
          .execute();
      },
    };
    await openFile(path, undefined, [...MIGRATIONS, next]);
    expect(migrationRows(path).map((r) => r.version)).toEqual([
      ...MIGRATIONS.map((m) => m.version),
      next.version,
    ]);
  });

  it("enforces foreign keys, and a failing migration leaves nothing behind", async () => {
    const path = join(dir, "ym.db");
    const broken: Migration = {
      version: LATEST_SCHEMA_VERSION + 1,
      name: "broken",
      async up(db) {
        await sql`CREATE TABLE parent (id INTEGER PRIMARY KEY)`.execute(db);
        await sql`CREATE TABLE child (parent_id INTEGER NOT NULL REFERENCES parent (id))`.execute(db);
        await sql`INSERT INTO child (parent_id) VALUES (1)`.execute(db);
      },
    };
    await expect(openFile(path, undefined, [...MIGRATIONS, broken])).rejects.toThrow(/FOREIGN KEY/);
    // Nothing of that open was kept: not even the first migration.
    const db = new Database(path, { readonly: true });
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
    db.close();
    expect(tables).toEqual([]);
    // And the database opens cleanly afterwards.
    const store = await openFile(path);
    expect(await store.ping()).toBe(true);
  });

  it("refuses migrations out of order", async () => {
    const [first] = MIGRATIONS;
    if (!first) throw new Error("no migrations");
    await expect(openFile(":memory:", undefined, [first, first])).rejects.toThrow(/increasing/);
  });

  it("answers ping false once its file is deleted or replaced under it, true while it is there", async () => {
    const path = join(dir, "yardmaster.db");
    const store = await openFile(path);
    expect(await store.ping()).toBe(true);
    // SQLite goes on reading and writing the unlinked file: a plain query still succeeds.
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
    expect(await store.ping()).toBe(false);

    const other = join(dir, "other.db");
    const replaced = await openFile(other);
    expect(await replaced.ping()).toBe(true);
    rmSync(other);
    new Database(other).close();
    expect(existsSync(other)).toBe(true);
    expect(await replaced.ping()).toBe(false);
  });

  it("works in memory", async () => {
    const store = await openFile(":memory:");
    expect(await store.ping()).toBe(true);
    expect(await store.claimOnce("github-delivery", "d-1", once("a", T0))).toBe("claimed");
    expect(await store.claimOnce("github-delivery", "d-1", once("b", T0))).toBe("held");
  });

  it("prunes the Slack signatures it no longer needs", async () => {
    const path = join(dir, "ym.db");
    const store = await openFile(path);
    const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);
    const claim = claimSignaturesOnce(store, "a");
    expect(await claim("v0=old", minutes(0))).toBe(true);
    expect(await claim("v0=recent", minutes(10))).toBe(true);
    expect(await claim("v0=new", minutes(20))).toBe(true);
    const db = new Database(path, { readonly: true });
    try {
      const kept = "SELECT key FROM once_claims WHERE scope = 'slack-signature' ORDER BY key";
      expect(db.prepare(kept).pluck().all()).toEqual(["v0=new", "v0=recent"]);
    } finally {
      db.close();
    }
  });

  it("shares one file between two open stores", async () => {
    const path = join(dir, "shared.db");
    const a = await openFile(path);
    const b = await openFile(path);
    await a.putBackoff({ key: "k", failures: 1, nextAttemptAt: T0, lastError: "boom" });
    expect(await b.getBackoff("k")).toEqual({ key: "k", failures: 1, nextAttemptAt: T0, lastError: "boom" });
    expect(await a.claimOnce("github-delivery", "d-1", once("a", T0))).toBe("claimed");
    expect(await b.claimOnce("github-delivery", "d-1", once("b", T0))).toBe("held");
    expect(await claimSignaturesOnce(a, "a")("v0=1", T0)).toBe(true);
    expect(await claimSignaturesOnce(b, "b")("v0=1", T0)).toBe(false);
    await a.scheduleWork({ kind: "deliver", key: "C1", dueAt: T0 });
    const claim = { kind: "deliver", now: T0, leaseMs: 1000, limit: 1 };
    expect((await a.claimWork({ ...claim, owner: "a" })).claimed).toHaveLength(1);
    expect((await b.claimWork({ ...claim, owner: "b" })).claimed).toHaveLength(0);
  });
});
