import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_MARKER } from "../../src/github/summary-comment.js";
import { Repo } from "../../src/repo.js";
import type { Yardmaster } from "../../src/yardmaster.js";
import { startWorld, subscribeChannel, tickReplicas, type World } from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";

/**
 * A long pause that began before anyone watched (docs/notifications.md, "The queue's health"): the
 * reminder counts from the queue's own start (Mergify's `paused_at`, the gate's record on GitHub's
 * queue), not from Yardmaster's recorded history. Two replicas on one PostgreSQL, the simulator's clock
 * (starting at TEST_NOW) moved by hand; both replicas judge at the same moment; each alert is posted once.
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

interface Replicas {
  world: World;
  second: { app: Yardmaster; url: string };
}

/** Both replicas read the queue, then both judge its health at the same moment, twice. */
async function pass({ world, second }: Replicas): Promise<void> {
  const apps = [world.yardmaster, second.app];
  await world.github.settle();
  await tickReplicas(apps);
  for (let round = 0; round < 2; round++) await Promise.all(apps.map((app) => app.health?.tick()));
}

const alerts = (world: World, channel: string) => world.slack.state.messages(channel).map((m) => m.text);

/** Carol asks Yardmaster to pause, in a comment on a pull request; resolves once it answered. */
async function carolPauses(world: World, repo: string, number: number): Promise<void> {
  world.github.state.addPullRequest({
    repository: repo,
    number,
    author: "carol",
    title: "Move",
    base: "main",
  });
  await world.github.deliverIssueComment({
    repository: repo,
    number,
    body: "@yardmaster pause Datacenter move",
    author: "carol",
  });
  await world.github.settle();
  const answer = world.github.state.comments(repo, number).find((c) => c.body.includes(SUMMARY_MARKER));
  expect(answer?.body).toMatch(/paused/i);
}

describe("Mergify's queue paused 5 hours before the channel subscribed", () => {
  const db = useSchema("ym_long_pause_mergify");
  const REPO = "acme/datacenter";
  const OTHER = "acme/legacy";
  const CHANNEL = "C0DC";
  let r: Replicas;
  beforeAll(async () => {
    const world = await startWorld({ DATABASE_URL: db.url() });
    r = { world, second: await world.replica() };
    for (const repo of [REPO, OTHER]) {
      world.sim.state.addRepository(repo, { branches: ["main"] });
      world.github.state.addRepository(repo);
    }
    world.github.state.setPermission(REPO, "carol", "write");
  });
  afterAll(async () => {
    await r?.world.close();
  });

  it("is reminded at the first pass after subscribing, once, naming carol and her reason", async () => {
    const { world } = r;
    await carolPauses(world, REPO, 1);
    expect(world.sim.state.pauseData(REPO)).toMatchObject({ paused: true, reason: "Datacenter move" });
    world.sim.clock.advance(5 * HOUR);
    await pass(r);
    await subscribeChannel(world, CHANNEL, [REPO], ["health"]);
    expect(alerts(world, CHANNEL)).toEqual([]);

    world.sim.clock.advance(45_000);
    await pass(r);
    await pass(r);
    expect(alerts(world, CHANNEL)).toEqual([
      expect.stringMatching(
        /^⏸️ The merge queue of <[^|]+\|acme\/datacenter> has been paused for 5 h 1 min by carol \("Datacenter move"\), since .*; 0 pull requests wait\. Unpause it if the reason is over\.$/,
      ),
    ]);
    // Yardmaster's history never saw the pause begin: the queue's own start counted.
    const history = await world.yardmaster.store.readQueueEvents(
      Repo.from(REPO),
      { from: new Date(world.sim.clock.now() - 7 * DAY), to: new Date(world.sim.clock.now() + 1) },
      ["paused"],
    );
    expect(history).toEqual([]);
  });

  it("is reminded, from the simulator's paused_at, of a pause made outside Yardmaster before it ran", async () => {
    const { world } = r;
    // Set from outside, through the simulator's control API, as the sandbox would.
    const response = await fetch(`${world.sim.url}/__sim/repos/${OTHER}/pause`, {
      method: "PUT",
      headers: {
        authorization: `Bearer ${world.settings.MERGE_QUEUE_API_TOKEN}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({
        reason: "Datacenter move",
        by: { id: 3, login: "carol" },
        started_seconds_ago: 5 * 3600,
      }),
    });
    expect(response.status).toBe(200);
    const paused = (await response.json()) as { paused_at: string };
    expect(Date.parse(paused.paused_at)).toBe(world.sim.clock.now() - 5 * HOUR);
    await subscribeChannel(world, "C0LEGACY", [OTHER], ["health"]);
    world.sim.clock.advance(45_000);
    await pass(r);
    await pass(r);
    // Mergify's pause names no one, and neither Yardmaster nor its history saw who paused.
    expect(alerts(world, "C0LEGACY")).toEqual([
      expect.stringMatching(
        /^⏸️ The merge queue of <[^|]+\|acme\/legacy> has been paused for 5 h 1 min \("Datacenter move"\), since /,
      ),
    ]);
  });
});

describe("GitHub's queue paused through the gate 8 days before the channel subscribed", () => {
  const db = useSchema("ym_long_pause_github");
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
    world.github.state.addRepository(REPO);
    world.github.state.setPermission(REPO, "carol", "write");
    world.github.mergeQueues.enable(REPO, "main");
  });
  afterAll(async () => {
    await r?.world.close();
  });

  it("is reminded from the gate's pause record, older than the 7 days of history the alerts read", async () => {
    const { world } = r;
    await carolPauses(world, REPO, 5);
    world.sim.clock.advance(8 * DAY);
    await subscribeChannel(world, CHANNEL, [REPO], ["health"]);
    world.sim.clock.advance(30_000);
    await pass(r);
    await pass(r);
    expect(alerts(world, CHANNEL)).toEqual([
      expect.stringMatching(
        /^⏸️ The merge queue of <[^|]+\|acme\/ships> \(branch `main`\) has been paused for 8 d by carol \("Datacenter move"\), since /,
      ),
    ]);
  });
});
