import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { SUMMARY_MARKER } from "../../src/github/summary-comment.js";
import { createLogger } from "../../src/logger.js";
import { METADATA_EVENT_TYPE } from "../../src/slack/slack-poster.js";
import { LATEST_SCHEMA_VERSION, MIGRATIONS, type Migration, openStore } from "../../src/store/index.js";
import { linkSlackUser, startWorld, type World } from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";

const { version: VERSION } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };

/**
 * Rolling upgrades (docs/operations.md, "Upgrades"): while the next release's replicas start, they migrate
 * the database, and this release's replicas still run on it. So this release's code is run against a
 * database that a later release migrated one step further, as that release may (migrations only add: a
 * table, nullable or defaulted columns on the busiest tables), and, on PostgreSQL, as two replicas at
 * once: it starts with a warning instead of refusing, and commands, claims and notices (each once) work.
 */
const FUTURE: Migration = {
  version: LATEST_SCHEMA_VERSION + 1,
  name: "a later release's (test)",
  async up(db, t) {
    await db.schema
      .createTable("future_notes")
      .addColumn("id", "integer", (c) => c.primaryKey())
      .addColumn("note", "text")
      .execute();
    await db.schema.alterTable("notifications").addColumn("future_note", "text").execute();
    await db.schema
      .alterTable("subscriptions")
      .addColumn("future_flag", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable("webhook_jobs").addColumn("future_at", t.time).execute();
    await db.schema.alterTable("leases").addColumn("future_holder", "text").execute();
  },
};

const REPO = "acme/widgets";
const CHANNEL = "C0UPGRADE";
const ALICE = "U0ALICE";
const pg = useSchema("ym_upgrade");
const dir = mkdtempSync(join(tmpdir(), "yardmaster-upgrade-"));
let world: World | undefined;

afterEach(async () => {
  await world?.close();
  world = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      callback();
    },
  });
  return { logger: createLogger({ level: "info" }, destination), lines };
}

/** The notices posted in the channel, by the event id their metadata carries. */
function postedIds(w: World): number[] {
  return w.slack.state
    .messages(CHANNEL)
    .flatMap((m) => [m, ...m.replies])
    .filter((m) => m.metadata?.event_type === METADATA_EVENT_TYPE)
    .map((m) => Number(m.metadata?.event_payload.event_id));
}

describe.each([
  ["SQLite", () => `sqlite:${join(dir, "yardmaster.db")}`, 1],
  ["PostgreSQL", () => pg.url(), 2],
] as const)("this release on a database a later release migrated (%s)", (_name, databaseUrl, replicas) => {
  it("starts with a warning, and runs commands, claims and notices once each", async () => {
    const url = databaseUrl();
    // The later release's replica migrates the database first.
    const later = await openStore(
      url.startsWith("sqlite:")
        ? { kind: "sqlite", path: url.slice("sqlite:".length) }
        : { kind: "postgres", url },
      undefined,
      [...MIGRATIONS, FUTURE],
    );
    expect(await later.appliedMigrations()).toContain(FUTURE.version);
    await later.close();

    const { logger, lines } = capture();
    world = await startWorld({ DATABASE_URL: url }, { logger });
    const w = world;
    expect(lines.filter((l) => l.level === 40 && /this version does not know/.test(String(l.msg)))).toEqual([
      expect.objectContaining({ newer: [FUTURE.version] }),
    ]);
    // The start log names the release that runs (package.json's version).
    expect(lines).toContainEqual(
      expect.objectContaining({
        version: VERSION,
        msg: expect.stringMatching(`^Yardmaster ${VERSION} listening on`),
      }),
    );
    const apps = [w.yardmaster, ...(replicas > 1 ? [(await w.replica()).app] : [])];

    // A comment command: recorded as a job, claimed and run once, answered in one summary comment.
    w.github.state.addRepository(REPO);
    w.github.state.setPermission(REPO, "alice", "write");
    w.github.state.addPullRequest({
      repository: REPO,
      number: 101,
      author: "alice",
      title: "Cogs",
      base: "main",
    });
    const { status } = await w.github.deliverIssueComment({
      repository: REPO,
      number: 101,
      body: "@yardmaster queue",
      author: "alice",
    });
    expect(status).toBe(200);
    const summaries = w.github.state
      .comments(REPO, 101)
      .filter((c: { body: string }) => c.body.includes(SUMMARY_MARKER));
    expect(summaries).toHaveLength(1);
    expect(summaries[0]?.body).toMatch(/queue/i);

    // A Slack command that writes: a subscription, in the table the later release added a column to.
    w.slack.state.addChannel({ id: CHANNEL, name: "upgrade", botIsMember: true });
    w.slack.state.addUser({ id: ALICE, name: "alice" });
    await linkSlackUser(w, ALICE, "alice", 1);
    const sent = await w.slack.sendSlashCommand({
      text: `subscribe ${REPO}`,
      userId: ALICE,
      channelId: CHANNEL,
    });
    const answer = await w.slack.waitFor(() =>
      w.slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
    );
    expect(JSON.stringify(answer)).toMatch(/subscribed/i);
    expect(await w.yardmaster.store.listSubscriptions({ channelId: CHANNEL })).toEqual([
      expect.objectContaining({ channelId: CHANNEL, groups: ["queue", "pause", "health"] }),
    ]);

    // Notices: the merge queue moves; every replica's notifier runs; each notice is posted once.
    w.sim.clock.advance(2_000);
    w.sim.state.relayCommand(REPO, {
      body: "@mergifyio queue",
      pull_request: { number: 102, title: "Gears", base_ref: "main", author: { id: 1, login: "alice" } },
    });
    w.sim.clock.advance(70_000);
    await Promise.all(apps.map((app) => app.poller?.tick()));
    await Promise.all(apps.map((app) => app.poller?.tick()));
    const posted = postedIds(w);
    expect(posted.length).toBeGreaterThan(0);
    expect(new Set(posted).size).toBe(posted.length);
    const wanted = w.sim.state
      .events(REPO)
      .filter((e) => e.pull_request === 102 && e.type === "action.queue.enter")
      .map((e) => e.id);
    expect(wanted).toHaveLength(1);
    expect(posted).toEqual(expect.arrayContaining(wanted));
    const health = await fetch(`${w.url}/healthz`);
    expect(health.status).toBe(200);
  });
});
