import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_MARKER } from "../../src/github/summary-comment.js";
import { Repo } from "../../src/repo.js";
import { METADATA_EVENT_TYPE } from "../../src/slack/slack-poster.js";
import type { Yardmaster } from "../../src/yardmaster.js";
import {
  eventually,
  linkSlackUser,
  startWorld,
  subscribeChannel,
  tickReplicas,
  type World,
} from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";

/**
 * Timed pauses end to end (docs/commands.md, "Timed pauses"): `pause … for <duration>` and `until
 * <time>` from GitHub and Slack, ended by whichever of two replicas on one PostgreSQL claims it, on the
 * simulator's clock (the world's notifier clock, which timed pauses run on): the tests move it by hand,
 * and the replicas look for due unpauses every 50 ms.
 */
const db = useSchema("ym_timed");
const REPO = "acme/timers";
const CHANNEL = "C0TIMED";
const ALICE = "U0ALICE";
/** Alice again, on a Slack account in Paris (whose clocks change: TEST_NOW=2027-03-28T00:30:00Z). */
const ALICE_PARIS = "U0ALICEFR";
const FAST = { scheduledUnpauseIntervalMs: 50 };
let world: World;
let second: { app: Yardmaster; url: string };
let pull = 0;

beforeAll(async () => {
  // Every subscribed repository is read every 15 s of the simulator's clock, whether GitHub announced
  // activity or not (a pause makes no GitHub event).
  world = await startWorld({ DATABASE_URL: db.url(), POLL_IDLE_SECONDS: "15" }, FAST);
  second = await world.replica();
  await setUp(world);
  world.slack.state.addUser({ id: ALICE, name: "alice", tz: "Asia/Tokyo" });
  await linkSlackUser(world, ALICE, "alice", 1);
  world.slack.state.addUser({ id: ALICE_PARIS, name: "alice-fr", tz: "Europe/Paris" });
  await linkSlackUser(world, ALICE_PARIS, "alice", 1);
  await subscribeChannel(world, CHANNEL, [REPO], ["pause"]);
  world.sim.clock.advance(5_000);
});
afterAll(async () => {
  await world?.close();
});

async function setUp(w: World): Promise<void> {
  w.sim.state.addRepository(REPO, { branches: ["main"] });
  w.github.state.addRepository(REPO);
  w.github.state.setPermission(REPO, "alice", "write");
  w.github.state.setPermission(REPO, "rita", "read");
  for (let number = 1; number <= 30; number++) {
    w.github.state.addPullRequest({ repository: REPO, number, author: "alice", title: "x", base: "main" });
  }
}

/** Comments on a pull request of its own, and returns the summary comment Yardmaster answered with. */
async function comment(w: World, body: string, author = "alice"): Promise<string> {
  pull += 1;
  await w.github.deliverIssueComment({ repository: REPO, number: pull, body, author });
  const found = w.github.state
    .comments(REPO, pull)
    .filter((c: { body: string }) => c.body.includes(SUMMARY_MARKER));
  return found[0]?.body ?? "";
}

const paused = (w: World) => w.sim.state.pauseData(REPO);

/** DELETE …/merge-queue/pause requests the simulator received since the last reset. */
function unpauseRequests(w: World): number {
  const routes = w.sim.requests.snapshot().repositories[REPO]?.routes ?? {};
  return Object.entries(routes)
    .filter(([route]) => route.startsWith("DELETE") && route.endsWith("/merge-queue/pause"))
    .reduce((sum, [, n]) => sum + n, 0);
}

/**
 * Both replicas have looked for due unpauses on the world's clock as it is now: each one's pass under way
 * has ended, and each has made one more. Whatever either would do now is done (no fixed wait).
 */
async function bothLooked(): Promise<void> {
  const unpausers = [world.yardmaster, second.app].map((app) => app.scheduledUnpauser);
  await Promise.all(unpausers.map((unpauser) => unpauser.stop()));
  try {
    await Promise.all(unpausers.map((unpauser) => unpauser.tick()));
  } finally {
    for (const unpauser of unpausers) unpauser.start();
  }
}

/**
 * "18:00 UTC", or "2026-11-26 00:01 UTC" when `at` is not on the day of `now` (UTC), as docs/commands.md
 * says a resume time is written: the world's clock starts at any hour (TEST_NOW), so either comes.
 */
function utcWords(at: Date, now: Date = new Date(world.sim.clock.now())): string {
  const iso = at.toISOString();
  const sameDay = iso.slice(0, 10) === now.toISOString().slice(0, 10);
  return `${sameDay ? iso.slice(11, 16) : iso.slice(0, 16).replace("T", " ")} UTC`;
}

/** "18:00": what a clock in `zone` shows at `at`. */
function wallClock(at: Date, zone: string): string {
  const format = { timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" } as const;
  return new Intl.DateTimeFormat("en-GB", format).format(at);
}

/**
 * An instant 2 hours ahead on the world's clock, to the minute (less than half a minute off, so that it
 * rounds to exactly "in 2 h"), and what a clock in `zone` shows then: the first time it shows that after now.
 * (On the night Paris's clocks go back, 02:30 comes twice: then 3 hours ahead.)
 */
function hoursAhead(zone: string): { at: Date; hours: number; wall: string } {
  const now = world.sim.clock.now();
  for (let hours = 2; ; hours++) {
    // Within 30 s either side of `hours` ahead, never exactly 30 s after (a clock on hh:mm:30 would make
    // that "2 h 1 min": Yardmaster rounds half a minute up).
    const at = new Date(Math.floor((now + hours * 3_600_000 + 29_999) / 60_000) * 60_000);
    const wall = wallClock(at, zone);
    let first = Math.ceil((now + 1) / 60_000) * 60_000;
    while (wallClock(new Date(first), zone) !== wall) first += 60_000;
    if (first === at.getTime()) return { at, hours, wall };
  }
}

/** What Yardmaster posted in the channel (notices carry their event in metadata). */
function notices(): string[] {
  return world.slack.state
    .messages(CHANNEL)
    .filter((m) => m.metadata?.event_type === METADATA_EVENT_TYPE)
    .map((m) => m.text);
}

/** Both replicas' pollers read and post whatever is due on the simulator's clock. */
async function notify(): Promise<void> {
  world.sim.clock.advance(20_000);
  await tickReplicas([world.yardmaster, second.app]);
}

describe("timed pauses, two replicas on PostgreSQL", () => {
  it("resume by themselves once, announced as scheduled", async () => {
    await notify();
    const inAMinute = new Date(world.sim.clock.now() + 60_000);
    const summary = await comment(world, "@yardmaster pause release freeze for 1m");
    expect(paused(world)).toMatchObject({ paused: true, reason: "release freeze" });
    // (GitHub's Markdown escapes of "-" and ":" taken out.)
    expect(summary.replace(/\\/g, "")).toContain(
      `is **paused**: release freeze · resumes at ${utcWords(inAMinute)} (in 1 min)`,
    );
    await notify();
    expect(notices().filter((t) => t.includes("paused by alice"))).toEqual([
      expect.stringMatching(
        /merge queue paused by alice \(through Yardmaster\): release freeze · resumes at/,
      ),
    ]);
    world.sim.requests.reset();

    // 3 seconds before its time (20 s went by for the notice): both replicas look, nothing happens.
    world.sim.clock.advance(37_000);
    await bothLooked();
    expect(paused(world).paused).toBe(true);
    world.sim.clock.advance(3_000);
    await eventually(() => !paused(world).paused);
    // Counted once the replica is done with it (the doorbell rung, its row gone).
    const counted = () =>
      Promise.all([world.yardmaster, second.app].map((app) => app.metrics.registry.metrics())).then((all) =>
        all.filter((m) => m.includes('yardmaster_scheduled_unpauses_total{outcome="unpaused"} 1')),
      );
    await eventually(async () => (await counted()).length > 0);
    // Neither replica has a pass under way that could end it a second time.
    await bothLooked();
    expect(unpauseRequests(world)).toBe(1);
    expect(await counted()).toHaveLength(1);
    expect(await world.yardmaster.store.getScheduledUnpause(Repo.from(REPO))).toBeNull();
    // The notifier's doorbell was rung: the repository is read at once, not at its next interval.
    expect((await world.yardmaster.store.getPollSchedule(Repo.from(REPO)))?.doorbellAt).toBeInstanceOf(Date);

    await notify();
    expect(notices().filter((t) => t.includes("resumed"))).toEqual([
      "acme/timers merge queue resumed as scheduled by alice (through Yardmaster)",
    ]);
  });

  it("are cancelled by a manual unpause", async () => {
    await comment(world, "@yardmaster pause release freeze for 1m");
    await comment(world, "@yardmaster unpause");
    expect(await world.yardmaster.store.getScheduledUnpause(Repo.from(REPO))).toBeNull();
    // Paused again by hand for the same reason: a schedule left behind would end this pause too.
    world.sim.state.pause(REPO, "release freeze");
    world.sim.requests.reset();
    world.sim.clock.advance(61_000);
    await bothLooked();
    expect(paused(world)).toMatchObject({ paused: true, reason: "release freeze" });
    expect(unpauseRequests(world)).toBe(0);
    world.sim.state.unpause(REPO);
  });

  it("do nothing when someone else paused the queue again for another reason, and say so in the log", async () => {
    await comment(world, "@yardmaster pause release freeze for 1m");
    world.sim.state.pause(REPO, "incident: main is red");
    world.sim.requests.reset();
    world.sim.clock.advance(61_000);
    await eventually(async () => !(await world.yardmaster.store.getScheduledUnpause(Repo.from(REPO))));
    expect(paused(world)).toMatchObject({ paused: true, reason: "incident: main is red" });
    expect(unpauseRequests(world)).toBe(0);
    world.sim.state.unpause(REPO);
  });

  it.each([
    { user: ALICE, zone: "Asia/Tokyo" },
    { user: ALICE_PARIS, zone: "Europe/Paris" },
  ])("read a bare time in the Slack user's own time zone ($zone)", async ({ user, zone }) => {
    const { at, hours, wall } = hoursAhead(zone);
    const sent = await world.slack.sendSlashCommand({
      text: `pause ${REPO} deploy window until ${wall}`,
      userId: user,
      channelId: CHANNEL,
    });
    const answer = await world.slack.waitFor(() =>
      world.slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
    );
    // The day too when that is tomorrow in UTC; "in" reckoned on the world's clock, which stood still.
    const utc = utcWords(at);
    expect(answer.text).toContain(`deploy window · resumes at ${utc} (${wall} ${zone}, in ${hours} h)`);
    const scheduled = await world.yardmaster.store.getScheduledUnpause(Repo.from(REPO));
    expect(scheduled?.resumesAt).toEqual(at);

    // Status says it on both surfaces.
    const status = await world.slack.sendSlashCommand({
      text: `status ${REPO}`,
      userId: user,
      channelId: CHANNEL,
    });
    const shown = await world.slack.waitFor(() =>
      world.slack.state.responses.find((r) => r.responseUrl === status.responseUrl),
    );
    expect(shown.text).toMatch(/paused by alice since .*: deploy window · resumes at /);
    expect(shown.text).toContain(`: deploy window · resumes at ${utc} (in ${hours} h)`);
    const onGitHub = (await comment(world, "@yardmaster status")).replace(/\\/g, "");
    expect(onGitHub).toMatch(/⏸️ \*\*Paused\*\* by alice since .*: deploy window · resumes at /);
    expect(onGitHub).toContain(`: deploy window · resumes at ${utc} (in ${hours} h)`);
    await comment(world, "@yardmaster unpause");
  });

  it("refuse a time past, too far ahead or unreadable, changing nothing", async () => {
    // (GitHub's Markdown escapes of "-" and ":" taken out.)
    const past = await comment(world, "@yardmaster pause freeze until 2020-01-01 09:00");
    expect(past.replace(/\\/g, "")).toContain(
      '🚫 2020-01-01 09:00 UTC is in the past. Write for example "for 90m", "for 2h"',
    );
    expect((await comment(world, "@yardmaster pause freeze for 15d")).replace(/\\/g, "")).toContain(
      '"15d" is more than 14 days',
    );
    const sent = await world.slack.sendSlashCommand({
      text: `pause ${REPO} freeze until 25:00`,
      userId: ALICE,
      channelId: CHANNEL,
    });
    const answer = await world.slack.waitFor(() =>
      world.slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
    );
    expect(answer.response_type).toBe("ephemeral");
    expect(answer.text).toContain("is not a time of day. Write for example");
    expect(paused(world).paused).toBe(false);
    expect(await world.yardmaster.store.getScheduledUnpause(Repo.from(REPO))).toBeNull();
    // Same permission as pause.
    expect(await comment(world, "@yardmaster pause freeze for 1h", "rita")).toContain(
      "`pause` needs **write** permission",
    );
    expect(paused(world).paused).toBe(false);
  });
});

describe("a timed pause across a restart (SQLite file)", () => {
  it("still resumes after Yardmaster stops and starts again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ym-timed-"));
    const alone = await startWorld({ DATABASE_URL: `sqlite:${join(dir, "ym.db")}` }, FAST);
    try {
      await setUp(alone);
      await comment(alone, "@yardmaster pause release freeze for 2m");
      expect(paused(alone).paused).toBe(true);
      await alone.restart();
      alone.sim.clock.advance(121_000);
      await eventually(() => !paused(alone).paused);
      // The unpause is attributed just after the merge queue took it.
      await eventually(
        async () => (await alone.yardmaster.store.getPauseAttribution(Repo.from(REPO)))?.scheduled,
      );
      expect(await alone.yardmaster.store.getPauseAttribution(Repo.from(REPO))).toMatchObject({
        action: "unpause",
        actor: "alice",
        scheduled: true,
      });
    } finally {
      await alone.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
