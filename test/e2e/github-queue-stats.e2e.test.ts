import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Repo } from "../../src/repo.js";
import { DIGEST_METADATA_EVENT_TYPE } from "../../src/slack/slack-poster.js";
import { linkSlackUser, startWorld, type World } from "../helpers/e2e.js";

/**
 * `stats` and the weekly digest of a repository on GitHub's own merge queue (MERGE_QUEUE_PROVIDER=github,
 * no Mergify key), end to end: GitHub keeps no log, so they read the history Yardmaster recorded of the
 * queue events its webhooks brought (docs/backends.md). The GitHub stand-in runs the queue and sends its
 * webhooks; the world's clock stands still unless moved, so every figure below is known in advance.
 */
const SHIPS = "acme/ships";
const CHANNEL = "C0SHIPS";
const ALICE = "U0ALICE";
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
let world: World;

/** Moves the world's clock to the next Monday 09:00 in Paris (DIGEST_TIME_ZONE) plus `extra`. */
function toNextMonday9Paris(extra = 0) {
  const now = world.sim.clock.now();
  let t = Math.floor(Math.max(now, now - extra) / HOUR) * HOUR + HOUR;
  const parts = (ms: number) =>
    new Intl.DateTimeFormat("en-US", {
      timeZone: "Europe/Paris",
      weekday: "short",
      hour: "numeric",
      hourCycle: "h23",
    }).formatToParts(new Date(ms));
  const isMonday9 = (ms: number) => {
    const p = parts(ms);
    return (
      p.find((x) => x.type === "weekday")?.value === "Mon" &&
      Number(p.find((x) => x.type === "hour")?.value) === 9
    );
  };
  for (let i = 0; !isMonday9(t); i++) {
    if (i > 24 * 8) throw new Error("no Monday 09:00 in Paris within 8 days");
    t += HOUR;
  }
  world.sim.clock.advance(t + extra - now);
}

async function slash(text: string) {
  const sent = await world.slack.sendSlashCommand({ text, userId: ALICE, channelId: CHANNEL });
  const answer = await world.slack.waitFor(() =>
    world.slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
  );
  return `${answer.text ?? ""}\n${JSON.stringify(answer.blocks ?? [])}`;
}

const comment = (number: number, body: string, author = "alice") =>
  world.github.deliverIssueComment({ repository: SHIPS, number, body, author });

beforeAll(async () => {
  world = await startWorld({
    MERGE_QUEUE_PROVIDER: "github",
    MERGE_QUEUE_API_TOKEN: "",
    DIGEST_TIME_ZONE: "Europe/Paris",
  });
  const { state } = world.github;
  state.addRepository(SHIPS);
  state.setPermission(SHIPS, "alice", "write");
  world.github.mergeQueues.enable(SHIPS, "main");
  for (const [number, title] of [
    [11, "Faster hulls"],
    [12, "Brass fittings"],
  ] as const)
    state.addPullRequest({ repository: SHIPS, number, author: "alice", title, base: "main" });
  world.slack.state.addChannel({ id: CHANNEL, name: "ships", botIsMember: true });
  world.slack.state.addUser({ id: ALICE, name: "alice" });
  await linkSlackUser(world, ALICE, "alice", 1);
  // Two days before a Monday 09:00 in Paris: the week the digest sums up.
  toNextMonday9Paris(-2 * DAY);
  expect(await slash(`subscribe ${SHIPS} digest=weekly`)).toContain("weekly digest");
}, 60_000);

afterAll(async () => {
  await world?.close();
});

describe("stats and the digest of GitHub's merge queue, from Yardmaster's own history", () => {
  it("/mq stats acme/ships counts what GitHub's queue did: a merge after 30 min, a removal for failed checks", async () => {
    await comment(11, "@yardmaster queue");
    await comment(12, "@yardmaster queue");
    // Their entries are told (and recorded) at this time, before the clock moves.
    await world.github.settle();
    world.sim.clock.advance(30 * MINUTE);
    expect(world.github.mergeQueues.completeChecks(SHIPS, 11, { ci: "failure" })).toMatchObject({
      removed: true,
      reason: "CI_FAILURE",
    });
    world.github.mergeQueues.completeChecks(SHIPS, 12, { ci: "success" });
    world.github.mergeQueues.merge(SHIPS, "main");
    await world.github.settle();
    // Recorded once each, as the notifier read them.
    const recorded = await world.yardmaster.store.readQueueEvents(Repo.from(SHIPS), {
      from: new Date(0),
      to: new Date(world.sim.clock.now() + 1),
    });
    expect(recorded.filter((e) => e.kind === "merged").map((e) => e.pull)).toEqual([12]);
    expect(recorded.filter((e) => e.kind === "left").map((e) => e.pull)).toEqual([11]);
    // The last 7 days up to now: a minute on, the merge is inside them.
    world.sim.clock.advance(MINUTE);

    const text = await slash(`stats ${SHIPS}`);
    expect(text).toContain("Queue health of acme/ships");
    expect(text).toContain("p50 30 min · p90 30 min");
    expect(text).toContain("its merge group's required checks failed × 1");
    expect(text).not.toContain("Mergify");
    // Nothing asked Mergify: there is none.
    expect(world.sim.requests.snapshot().total).toBe(0);
  });

  it("the weekly digest of the repository says the same on Monday at 09:00", async () => {
    toNextMonday9Paris();
    expect(await world.yardmaster.digests?.runDue()).toBe(1);
    const [digest] = world.slack.state
      .messages(CHANNEL)
      .filter((m) => m.metadata?.event_type === DIGEST_METADATA_EVENT_TYPE);
    expect(digest?.text).toContain("Weekly digest: queue health of acme/ships");
    expect(digest?.text).toContain("merged 1 (previous 7 days: 0, +1)");
    expect(digest?.text).toContain("p50 30 min");
    expect(world.sim.requests.snapshot().total).toBe(0);
  });
});
