import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Yardmaster } from "../../src/yardmaster.js";
import { startWorld, subscribeChannel, tickReplicas, type World } from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";

/**
 * The queue watching itself, end to end (docs/notifications.md, "The queue's health"): the merge-queue
 * simulator (Mergify) and GitHub's queue stand-in on a clock moved by hand, two replicas on one
 * PostgreSQL, a channel that follows only the `health` group. Each replica's notifier reads the queue
 * (or GitHub's webhooks tell it) and records its history; both replicas' evaluators judge it at the same
 * moment; each alert is posted once and edited once, whichever replica does it.
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

interface Replicas {
  world: World;
  second: { app: Yardmaster; url: string };
}

async function startReplicas(schema: ReturnType<typeof useSchema>, engine: object): Promise<Replicas> {
  const world = await startWorld({ DATABASE_URL: schema.url() }, {}, { engine });
  const second = await world.replica();
  return { world, second };
}

/** Both replicas read the queue, then both judge its health at the same moment. */
async function pass({ world, second }: Replicas): Promise<void> {
  const apps = [world.yardmaster, second.app];
  await tickReplicas(apps);
  await Promise.all(apps.map((app) => app.health?.tick()));
  await Promise.all(apps.map((app) => app.health?.tick()));
}

/** The channel's top-level messages, as a person sees them (the latest text of each). */
const alerts = (world: World, channel: string) => world.slack.state.messages(channel).map((m) => m.text);
const edits = (world: World, since: number) =>
  world.slack.calls.slice(since).filter((c) => c.method === "chat.update").length;

function addRepository(world: World, repo: string): void {
  world.sim.state.addRepository(repo, { branches: ["main"] });
  world.github.state.addRepository(repo);
}

function queue(world: World, repo: string, number: number): void {
  world.sim.state.relayCommand(repo, {
    body: "@mergifyio queue",
    pull_request: { number, title: `Change ${number}`, base_ref: "main", author: { id: 1, login: "alice" } },
  });
}

describe("a head whose checks never finish", () => {
  const db = useSchema("ym_health_stall");
  const REPO = "acme/stuck";
  const CHANNEL = "C0STUCK";
  let r: Replicas;
  beforeAll(async () => {
    // Checks that take ten hours: as good as never, until the clock is moved past them.
    r = await startReplicas(db, { checksDurationMs: 10 * HOUR });
    addRepository(r.world, REPO);
    await subscribeChannel(r.world, CHANNEL, [REPO], ["health"]);
  });
  afterAll(async () => {
    await r?.world.close();
  });

  it("gets one stalled notice, edited once when the head merges", async () => {
    const { world } = r;
    world.sim.clock.advance(MINUTE);
    queue(world, REPO, 1);
    queue(world, REPO, 2);
    world.sim.clock.advance(15_000);
    await pass(r);
    // 29 minutes with nothing merged: within the least threshold (no merge recorded, so 30 minutes).
    world.sim.clock.advance(29 * MINUTE);
    await pass(r);
    expect(alerts(world, CHANNEL)).toEqual([]);

    world.sim.clock.advance(2 * MINUTE);
    await pass(r);
    await pass(r);
    const [notice, ...others] = alerts(world, CHANNEL);
    expect(others).toEqual([]);
    expect(notice).toMatch(/^⚠️ The merge queue of <[^|]+\|acme\/stuck> looks stalled: 2 pull requests wait/);
    expect(notice).toContain("|#1>");
    expect(notice).toContain("nothing has merged for 31 min");
    expect(notice).toMatch(
      /The head, <[^|]+\/pull\/1\|#1>, has had its <[^|]+\/pull\/1\/checks\|checks> running since/,
    );
    // The queue's own state names the head's checks still pending (the history has no names).
    expect(notice).toMatch(/; still pending: <[^|]+\|ci\/build> and <[^|]+\|ci\/test>: look at them\.$/);

    const calls = world.slack.calls.length;
    world.sim.clock.advance(10 * HOUR);
    await pass(r);
    await pass(r);
    expect(edits(world, calls)).toBe(1);
    const [ended, ...rest] = alerts(world, CHANNEL);
    expect(rest).toEqual([]);
    expect(ended).toMatch(
      /^✅ The merge queue of <[^|]+\|acme\/stuck> was stalled for 10 h[^;]*; it ended: <[^|]+\/pull\/\d\|#\d> merged\.$/,
    );
    expect(await world.yardmaster.store.listHealthEpisodes()).toEqual([]);
  });
});

describe("a check failing for everyone, and a long pause", () => {
  const db = useSchema("ym_health_failing");
  const REPO = "acme/flaky";
  const CHANNEL = "C0FLAKY";
  let r: Replicas;
  beforeAll(async () => {
    r = await startReplicas(db, { batchSize: 1 });
    addRepository(r.world, REPO);
    await subscribeChannel(r.world, CHANNEL, [REPO], ["health"]);
  });
  afterAll(async () => {
    await r?.world.close();
  });

  it("three failures of one check in different batches within an hour give one notice, ended by a pass", async () => {
    const { world } = r;
    world.sim.clock.advance(MINUTE);
    for (const number of [11, 12, 13]) {
      queue(world, REPO, number);
      world.sim.state.setChecks(REPO, number, "failure", "ci/test");
      world.sim.clock.advance(10 * MINUTE);
      await pass(r);
      if (number !== 13) expect(alerts(world, CHANNEL)).toEqual([]);
    }
    await pass(r);
    const [notice, ...others] = alerts(world, CHANNEL);
    expect(others).toEqual([]);
    expect(notice).toMatch(
      /^🔥 <[^|]+\|ci\/test> failed for <[^|]+\|#11>, <[^|]+\|#12> and <[^|]+\|#13> in \d+ minutes in the merge queue of <[^|]+\|acme\/flaky>: likely broken on the base branch or flaky, not these changes\./,
    );

    // An hour on, with no pass, it still holds (it ends when the check passes again).
    world.sim.clock.advance(HOUR);
    await pass(r);
    expect(alerts(world, CHANNEL)).toHaveLength(1);
    expect(alerts(world, CHANNEL)[0]).toMatch(/^🔥/);

    const calls = world.slack.calls.length;
    queue(world, REPO, 14);
    world.sim.clock.advance(10 * MINUTE);
    await pass(r);
    await pass(r);
    expect(edits(world, calls)).toBe(1);
    expect(alerts(world, CHANNEL)).toEqual([
      expect.stringMatching(
        /^✅ ci\/test failed for everyone in the merge queue of <[^|]+\|acme\/flaky> for .*; it ended: the check passed again for <[^|]+\|#14>\.$/,
      ),
    ]);
  });

  it("a pause of more than 4 hours gets one reminder with the Unpause button, edited when unpaused", async () => {
    const { world } = r;
    const before = world.slack.state.messages(CHANNEL).length;
    world.sim.state.pause(REPO, "release <prep>", { type: "user", id: 7, name: "rita" });
    world.sim.clock.advance(3 * HOUR + 59 * MINUTE);
    await pass(r);
    expect(world.slack.state.messages(CHANNEL)).toHaveLength(before);

    world.sim.clock.advance(2 * MINUTE);
    await pass(r);
    await pass(r);
    const added = world.slack.state.messages(CHANNEL).slice(before);
    expect(added.map((m) => m.text)).toEqual([
      expect.stringMatching(
        /^⏸️ The merge queue of <[^|]+\|acme\/flaky> has been paused for 4 h 1 min by rita \("release &lt;prep&gt;"\), since .*; 0 pull requests wait\. Unpause it if the reason is over\.$/,
      ),
    ]);
    expect(JSON.stringify(added[0]?.blocks)).toContain('"text":"Unpause"');

    // Not again within 24 hours.
    world.sim.clock.advance(20 * HOUR);
    await pass(r);
    expect(world.slack.state.messages(CHANNEL).length).toBe(before + 1);

    const calls = world.slack.calls.length;
    world.sim.state.unpause(REPO, { type: "user", id: 8, name: "sam" });
    // An idle repository is read every 5 minutes (POLL_IDLE_SECONDS) where GitHub announces its activity.
    world.sim.clock.advance(5 * MINUTE);
    await pass(r);
    await pass(r);
    expect(edits(world, calls)).toBe(1);
    expect(
      world.slack.state
        .messages(CHANNEL)
        .slice(before)
        .map((m) => m.text),
    ).toEqual([
      expect.stringMatching(
        /^✅ The merge queue of <[^|]+\|acme\/flaky> was paused for 1 d; it ended: the queue was unpaused by sam\.$/,
      ),
    ]);
  });
});

describe("GitHub's own merge queue", () => {
  const db = useSchema("ym_health_github");
  const REPO = "acme/ships";
  const CHANNEL = "C0SHIPS";
  let r: Replicas;
  beforeAll(async () => {
    const world = await startWorld({
      DATABASE_URL: db.url(),
      MERGE_QUEUE_PROVIDER: "github",
      MERGE_QUEUE_API_TOKEN: "",
    });
    r = { world, second: await world.replica() };
    const { state } = world.github;
    state.addRepository(REPO);
    state.setPermission(REPO, "alice", "write");
    world.github.mergeQueues.enable(REPO, "main");
    for (const number of [21, 22, 23, 24])
      state.addPullRequest({
        repository: REPO,
        number,
        author: "alice",
        title: `Change ${number}`,
        base: "main",
      });
    await subscribeChannel(world, CHANNEL, [REPO], ["health"]);
    world.sim.clock.advance(MINUTE);
  });
  afterAll(async () => {
    await r?.world.close();
  });

  /** Both replicas judge the queue's health at the same moment (GitHub's webhooks recorded its history). */
  async function judge(): Promise<void> {
    await r.world.github.settle();
    const apps = [r.world.yardmaster, r.second.app];
    await Promise.all(apps.map((app) => app.health?.tick()));
    await Promise.all(apps.map((app) => app.health?.tick()));
  }

  async function enqueue(number: number): Promise<void> {
    await r.world.github.deliverIssueComment({
      repository: REPO,
      number,
      body: "@yardmaster queue",
      author: "alice",
    });
    await r.world.github.settle();
    await r.world.slack.waitFor(
      () => r.world.github.mergeQueues.entries(REPO, "main").some((e) => e.pull.number === number),
      10_000,
    );
  }

  it("says a check failing for everyone once, and a stall once, each edited when a merge ends it", async () => {
    const { world } = r;
    for (const number of [21, 22, 23]) {
      await enqueue(number);
      world.sim.clock.advance(5 * MINUTE);
      expect(world.github.mergeQueues.completeChecks(REPO, number, { ci: "failure" })).toMatchObject({
        removed: true,
      });
      await judge();
    }
    await judge();
    expect(alerts(world, CHANNEL)).toEqual([
      expect.stringMatching(
        /^🔥 (<[^|]+\|ci>|`ci`) failed for <[^|]+\/pull\/21\|#21>, <[^|]+\/pull\/22\|#22> and <[^|]+\/pull\/23\|#23> in 10 minutes in the merge queue of <[^|]+\|acme\/ships>/,
      ),
    ]);

    await enqueue(24);
    world.sim.clock.advance(31 * MINUTE);
    await judge();
    await judge();
    // Three runs of 5 minutes recorded: 31 minutes is also far slower than usual (past 20 minutes).
    // Each replica opens one of the two at once: their order in the channel is whichever posted first.
    const [, ...opened] = alerts(world, CHANNEL);
    expect(opened).toHaveLength(2);
    const stall = opened.find((text) => text.startsWith("⚠️"));
    const slow = opened.find((text) => text.startsWith("🐢"));
    expect(slow).toMatch(
      /^🐢 The <[^|]+\/pull\/24\/checks\|checks of #24> in the merge queue of <[^|]+\|acme\/ships> have been running for 31 min, far longer than usual \(90% of runs end within 5 min\)/,
    );
    // GitHub's merge group of #24 still runs its required check: both alerts name it.
    expect(slow).toMatch(/look at the checks still pending, <[^|]+\/job\/\d+\|ci>, a runner may be stuck\.$/);
    expect(stall).toMatch(/; still pending: <[^|]+\/job\/\d+\|ci>: look at them\.$/);
    expect(stall).toMatch(
      /^⚠️ The merge queue of <[^|]+\|acme\/ships> looks stalled: 1 pull request waits \(<[^|]+\|#24>\)/,
    );

    const calls = world.slack.calls.length;
    world.github.mergeQueues.completeChecks(REPO, 24, { ci: "success" });
    world.github.mergeQueues.merge(REPO, "main");
    world.sim.clock.advance(MINUTE);
    await judge();
    await judge();
    expect(edits(world, calls)).toBe(3);
    const [failing, ...ended] = alerts(world, CHANNEL);
    expect(failing).toMatch(
      /^✅ ci failed for everyone in the merge queue of .*; it ended: the check passed again for <[^|]+\|#24>\.$/,
    );
    expect(ended.sort()).toEqual([
      expect.stringMatching(
        /^✅ The merge queue of <[^|]+\|acme\/ships> was stalled for 32 min; it ended: <[^|]+\|#24> merged\.$/,
      ),
      expect.stringMatching(
        /^✅ The slow checks in the merge queue of .* ran for 32 min; it ended: the checks ended\.$/,
      ),
    ]);
  });
});
