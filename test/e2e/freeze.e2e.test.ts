import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { windowAt } from "../../src/freezes/schedule.js";
import { SUMMARY_MARKER } from "../../src/github/summary-comment.js";
import { Repo } from "../../src/repo.js";
import type { Yardmaster } from "../../src/yardmaster.js";
import { eventually, linkSlackUser, startWorld, subscribeChannel, type World } from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";

/**
 * Freeze windows end to end (docs/commands.md, "Freeze windows"): a weekly window set from Slack pauses
 * and resumes the simulator's queue by itself, on the world's clock (moved by hand), with two replicas
 * on one PostgreSQL looking every 50 ms: the notice before it, its pause and its resume happen once.
 */
const db = useSchema("ym_freeze");
const REPO = "acme/frost";
const CHANNEL = "C0FROST";
const ALICE = "U0ALICE";
const FAST = { scheduledUnpauseIntervalMs: 50 };
const MINUTE = 60_000;
const DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
let world: World;
let second: { app: Yardmaster; url: string };
let pull = 0;

beforeAll(async () => {
  world = await startWorld({ DATABASE_URL: db.url() }, FAST);
  second = await world.replica();
  world.sim.state.addRepository(REPO, { branches: ["main"] });
  world.github.state.addRepository(REPO);
  world.github.state.setPermission(REPO, "alice", "write");
  world.github.state.setPermission(REPO, "rita", "read");
  for (let number = 1; number <= 10; number++)
    world.github.state.addPullRequest({
      repository: REPO,
      number,
      author: "alice",
      title: "x",
      base: "main",
    });
  world.slack.state.addUser({ id: ALICE, name: "alice", tz: "UTC" });
  await linkSlackUser(world, ALICE, "alice", 1);
  await subscribeChannel(world, CHANNEL, [REPO], ["pause"]);
});
afterAll(async () => {
  await world?.close();
});

const paused = () => world.sim.state.pauseData(REPO);

/** PUT or DELETE …/merge-queue/pause requests the simulator received since the last reset. */
function pauseRequests(method: "PUT" | "DELETE"): number {
  const routes = world.sim.requests.snapshot().repositories[REPO]?.routes ?? {};
  return Object.entries(routes)
    .filter(([route]) => route.startsWith(method) && route.endsWith("/merge-queue/pause"))
    .reduce((sum, [, n]) => sum + n, 0);
}

/** Yardmaster's freeze notices in the channel. */
const freezeNotices = () =>
  world.slack.state
    .messages(CHANNEL)
    .map((m) => m.text)
    .filter((t) => /^❄️ (The|A) freeze/.test(t));

async function slash(text: string, userId = ALICE): Promise<string> {
  const sent = await world.slack.sendSlashCommand({ text, userId, channelId: CHANNEL });
  const answer = await world.slack.waitFor(() =>
    world.slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
  );
  // Its fallback text, then its blocks (where notes are).
  return `${answer.text ?? ""}\n${JSON.stringify(answer.blocks ?? [])}`;
}

/** Opens the person's Home tab and waits for the app to publish it anew; returns its blocks as text. */
async function openHome(user: string): Promise<string> {
  const before = world.slack.state.homeView(user)?.publishes ?? 0;
  await world.slack.openHome({ userId: user });
  return world.slack.waitFor(() => {
    const view = world.slack.state.homeView(user);
    return view && view.publishes > before ? JSON.stringify(view.view.blocks) : undefined;
  });
}

/** Comments on a pull request of its own; Yardmaster's answer in its summary comment, once written. */
async function comment(body: string, author = "alice"): Promise<string> {
  pull += 1;
  const number = pull;
  await world.github.deliverIssueComment({ repository: REPO, number, body, author });
  const answer = await eventually(
    () =>
      world.github.state
        .comments(REPO, number)
        .find(
          (c: { body: string }) =>
            c.body.includes(SUMMARY_MARKER) && c.body.split("\n").filter((line) => line.trim()).length >= 3,
        )?.body,
  );
  return (answer ?? "").replace(/\\/g, "");
}

/** Both replicas have made at least `n` more passes (each looks every 50 ms). */
async function passes(n = 4): Promise<void> {
  const counts = () => [world.yardmaster, second.app].map((app) => app.freezeRunner.passCount);
  const before = counts();
  await eventually(() => counts().every((c, i) => c >= (before[i] ?? 0) + n));
}

/** "fri 18:00" in UTC. */
function dayAndTime(at: Date): string {
  return `${DAYS[at.getUTCDay()]} ${at.toISOString().slice(11, 16)}`;
}

describe("a weekly freeze window, two replicas on PostgreSQL", () => {
  it("says so 15 minutes before, pauses at its start and resumes at its end, each once", async () => {
    const start = new Date(Math.ceil((world.sim.clock.now() + 60 * MINUTE) / MINUTE) * MINUTE);
    const end = new Date(start.getTime() + 2 * 60 * MINUTE);
    const answer = await slash(
      `freeze ${REPO} weekend freeze every ${dayAndTime(start)} - ${dayAndTime(end)}`,
    );
    expect(answer).toContain(`every ${dayAndTime(start)} - ${dayAndTime(end)} UTC`);
    expect(answer).toContain(
      `next from ${DAYS[start.getUTCDay()]?.replace(/^./, (c) => c.toUpperCase())} ${start.toISOString().slice(0, 16).replace("T", " ")}`,
    );
    const listed = await slash(`freezes ${REPO}`);
    expect(listed).toContain("#1 weekend freeze");
    // status and the Home tab show the next freeze.
    expect(await slash(`status ${REPO}`)).toContain("Freeze weekend freeze: next from");
    const home = await openHome(ALICE);
    expect(home).toContain("freeze weekend freeze, next from");

    // 20 minutes before: nothing yet. 10 minutes before: one notice, whichever replica sends it.
    world.sim.clock.advance(start.getTime() - world.sim.clock.now() - 20 * MINUTE);
    await passes();
    expect(freezeNotices()).toEqual([]);
    world.sim.clock.advance(10 * MINUTE);
    await eventually(() => freezeNotices().length > 0);
    await passes();
    expect(freezeNotices()).toEqual([
      expect.stringMatching(/^❄️ The freeze "weekend freeze" of acme\/frost begins in 10 minutes/),
    ]);
    expect(paused().paused).toBe(false);

    world.sim.requests.reset();
    world.sim.clock.advance(10 * MINUTE);
    await eventually(() => paused().paused);
    await passes();
    expect(paused()).toMatchObject({ paused: true, reason: "weekend freeze (scheduled by alice)" });
    expect(pauseRequests("PUT")).toBe(1);
    expect(await slash(`freezes ${REPO}`)).toContain("in progress until");

    world.sim.clock.advance(2 * 60 * MINUTE);
    await eventually(() => !paused().paused);
    await passes();
    expect(pauseRequests("PUT")).toBe(1);
    expect(pauseRequests("DELETE")).toBe(1);
    expect(await world.yardmaster.store.getPauseAttribution(Repo.from(REPO))).toMatchObject({
      action: "unpause",
      actor: "alice",
      scheduled: true,
    });
    // Next week's window is the next one.
    const nextWeek = new Date(start.getTime() + 7 * 24 * 60 * MINUTE);
    expect(await slash(`freezes ${REPO}`)).toContain(nextWeek.toISOString().slice(0, 16).replace("T", " "));
  });

  it("is ended early by unpause, and leaves alone a pause someone set meanwhile, saying so", async () => {
    const [weekend] = await world.yardmaster.store.listFreezes(Repo.from(REPO));
    if (!weekend) throw new Error("the weekly freeze is gone");
    const windowAfter = (at: number) => {
      const w = windowAt(weekend.schedule, weekend.zone, new Date(at));
      if (!w) throw new Error("a weekly freeze always has a next window");
      return w;
    };
    // Next week's window, unpaused by hand a minute in: it stays unpaused.
    const next = windowAfter(world.sim.clock.now());
    world.sim.clock.advance(next.start.getTime() - world.sim.clock.now() + MINUTE);
    await eventually(() => paused().paused);
    expect(await comment("@yardmaster unpause")).toContain("running again");
    world.sim.requests.reset();
    await passes();
    expect(paused().paused).toBe(false);
    expect(pauseRequests("PUT")).toBe(0);

    // The week after: someone pauses for an incident during the window; its end leaves that pause alone.
    const after = windowAfter(next.end.getTime());
    world.sim.clock.advance(after.start.getTime() - world.sim.clock.now() + MINUTE);
    await eventually(() => paused().paused);
    world.sim.state.unpause(REPO);
    world.sim.state.pause(REPO, "incident: main is red");
    world.sim.clock.advance(after.end.getTime() - world.sim.clock.now() + MINUTE);
    await eventually(() => freezeNotices().some((t) => t.includes("paused again meanwhile")));
    await passes();
    expect(paused()).toMatchObject({ paused: true, reason: "incident: main is red" });
    expect(freezeNotices().filter((t) => t.includes("paused again meanwhile"))).toHaveLength(1);
    world.sim.state.unpause(REPO);
  });

  it("refuses bad input with a clear message, changing nothing; needs write permission", async () => {
    const before = await world.yardmaster.store.listFreezes(Repo.from(REPO));
    expect(await slash(`freeze ${REPO} bad every fry 18:00 - mon 08:00`)).toContain('"fry" is not a day');
    expect(await slash(`freeze ${REPO} bad every fri 18:00 - mon 08:00 Mars/Olympus`)).toContain(
      '"Mars/Olympus" is not a time zone',
    );
    expect(await slash(`freeze ${REPO} bad from 2020-01-02 00:00 to 2020-01-01 00:00`)).toContain(
      "the window ends before it starts",
    );
    expect(await slash(`freeze ${REPO} bad from 2020-01-01 00:00 to 2020-01-02 00:00`)).toContain(
      "the window ends in the past",
    );
    expect(await slash(`freeze ${REPO} weekend freeze every sat 10:00 - sat 12:00`)).toContain(
      'already has a freeze named "weekend freeze"',
    );
    expect(await comment("@yardmaster freeze nightly every day 22:00 - 06:00", "rita")).toContain(
      "`freeze` needs **write** permission",
    );
    expect(await world.yardmaster.store.listFreezes(Repo.from(REPO))).toEqual(before);
  });

  it("is set and removed from GitHub too, its zone UTC there", async () => {
    const set = await comment("@yardmaster freeze nightly every day 22:00 - 06:00");
    expect(set).toContain("every day 22:00 - 06:00 UTC");
    expect(await comment("@yardmaster unfreeze nightly")).toContain("Removed the freeze");
    expect((await world.yardmaster.store.listFreezes(Repo.from(REPO))).map((f) => f.name)).toEqual([
      "weekend freeze",
    ]);
    expect(await slash(`unfreeze ${REPO} 1`)).toContain("weekend freeze");
    expect(await world.yardmaster.store.listFreezes(Repo.from(REPO))).toEqual([]);
  });
});
