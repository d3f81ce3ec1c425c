import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_MIN_GAP_MS } from "../../src/notifier/poller.js";
import { Repo } from "../../src/repo.js";
import { ACTION_IDS, requeueValue } from "../../src/slack/actions.js";
import { METADATA_EVENT_TYPE } from "../../src/slack/slack-poster.js";
import { linkSlackUser, startWorld, subscribeChannel, type World } from "../helpers/e2e.js";

/**
 * Personal notices end to end (docs/notifications.md, "Personal notices"): the author of a pull request,
 * linked with `/mq login`, hears about it in one threaded direct message; nobody else does. The poller is
 * ticked by hand on the simulator's clock.
 */
let world: World;
const REPO = "acme/gadgets";
const CHANNEL = "C0GADGETS";
const ALICE = "U0ALICE"; // linked, writer: the author of #7 and #10
const BOB = "U0BOB"; // not linked: the author of #8
const CAROL = "U0CAROL"; // linked, muted the repository: the author of #9

beforeAll(async () => {
  world = await startWorld({ POLL_IDLE_SECONDS: "15" });
  world.sim.state.addRepository(REPO, { branches: ["main"] });
  world.github.state.addRepository(REPO);
  for (const [login, user] of [
    ["alice", ALICE],
    ["bob", BOB],
    ["carol", CAROL],
  ] as const) {
    world.github.state.setPermission(REPO, login, "write");
    world.slack.state.addUser({ id: user, name: login });
  }
  for (const [login, user, id] of [
    ["alice", ALICE, 1],
    ["carol", CAROL, 3],
  ] as const) {
    await linkSlackUser(world, user, login, id);
  }
  await subscribeChannel(world, CHANNEL, [REPO]);
  const muted = await world.slack.sendSlashCommand({
    text: `notify repo=${REPO} off`,
    userId: CAROL,
    channelId: CHANNEL,
  });
  const answer = await answerTo(muted.responseUrl);
  expect(answer.text).toContain("is muted");
  world.sim.clock.advance(5_000);
});
afterAll(async () => {
  await world?.close();
});

function answerTo(responseUrl: string) {
  return world.slack.waitFor(
    () => world.slack.state.responses.find((r) => r.responseUrl === responseUrl),
    10_000,
  );
}

/** Every notice in a person's direct messages, with the event id its metadata carries. */
function directNotices(user: string) {
  const channel = world.slack.state.directChannel(user);
  if (!channel) return [];
  return world.slack.state.messages(channel.id).flatMap((top) =>
    [top, ...top.replies]
      .filter((m) => m.metadata?.event_type === METADATA_EVENT_TYPE)
      .map((m) => ({
        ts: m.ts,
        parent: m === top,
        threadTs: m === top ? null : top.ts,
        eventId: Number(m.metadata?.event_payload.event_id),
        text: m.text,
      })),
  );
}

const tick = () => world.yardmaster.poller!.tick();

function open(number: number, author: string, title: string) {
  world.github.state.addPullRequest({ repository: REPO, number, author, title, base: "main" });
  world.sim.clock.advance(1_000);
  world.sim.state.relayCommand(REPO, {
    body: "@mergifyio queue",
    pull_request: { number, title, base_ref: "main", author: { id: number, login: author } },
  });
}

/** The events of a pull request an author hears about: entered, left, merged. */
const ownEvents = (number: number) =>
  world.sim.state
    .events(REPO)
    .filter((e) => e.pull_request === number && /^action\.queue\.(enter|leave|merged)$/.test(e.type));

describe("personal notices, end to end", () => {
  it("tells a linked author, in one thread, of enter, leave with failed checks, requeue and merge, once each", async () => {
    open(7, "alice", "Add cogs");
    world.sim.state.setChecks(REPO, 7, "failure", "ci/test");
    await tick();
    const entered = directNotices(ALICE);
    expect(entered).toHaveLength(1);
    expect(entered[0]?.parent).toBe(true);
    expect(entered[0]?.text).toContain("#7 Add cogs");

    // The checks fail: it leaves the queue, with the failed check and a Requeue button.
    world.sim.clock.advance(70_000);
    await tick();
    const left = directNotices(ALICE);
    const leave = world.sim.state
      .events(REPO)
      .find((e) => e.pull_request === 7 && e.type === "action.queue.leave");
    expect(leave).toBeDefined();
    const leaveNotice = left.find((n) => n.eventId === leave?.id);
    expect(leaveNotice?.threadTs).toBe(entered[0]?.ts);
    const dm = world.slack.state.directChannel(ALICE)!.id;
    const leaveMessage = world.slack.state.message(dm, leaveNotice!.ts);
    expect(JSON.stringify(leaveMessage?.blocks)).toContain("ci/test");
    expect(JSON.stringify(leaveMessage?.blocks)).toContain(ACTION_IDS.requeue);
    // The thread's parent shows the latest state.
    expect(world.slack.state.message(dm, entered[0]!.ts)?.text).toMatch(/left/i);

    // Requeue from the direct message: the same path as /mq requeue (relayed through GitHub).
    world.sim.state.setChecks(REPO, 7, "success");
    const click = await world.slack.clickButton({
      actionId: ACTION_IDS.requeue,
      value: requeueValue(Repo.from(REPO), 7),
      userId: ALICE,
      channelId: dm,
    });
    const answer = await answerTo(click.responseUrl);
    expect(answer.text).not.toMatch(/🚫|⚠️/);
    await world.slack.waitFor(() => ownEvents(7).filter((e) => e.type === "action.queue.enter").length === 2);
    world.sim.clock.advance(70_000);
    await tick();
    world.sim.clock.advance(15_000);
    await tick();

    const wanted = ownEvents(7);
    expect(wanted.map((e) => e.type)).toEqual(
      expect.arrayContaining(["action.queue.enter", "action.queue.leave", "action.queue.merged"]),
    );
    const all = directNotices(ALICE);
    for (const e of wanted)
      expect(
        all.filter((n) => n.eventId === e.id),
        e.type,
      ).toHaveLength(1);
    // One thread: one parent, every other notice a reply in it.
    expect(all.filter((n) => n.parent)).toHaveLength(1);
    expect(all.every((n) => n.parent || n.threadTs === entered[0]?.ts)).toBe(true);
    expect(world.slack.state.message(dm, entered[0]!.ts)?.text).toMatch(/merged/i);
    // Ticking again repeats nothing.
    world.sim.clock.advance(15_000);
    await tick();
    expect(directNotices(ALICE)).toHaveLength(all.length);
  });

  it("tells an unlinked author nothing, nor a linked one who muted the repository", async () => {
    open(8, "bob", "Unlinked change");
    open(9, "carol", "Muted change");
    await tick();
    world.sim.clock.advance(70_000);
    await tick();
    expect(ownEvents(8).length).toBeGreaterThan(0);
    expect(ownEvents(9).length).toBeGreaterThan(0);
    expect(directNotices(BOB)).toEqual([]);
    expect(directNotices(CAROL)).toEqual([]);
    // The channel heard of both.
    const channelText = JSON.stringify(world.slack.state.messages(CHANNEL));
    expect(channelText).toContain("#8");
    expect(channelText).toContain("#9");
  });

  it("refuses the Requeue button of a direct message to an author who lost write access since", async () => {
    open(10, "alice", "Add sprockets");
    world.sim.state.setChecks(REPO, 10, "failure", "ci/lint");
    await tick();
    world.sim.clock.advance(70_000);
    await tick();
    const leave = ownEvents(10).find((e) => e.type === "action.queue.leave");
    expect(leave).toBeDefined();
    expect(directNotices(ALICE).some((n) => n.eventId === leave?.id)).toBe(true);

    world.github.state.setPermission(REPO, "alice", "read");
    const events = world.sim.state.events(REPO).length;
    const comments = world.github.state.comments(REPO, 10).length;
    const click = await world.slack.clickButton({
      actionId: ACTION_IDS.requeue,
      value: requeueValue(Repo.from(REPO), 10),
      userId: ALICE,
      channelId: world.slack.state.directChannel(ALICE)!.id,
    });
    const answer = await answerTo(click.responseUrl);
    expect(answer.response_type).toBe("ephemeral");
    expect(answer.text).toContain("write");
    expect(answer.text).toMatch(/🚫/);
    expect(world.github.state.comments(REPO, 10).length).toBe(comments);
    expect(world.sim.state.events(REPO).length).toBe(events);
    world.github.state.setPermission(REPO, "alice", "write");
  });
  it("tells an author who asked for pauses that a queue holding their pull request was paused, once", async () => {
    const sent = await world.slack.sendSlashCommand({
      text: "notify events=queue,pause",
      userId: ALICE,
      channelId: CHANNEL,
    });
    expect((await answerTo(sent.responseUrl)).text).toContain("queue, pause events of your pull requests");
    open(12, "alice", "Add gears");
    // The doorbell reads the repository at most once per minimum gap: its read of #12 comes after it.
    world.sim.clock.advance(DEFAULT_MIN_GAP_MS);
    await tick();
    const before = directNotices(ALICE).length;
    world.sim.clock.advance(1_000);
    world.sim.state.pause(REPO, "release freeze");
    world.sim.clock.advance(15_000);
    await tick();
    const pause = world.sim.state.events(REPO).find((e) => e.type === "queue.pause.create");
    expect(pause).toBeDefined();
    const notices = directNotices(ALICE);
    // One top-level message, although alice's earlier pull requests are in the same repository.
    expect(notices.filter((n) => n.eventId === pause?.id)).toEqual([
      expect.objectContaining({ parent: true }),
    ]);
    expect(notices.length).toBe(before + 1);
    expect(notices.find((n) => n.eventId === pause?.id)?.text).toContain("release freeze");
    expect(directNotices(CAROL)).toEqual([]);
    world.sim.state.unpause(REPO);
  });
});
