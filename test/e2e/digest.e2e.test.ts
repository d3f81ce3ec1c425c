import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestKey } from "../../src/digests/digests.js";
import { Repo } from "../../src/repo.js";
import { DIGEST_METADATA_EVENT_TYPE, webApiKeyedPoster } from "../../src/slack/slack-poster.js";
import type { Yardmaster } from "../../src/yardmaster.js";
import { linkSlackUser, startWorld, type World } from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";

/**
 * Weekly digests end to end: two replicas on one PostgreSQL, the simulator's clock moved to Monday 09:00
 * in DIGEST_TIME_ZONE, each replica looking for due digests (by hand: autoPoll is off). A week's digest
 * is posted once per subscription, whatever the replicas, restarts and a replica that died mid-post.
 */
const db = useSchema("ym_digest");
const REPO = "acme/digest";
const CHANNEL = "C0DIGEST";
const QUIET = "C0QUIET"; // subscribed without a digest
const ALICE = "U0ALICE";
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let world: World;
let replica: Yardmaster;

/** The digests posted in a channel. */
function digests(channel: string) {
  return world.slack.state
    .messages(channel)
    .filter((m) => m.metadata?.event_type === DIGEST_METADATA_EVENT_TYPE);
}

/**
 * Moves the simulator's clock (Yardmaster's, here) to the next Monday at 09:00 in Paris plus `extra`:
 * the first such Monday that `extra` before it is still ahead (two days before it, on a Sunday: the one
 * after).
 */
function toNextMonday9Paris(extra = 0) {
  const now = world.sim.clock.now();
  // 09:00 in Paris is 08:00 UTC in winter, 07:00 in summer. The tests run on any date: find the next one.
  let t = Math.floor(Math.max(now, now - extra) / HOUR) * HOUR + HOUR;
  const isMonday9InParis = (ms: number) => {
    const d = new Date(ms);
    const paris = new Intl.DateTimeFormat("en-US", {
      timeZone: "Europe/Paris",
      weekday: "short",
      hour: "numeric",
      hourCycle: "h23",
    }).formatToParts(d);
    return (
      paris.find((p) => p.type === "weekday")?.value === "Mon" &&
      Number(paris.find((p) => p.type === "hour")?.value) === 9
    );
  };
  for (let i = 0; !isMonday9InParis(t); i++) {
    if (i > 24 * 8) throw new Error("no Monday 09:00 in Paris within 8 days");
    t += HOUR;
  }
  world.sim.clock.advance(t + extra - now);
}

/** A replica that died claimed the week's digest (its post's once-claim), 3 minutes ago, for 2. */
async function claimedByTheDead(week: string) {
  await world.yardmaster.store.claimOnce("digest", digestKey(CHANNEL, Repo.from(REPO), week), {
    owner: "dead-replica",
    now: new Date(world.sim.clock.now() - 3 * 60_000),
    until: new Date(world.sim.clock.now() - 60_000),
    keepMs: DAY,
  });
}

async function slash(text: string, channelId = CHANNEL) {
  const sent = await world.slack.sendSlashCommand({ text, userId: ALICE, channelId });
  return world.slack.waitFor(() =>
    world.slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
  );
}

beforeAll(async () => {
  world = await startWorld(
    { DATABASE_URL: db.url(), DIGEST_TIME_ZONE: "Europe/Paris" },
    {},
    { seed: "empty" },
  );
  replica = (await world.replica()).app;
  world.sim.state.addRepository(REPO, { branches: ["main"] });
  world.github.state.addRepository(REPO);
  world.github.state.setPermission(REPO, "alice", "read");
  for (const id of [CHANNEL, QUIET])
    world.slack.state.addChannel({ id, name: id.toLowerCase(), botIsMember: true });
  world.slack.state.addUser({ id: ALICE, name: "alice" });
  await linkSlackUser(world, ALICE, "alice", 1);
}, 60_000);

afterAll(async () => {
  await world?.close();
});

describe("weekly digests", () => {
  it("is asked for with the subscription, and said so", async () => {
    const answer = await slash(`subscribe ${REPO} digest=weekly`);
    expect(answer.text).toContain("weekly digest of the queue's health on Monday at 09:00");
    await slash(`subscribe ${REPO}`, QUIET);
    const listed = await slash("subscriptions");
    expect(listed.text).toContain("weekly digest");
    const refused = await slash(`subscribe ${REPO} digest=daily`);
    expect(refused.text).toContain("digest=weekly|off");
  });

  it("posts the week's stats on Monday at 09:00 in the workspace's time zone, once across two replicas", async () => {
    // Two merges in the week before that Monday, found in the digest.
    toNextMonday9Paris(-2 * DAY);
    for (const [pull, waited] of [
      [1, HOUR],
      [2, 3 * HOUR],
    ] as const) {
      const at = world.sim.clock.now();
      world.sim.state.appendEvent(REPO, {
        trigger: "merge queue",
        pullRequest: pull,
        baseRef: "main",
        outcome: "success",
        type: "action.queue.merged",
        metadata: { queue_name: "default", branch: "main", queued_at: new Date(at - waited).toISOString() },
      });
    }
    toNextMonday9Paris(-60_000);
    expect(await world.yardmaster.digests?.runDue()).toBe(0);
    toNextMonday9Paris();
    const posted = await Promise.all([world.yardmaster.digests?.runDue(), replica.digests?.runDue()]);
    expect(posted.reduce((a = 0, b = 0) => a + b, 0)).toBe(1);
    const [digest] = digests(CHANNEL);
    expect(digests(CHANNEL)).toHaveLength(1);
    expect(digest?.text).toContain("Weekly digest: queue health of acme/digest");
    expect(digest?.text).toContain("merged 2 (previous 7 days: 0, +2)");
    expect(digest?.text).toContain("p50 1 h · p90 3 h");
    expect(digests(QUIET)).toHaveLength(0);

    // Later that day, and after a restart: nothing more.
    world.sim.clock.advance(HOUR);
    await world.restart();
    expect(await world.yardmaster.digests?.runDue()).toBe(0);
    expect(await replica.digests?.runDue()).toBe(0);
    expect(digests(CHANNEL)).toHaveLength(1);
  });

  it("posts the next week's once, even when a replica died after posting it", async () => {
    toNextMonday9Paris(5 * 60_000);
    const due = new Date(world.sim.clock.now() - 5 * 60_000);
    const week = new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Paris" }).format(due);
    // A replica claimed the week, posted it, and died before recording it.
    await claimedByTheDead(week);
    await webApiKeyedPoster({
      token: world.yardmaster.config.slack?.botToken ?? "",
      apiUrl: world.yardmaster.config.slack?.apiUrl ?? "",
    }).post({
      channel: CHANNEL,
      text: "digest posted by the dead replica",
      blocks: [],
      key: `${Repo.from(REPO).key}@${week}`,
    });
    expect(await world.yardmaster.digests?.runDue()).toBe(0);
    expect(await replica.digests?.runDue()).toBe(0);
    expect(digests(CHANNEL).map((m) => m.text)).toHaveLength(2);
    expect(digests(CHANNEL)[1]?.text).toBe("digest posted by the dead replica");

    // A week later, one that died before posting: the next replica posts it.
    toNextMonday9Paris(5 * 60_000);
    const nextWeek = new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Paris" }).format(
      new Date(world.sim.clock.now() - 5 * 60_000),
    );
    await claimedByTheDead(nextWeek);
    const again = await Promise.all([world.yardmaster.digests?.runDue(), replica.digests?.runDue()]);
    expect(again.reduce((a = 0, b = 0) => a + b, 0)).toBe(1);
    expect(digests(CHANNEL)).toHaveLength(3);
  });
});
