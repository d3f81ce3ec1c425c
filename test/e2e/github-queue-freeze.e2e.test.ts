import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Yardmaster } from "../../src/yardmaster.js";
import { eventually, linkSlackUser, startWorld, subscribeChannel, type World } from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";

/**
 * A weekly freeze window on GitHub's own merge queue, end to end: `/mq freeze acme/ships weekend every fri
 * 18:00 - mon 08:00 UTC` pauses the queue through the gate check at the window's start (a merge group
 * made then waits, its gate queued) and resumes it at its end (the gate completes, GitHub merges), on the
 * world's clock moved by hand, with two replicas on one PostgreSQL looking every 50 ms: the channel hears
 * of the pause once and of the resume once.
 */
const db = useSchema("ym_gate_freeze");
const SHIPS = "acme/ships";
const CHANNEL = "C0SHIPS";
const ALICE = "U0ALICE";
const GATE = "yardmaster/gate";
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
let world: World;
let second: { app: Yardmaster; url: string };

beforeAll(async () => {
  world = await startWorld(
    { DATABASE_URL: db.url(), MERGE_QUEUE_PROVIDER: "github", MERGE_QUEUE_API_TOKEN: "" },
    { scheduledUnpauseIntervalMs: 50 },
  );
  second = await world.replica();
  const { state } = world.github;
  state.addRepository(SHIPS);
  state.setPermission(SHIPS, "alice", "write");
  world.github.mergeQueues.enable(SHIPS, "main", { requiredChecks: [], appRequiredChecks: [GATE] });
  state.addPullRequest({ repository: SHIPS, number: 31, author: "alice", title: "Anchor", base: "main" });
  world.slack.state.addChannel({ id: CHANNEL, name: "ships", botIsMember: true });
  world.slack.state.addUser({ id: ALICE, name: "alice", tz: "UTC" });
  await linkSlackUser(world, ALICE, "alice", 1);
  await subscribeChannel(world, CHANNEL, [SHIPS], ["queue", "pause"]);
  world.sim.clock.advance(5_000);
}, 60_000);
afterAll(() => world?.close());

async function slash(text: string): Promise<string> {
  const sent = await world.slack.sendSlashCommand({ text, userId: ALICE, channelId: CHANNEL });
  const answer = await world.slack.waitFor(
    () => world.slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
    10_000,
  );
  return `${answer.text ?? ""}\n${JSON.stringify(answer.blocks ?? [])}`;
}

/** Both replicas have made at least `n` more passes of their freeze runner (each looks every 50 ms). */
async function passes(n = 4): Promise<void> {
  const counts = () => [world.yardmaster, second.app].map((app) => app.freezeRunner.passCount);
  const before = counts();
  await eventually(() => counts().every((c, i) => c >= (before[i] ?? 0) + n));
}

/** The channel's notices of the queue's pause and resume. */
const notices = (what: "paused" | "resumed") =>
  world.slack.state
    .messages(CHANNEL)
    .map((m) => m.text ?? "")
    .filter((t) => t.startsWith(`${SHIPS} merge queue ${what}`));

/** The next Monday 09:00 UTC after the world's now. */
function nextMonday(): Date {
  const at = new Date(world.sim.clock.now() + MINUTE);
  const monday = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate(), 9));
  monday.setUTCDate(monday.getUTCDate() + ((1 - monday.getUTCDay() + 7) % 7));
  return monday.getTime() < at.getTime() ? new Date(monday.getTime() + 7 * DAY) : monday;
}

/** The next Friday 18:00 UTC at least an hour after the world's now. */
function nextFriday(): Date {
  const at = new Date(world.sim.clock.now() + 60 * MINUTE);
  const friday = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate(), 18));
  friday.setUTCDate(friday.getUTCDate() + ((5 - friday.getUTCDay() + 7) % 7));
  return friday.getTime() < at.getTime() ? new Date(friday.getTime() + 7 * DAY) : friday;
}

describe("a weekly freeze window on GitHub's merge queue, two replicas on PostgreSQL", () => {
  it("holds the queue through the gate from fri 18:00 to mon 08:00 UTC, announced once each way", async () => {
    // From a Monday 09:00, whatever day the suite runs on: no weekend window is in progress yet.
    world.sim.clock.advance(nextMonday().getTime() - world.sim.clock.now());
    const answer = await slash(`freeze ${SHIPS} weekend every fri 18:00 - mon 08:00 UTC`);
    expect(answer).toContain("every fri 18:00 - mon 08:00 UTC");
    const start = nextFriday();
    const end = new Date(start.getTime() + 2 * DAY + 14 * 60 * MINUTE);

    // The window starts: one replica pauses the default branch's queue through the gate.
    world.sim.clock.advance(start.getTime() - world.sim.clock.now() + MINUTE);
    await eventually(() => notices("paused").length > 0);
    await passes();
    expect(notices("paused")).toEqual([expect.stringContaining("weekend (scheduled by alice)")]);
    expect(await slash(`status ${SHIPS}`)).toContain("weekend (scheduled by alice)");

    // A pull request queued during the window: its merge group's gate waits, GitHub does not merge it.
    await world.github.deliverIssueComment({
      repository: SHIPS,
      number: 31,
      body: "@yardmaster queue",
      author: "alice",
    });
    const group = await eventually(() => world.github.mergeQueues.entries(SHIPS, "main")[0]?.group);
    const gate = () => world.github.mergeQueues.appChecks.latest(SHIPS, group.headSha, GATE);
    await eventually(() => gate()?.status === "queued");
    expect(gate()?.title).toBe("Paused by alice: weekend (scheduled by alice)");
    expect(() => world.github.mergeQueues.merge(SHIPS, "main")).toThrow(/waits for yardmaster\/gate/);

    // Monday 08:00: one replica resumes; the held gate completes once, and GitHub merges.
    world.sim.clock.advance(end.getTime() - world.sim.clock.now() + MINUTE);
    await eventually(() => gate()?.status === "completed");
    await eventually(() => notices("resumed").length > 0);
    await passes();
    expect(notices("paused")).toHaveLength(1);
    expect(notices("resumed")).toHaveLength(1);
    expect(gate()?.conclusion).toBe("success");
    const patches = world.github.requests.filter(
      (r) => r.method === "PATCH" && /\/check-runs\//.test(r.path),
    );
    expect(patches).toHaveLength(1);
    expect(world.github.mergeQueues.merge(SHIPS, "main")?.number).toBe(31);
    expect(await slash(`status ${SHIPS}`)).not.toContain("Paused");
  });
});
