import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { METADATA_EVENT_TYPE } from "../../src/slack/slack-poster.js";
import type { Settings } from "../../tools/world.js";
import { type ChildServer, startChildServer } from "../helpers/child-server.js";
import { eventually, startWorld, subscribeChannel, type World } from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";

/**
 * Issue 32, item 1: two replicas on one PostgreSQL, 24 queue events in two repositories, the replica
 * posting them killed (`kill -9`) just after Slack took its first post. The survivor takes the channel
 * over once the killed replica's claim on it lapses, with no new event to wake it, and posts every notice once
 * (the one in flight at the kill found in the channel, not posted again); the killed replica, started
 * again, posts none of them again. How soon (issue 32: all within 30 s of the kill) is not timed here,
 * where the machine's load would decide it: test/notifier/takeover-time.test.ts asserts it on a
 * simulated clock at Slack's pace, and `npm run bench` (`scale`, part `takeover`) measures it.
 */
const db = useSchema("ym_takeover");
const REPOS = ["acme/left", "acme/right"];
const CHANNEL = "C0TAKEOVER";
/** Pull requests queued in each repository: two notices each (entered the queue, its batch).  */
const PER_REPO = 6;
const NOTICES = 24;
let world: World;
let settings: Settings;
let child: ChildServer | undefined;
let restarted: ChildServer | undefined;

/** Every notice posted in the channel (top level and replies), by the event id its metadata carries. */
function postedIds(): number[] {
  return world.slack.state
    .messages(CHANNEL)
    .flatMap((m) => [m, ...m.replies])
    .filter((m) => m.metadata?.event_type === METADATA_EVENT_TYPE)
    .map((m) => Number(m.metadata?.event_payload.event_id));
}

/** The log events the channel's subscription ("queue" group) asks for, in both repositories. */
function queueEvents() {
  return REPOS.flatMap((repo) =>
    world.sim.state
      .events(repo)
      .filter((e) => e.type.startsWith("action.queue.") && !e.type.includes("checks")),
  );
}

function queuePullRequest(repo: string, number: number): void {
  world.sim.state.relayCommand(repo, {
    body: "@mergifyio queue",
    pull_request: { number, title: `Burst ${number}`, base_ref: "main", author: { id: 1, login: "alice" } },
  });
}

/** A replica of the world in a process of its own, on the same PostgreSQL. */
function startReplica(): Promise<ChildServer> {
  return startChildServer(
    { ...world.settings, ...settings, PORT: "0", LOG_LEVEL: "info" },
    { servers: { ...world, github: world.github, close: async () => {} } },
  );
}

beforeAll(async () => {
  settings = { DATABASE_URL: db.url(), POLL_INTERVAL_SECONDS: "1" };
  world = await startWorld(
    settings,
    { autoPoll: true },
    {
      clock: "real",
      notifierClock: "system",
      // Long checks: the pull requests stay queued, one "entered the queue" notice each.
      engine: { checksDurationMs: 600_000, batchMaxWaitMs: 600_000 },
      githubEvents: ["issue_comment"],
      // Slack's rate limit on posts, its 429s and Retry-After as Slack answers them, at four posts a second
      // per channel (Slack's is one): the survivor meets them all the same, and posts the burst sooner.
      slackLimits: { postMessage: { perSecond: 4, burst: 3 } },
    },
  );
  for (const repo of REPOS) {
    world.sim.state.addRepository(repo, { branches: ["main"] });
    world.github.state.addRepository(repo);
  }
  await subscribeChannel(world, CHANNEL, REPOS);
  child = await startReplica();
}, 180_000);

afterAll(async () => {
  await restarted?.close();
  await child?.close();
  await world?.close();
});

describe("a replica killed mid-burst", () => {
  it("is replaced by the survivor, which posts every notice once; back, it posts none again", async () => {
    const killed = child as ChildServer;
    // The child reads the burst and posts it: the in-process replica's loop is stopped until the kill.
    const survivor = world.yardmaster.poller!;
    await survivor.stop();
    // Killed the moment Slack takes its first post, before it hears the answer: it holds the channel's
    // delivery then, with that post in doubt and the rest of the burst claimed and not yet posted.
    let taken = () => {};
    const firstPost = new Promise<void>((resolve) => {
      taken = resolve;
    });
    world.slack.faults.delayAnswer("chat.postMessage", 60_000, 1, () => {
      killed.signal("SIGKILL");
      taken();
    });
    const before = new Set(queueEvents().map((e) => e.id));
    for (let i = 0; i < PER_REPO; i++) for (const repo of REPOS) queuePullRequest(repo, 100 + i);
    const wanted = queueEvents()
      .filter((e) => !before.has(e.id))
      .map((e) => e.id);
    expect(wanted).toHaveLength(NOTICES);
    await firstPost;
    await killed.exited;
    expect(postedIds()).toHaveLength(1);
    const { rows } = await db
      .admin()
      .query(`SELECT claimed_by AS owner FROM ${db.name}.work_items WHERE kind = 'deliver' AND key = $1`, [
        CHANNEL,
      ]);
    // The killed replica still holds the channel: the survivor's first pass cannot take it.
    expect(rows.map((r: { owner: string }) => r.owner.includes(`-${killed.pid}-`))).toEqual([true]);
    // It died with notices claimed and not posted (the rest of the burst it had read).
    const pending = await db
      .admin()
      .query(`SELECT count(*)::int AS n FROM ${db.name}.notifications WHERE status = 'pending'`);
    expect(pending.rows[0].n).toBeGreaterThan(1);

    // No new event from here on: the survivor's own passes find the claim lapsed and take over.
    survivor.start();
    await eventually(() => {
      const posted = new Set(postedIds());
      return wanted.every((id) => posted.has(id));
    }, 180_000);
    const once = postedIds();
    expect(once.length).toBe(new Set(once).size);
    for (const id of wanted)
      expect(
        once.filter((x) => x === id),
        `event ${id}`,
      ).toHaveLength(1);

    // Back, the killed replica posts none of them again: alone (the survivor stopped), it posts the next
    // event, and the burst's notices are still there once each.
    restarted = await startReplica();
    await survivor.stop();
    const burst = new Set(wanted);
    queuePullRequest(REPOS[0] as string, 200);
    const next = queueEvents()
      .filter((e) => !before.has(e.id) && !burst.has(e.id))
      .map((e) => e.id);
    expect(next.length).toBeGreaterThan(0);
    await eventually(() => next.every((id) => postedIds().includes(id)), 60_000);
    const all = postedIds();
    expect(all).toHaveLength(NOTICES + next.length);
    expect(new Set(all).size).toBe(all.length);
    survivor.start();
  }, 300_000);
});
