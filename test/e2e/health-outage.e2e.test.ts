import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Yardmaster } from "../../src/yardmaster.js";
import { startWorld, subscribeChannel, type World } from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";

/**
 * A CI outage (docs/notifications.md, "The queue's health"): many checks failing for everyone are one
 * alert per repository naming up to five of them, edited as they change, on GitHub's own merge queue with
 * two replicas on one PostgreSQL, whose clocks the world moves by hand.
 */
const db = useSchema("ym_health_outage");
const REPO = "acme/outage";
const CHANNEL = "C0OUTAGE";
const MINUTE = 60_000;
/** Twelve required checks, and a thirteenth that fails later. */
const CHECKS = Array.from({ length: 12 }, (_, i) => `job-${String(i + 1).padStart(2, "0")}`);
const LATE = "job-13";
let world: World;
let second: { app: Yardmaster };

beforeAll(async () => {
  world = await startWorld({
    DATABASE_URL: db.url(),
    MERGE_QUEUE_PROVIDER: "github",
    MERGE_QUEUE_API_TOKEN: "",
  });
  second = await world.replica();
  const { state } = world.github;
  state.addRepository(REPO);
  state.setPermission(REPO, "alice", "write");
  world.github.mergeQueues.enable(REPO, "main", { requiredChecks: [...CHECKS, LATE] });
  for (let number = 31; number <= 36; number++)
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
  await world?.close();
});

const alerts = () => world.slack.state.messages(CHANNEL).map((m) => m.text);
const edits = (since: number) => world.slack.calls.slice(since).filter((c) => c.method === "chat.update");

async function judge(): Promise<void> {
  await world.github.settle();
  const apps = [world.yardmaster, second.app];
  await Promise.all(apps.map((app) => app.health?.tick()));
  await Promise.all(apps.map((app) => app.health?.tick()));
}

/** Queues the pull request and fails the named checks of its merge group (the others pass). */
async function failIn(number: number, failing: readonly string[]): Promise<void> {
  await world.github.deliverIssueComment({
    repository: REPO,
    number,
    body: "@yardmaster queue",
    author: "alice",
  });
  await world.github.settle();
  await world.slack.waitFor(
    () => world.github.mergeQueues.entries(REPO, "main").some((e) => e.pull.number === number),
    10_000,
  );
  world.sim.clock.advance(5 * MINUTE);
  const conclusions = Object.fromEntries(
    [...CHECKS, LATE].map((name) => [name, failing.includes(name) ? "failure" : "success"] as const),
  );
  expect(world.github.mergeQueues.completeChecks(REPO, number, conclusions)).toMatchObject({ removed: true });
  await judge();
}

describe("checks failing for everyone in a CI outage", () => {
  it("are one alert naming five and counting the rest, edited once when another joins", async () => {
    for (const number of [31, 32, 33]) await failIn(number, CHECKS);
    await judge();
    const [alert, ...others] = alerts();
    expect(others).toEqual([]);
    expect(alert).toMatch(
      /^🔥 12 checks failed for everyone in the merge queue of <[^|]+\|acme\/outage>: <[^|]+\|job-01> \(<[^|]+\|#31>, <[^|]+\|#32> and <[^|]+\|#33>\), .*<[^|]+\|job-05> \([^)]*\) and 7 more\. Likely broken on the base branch or an outage of CI, not these changes \(3 pull requests\)\./,
    );
    expect(alert).not.toContain("job-06");

    // A thirteenth check fails for three more pull requests: the same message, edited once, names it in the count.
    const calls = world.slack.calls.length;
    for (const number of [34, 35, 36]) await failIn(number, [...CHECKS, LATE]);
    await judge();
    expect(edits(calls)).toHaveLength(1);
    expect(alerts()).toEqual([
      expect.stringMatching(
        /^🔥 13 checks failed for everyone in the merge queue of .* and 8 more\. .*\(6 pull requests\)\./,
      ),
    ]);
    expect(await world.yardmaster.store.listHealthEpisodes()).toHaveLength(1);
    // Six pull requests queued, checked and removed one after another on a busy machine: more than the default.
  }, 120_000);
});
