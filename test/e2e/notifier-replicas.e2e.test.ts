import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { METADATA_EVENT_TYPE } from "../../src/slack/slack-poster.js";
import { type ChildServer, startChildServer } from "../helpers/child-server.js";
import { eventually, startWorld, subscribeChannel, type World } from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";

/**
 * Two replicas on one PostgreSQL, each running its notifier by itself on the real clock
 * (docs/notifications.md, "When a repository is read"): the merge queue is read no more often than by
 * one, a burst across three repositories is posted once each, and when one replica is killed (SIGKILL,
 * mid-burst) the other finishes its work.
 */
const db = useSchema("ym_scale");
const REPOS = ["acme/r1", "acme/r2", "acme/r3"];
const CHANNEL = "C0BURST";
const INTERVAL_S = 1;
let world: World;
let child: ChildServer;

/** Every notice posted in the channel (top level and replies), by the event id its metadata carries. */
function postedIds(): number[] {
  return world.slack.state
    .messages(CHANNEL)
    .flatMap((m) => [m, ...m.replies])
    .filter((m) => m.metadata?.event_type === METADATA_EVENT_TYPE)
    .map((m) => Number(m.metadata?.event_payload.event_id));
}

/** The log events the channel's subscription ("queue" group) asks for, in the three repositories. */
function queueEvents() {
  return REPOS.flatMap((repo) =>
    world.sim.state
      .events(repo)
      .filter((e) => e.type.startsWith("action.queue.") && !e.type.includes("checks")),
  );
}

beforeAll(async () => {
  const settings = { DATABASE_URL: db.url(), POLL_INTERVAL_SECONDS: String(INTERVAL_S) };
  world = await startWorld(
    settings,
    { autoPoll: true },
    // Long checks: after the burst the queue stays still, so reads are the schedule's alone.
    {
      clock: "real",
      notifierClock: "system",
      engine: { checksDurationMs: 600_000, batchMaxWaitMs: 600_000 },
      // No doorbell: every read is the schedule's, at the interval (idle repositories would wait 300 s).
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
  child = await startChildServer(
    { ...world.settings, ...settings, PORT: "0", LOG_LEVEL: "info" },
    { servers: { ...world, github: world.github, close: async () => {} } },
  );
}, 60_000);

afterAll(async () => {
  await child?.close();
  await world?.close();
});

describe("the notifier on two replicas", () => {
  it("reads each repository once per interval between them, not once each", {
    timeout: 120_000,
  }, async () => {
    // Both replicas are reading by now: each repository's first read is done.
    await world.slack.waitFor(
      () => REPOS.every((r) => world.sim.requests.snapshot().repositories[r]),
      30_000,
    );
    world.sim.requests.reset();
    const started = Date.now();
    const reads = (repo: string) =>
      Object.entries(world.sim.requests.snapshot().repositories[repo]?.routes ?? {})
        .filter(([route]) => route.endsWith("/logs"))
        .reduce((sum, [, n]) => sum + n, 0);
    // Counted over six intervals at least, and until each repository was read three times however long a
    // loaded machine takes: two uncoordinated replicas would read about twice the bound below.
    await eventually(
      () => Date.now() - started >= 6 * INTERVAL_S * 1000 && REPOS.every((repo) => reads(repo) >= 3),
      60_000,
    );
    const counts = Object.fromEntries(REPOS.map((repo) => [repo, reads(repo)]));
    const elapsedIntervals = (Date.now() - started) / (INTERVAL_S * 1000);
    for (const repo of REPOS) {
      // One replica alone reads about once per interval; two uncoordinated ones would read twice as often.
      expect(counts[repo], repo).toBeLessThanOrEqual(Math.ceil(elapsedIntervals) + 1);
    }
  });

  it("posts a burst across three repositories once each, and finishes it when a replica is killed", async () => {
    // The child posts the burst: the in-process replica's loop is stopped until the child is killed. The
    // child is frozen (SIGSTOP) the moment Slack takes its first post, before it hears the answer: it
    // holds the channel's delivery then, with that post in doubt and the rest still to post.
    const survivor = world.yardmaster.poller!;
    await survivor.stop();
    let frozen = () => {};
    const childFrozen = new Promise<void>((resolve) => {
      frozen = resolve;
    });
    world.slack.faults.delayAnswer("chat.postMessage", 40_000, 1, () => {
      child.signal("SIGSTOP");
      frozen();
    });
    const before = new Set(queueEvents().map((e) => e.id));
    let number = 100;
    for (let i = 0; i < 20; i++) {
      const repo = REPOS[i % REPOS.length] as string;
      number += 1;
      world.sim.state.relayCommand(repo, {
        body: "@mergifyio queue",
        pull_request: {
          number,
          title: `Burst ${number}`,
          base_ref: "main",
          author: { id: 1, login: "alice" },
        },
      });
    }
    const burst = () => queueEvents().filter((e) => !before.has(e.id));
    expect(burst().length).toBeGreaterThanOrEqual(20);
    await childFrozen;
    // Its claim on the channel's delivery names it (an owner name carries its pid).
    const { rows } = await db
      .admin()
      .query(`SELECT claimed_by AS owner FROM ${db.name}.work_items WHERE kind = 'deliver' AND key = $1`, [
        CHANNEL,
      ]);
    expect(rows.map((r: { owner: string }) => r.owner.includes(`-${child.pid}-`))).toEqual([true]);
    child.signal("SIGKILL");
    await child.exited;
    survivor.start();
    const wanted = burst().map((e) => e.id);
    expect(postedIds().length).toBeLessThan(wanted.length);
    // The survivor takes over the killed replica's claims once they lapse (the channel's delivery; the post
    // in doubt looked up first), then posts the rest at Slack's pace.
    await world.slack.waitFor(() => {
      const posted = new Set(postedIds());
      return wanted.every((id) => posted.has(id));
    }, 120_000);
    const ids = postedIds();
    expect(ids.length).toBe(new Set(ids).size);
    for (const id of wanted)
      expect(
        ids.filter((x) => x === id),
        `event ${id}`,
      ).toHaveLength(1);
  }, 180_000);
});
