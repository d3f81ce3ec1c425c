import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pushedEventId } from "../../src/backends/github/queue-events.js";
import { Repo } from "../../src/repo.js";
import { METADATA_EVENT_TYPE } from "../../src/slack/slack-poster.js";
import { linkSlackUser, startWorld, subscribeChannel, type World } from "../helpers/e2e.js";

/**
 * Who queued a pull request hears of it, "you're next", and a failed check that also failed for others,
 * end to end against the merge-queue simulator (docs/notifications.md, "Personal notices"). The poller is
 * ticked by hand on the simulator's clock.
 */
let world: World;
const REPO = "acme/queuers";
const CHANNEL = "C0QUEUERS";
const ALICE = "U0ALICE"; // linked: the author of #21, #22
const CAROL = "U0CAROL"; // linked: queues alice's #21
const DAVE = "U0DAVE"; // linked: the author of #24
const IDS: Record<string, number> = { alice: 1, bob: 2, carol: 3, dave: 4 };

beforeAll(async () => {
  world = await startWorld({ POLL_IDLE_SECONDS: "15" });
  world.sim.state.addRepository(REPO, { branches: ["main"] });
  world.github.state.addRepository(REPO);
  for (const login of Object.keys(IDS)) world.github.state.setPermission(REPO, login, "write");
  for (const [login, user] of [
    ["alice", ALICE],
    ["carol", CAROL],
    ["dave", DAVE],
  ] as const) {
    world.slack.state.addUser({ id: user, name: login });
    await linkSlackUser(world, user, login, IDS[login]);
  }
  await subscribeChannel(world, CHANNEL, [REPO]);
  world.sim.clock.advance(5_000);
});
afterAll(async () => {
  await world?.close();
});

/** Every notice in a person's direct messages: its event id and text. */
function directNotices(user: string) {
  const channel = world.slack.state.directChannel(user);
  if (!channel) return [];
  return world.slack.state.messages(channel.id).flatMap((top) =>
    [top, ...top.replies]
      .filter((m) => m.metadata?.event_type === METADATA_EVENT_TYPE)
      .map((m) => ({
        eventId: Number(m.metadata?.event_payload.event_id),
        text: m.text,
        blocks: JSON.stringify(m.blocks),
      })),
  );
}

const tick = () => world.yardmaster.poller!.tick();

/** Opens a pull request and has `queuedBy` comment the merge queue's `queue` command on it. */
function open(number: number, author: string, title: string, queuedBy = author) {
  world.github.state.addPullRequest({ repository: REPO, number, author, title, base: "main" });
  world.sim.clock.advance(1_000);
  world.sim.state.relayCommand(REPO, {
    body: "@mergifyio queue",
    author: { id: IDS[queuedBy] ?? 99, login: queuedBy },
    pull_request: { number, title, base_ref: "main", author: { id: IDS[author] ?? 99, login: author } },
  });
}

/** Reads the log while the simulator's clock moves on: the checks run, then it merges or leaves. */
async function runQueue() {
  await tick();
  world.sim.clock.advance(70_000);
  await tick();
  world.sim.clock.advance(15_000);
  await tick();
}

/** The events of a pull request its people hear about: entered, left, merged. */
const ownEvents = (number: number) =>
  world.sim.state
    .events(REPO)
    .filter((e) => e.pull_request === number && /^action\.queue\.(enter|leave|merged)$/.test(e.type));

const youreNext = (user: string, number: number) =>
  directNotices(user).filter((n) => n.text.includes(`#${number} you're next`));

describe("the person who queued a pull request, end to end", () => {
  it("hears of someone else's pull request they queued once each, as its author does, and you're next once", async () => {
    open(21, "alice", "Add cogs", "carol");
    await runQueue();
    const wanted = ownEvents(21);
    expect(wanted.map((e) => e.type)).toEqual(
      expect.arrayContaining(["action.queue.enter", "action.queue.merged"]),
    );
    for (const user of [ALICE, CAROL]) {
      const notices = directNotices(user);
      for (const e of wanted)
        expect(
          notices.filter((n) => n.eventId === e.id),
          `${user} ${e.type}`,
        ).toHaveLength(1);
      // Its checks started at the head of the queue: "you're next", once.
      expect(youreNext(user, 21), user).toHaveLength(1);
    }
    expect(directNotices(DAVE)).toEqual([]);
    // Ticking again repeats nothing.
    const counts = [directNotices(ALICE).length, directNotices(CAROL).length];
    world.sim.clock.advance(15_000);
    await tick();
    expect([directNotices(ALICE).length, directNotices(CAROL).length]).toEqual(counts);
  });

  it("an author who queued their own pull request hears of each event once", async () => {
    const before = directNotices(CAROL).length;
    open(22, "alice", "Add gears");
    await runQueue();
    const wanted = ownEvents(22);
    expect(wanted.length).toBeGreaterThanOrEqual(2);
    const notices = directNotices(ALICE);
    for (const e of wanted)
      expect(
        notices.filter((n) => n.eventId === e.id),
        e.type,
      ).toHaveLength(1);
    expect(youreNext(ALICE, 22)).toHaveLength(1);
    expect(directNotices(CAROL)).toHaveLength(before);
  });

  it("someone who queued another's pull request from Slack (relayed by Yardmaster's bot) hears of it too", async () => {
    world.github.state.addPullRequest({
      repository: REPO,
      number: 25,
      author: "alice",
      title: "Add bolts",
      base: "main",
    });
    world.sim.clock.advance(1_000);
    const sent = await world.slack.sendSlashCommand({
      text: `queue ${REPO}#25`,
      userId: CAROL,
      channelId: CHANNEL,
    });
    await world.slack.waitFor(
      () => world.slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
      10_000,
    );
    await world.slack.waitFor(
      () => ownEvents(25).some((e) => e.type === "action.queue.enter") || undefined,
      10_000,
    );
    // The merge queue's log names the app's bot as who ran `queue`; Yardmaster knows it was carol.
    const command = world.sim.state
      .events(REPO)
      .find((e) => e.pull_request === 25 && e.type === "command.queue");
    expect((command?.metadata as { author?: { login: string } } | undefined)?.author?.login).toMatch(
      /\[bot\]$/,
    );
    await runQueue();
    const wanted = ownEvents(25);
    expect(wanted.map((e) => e.type)).toEqual(
      expect.arrayContaining(["action.queue.enter", "action.queue.merged"]),
    );
    for (const user of [ALICE, CAROL]) {
      const notices = directNotices(user);
      for (const e of wanted)
        expect(
          notices.filter((n) => n.eventId === e.id),
          `${user} ${e.type}`,
        ).toHaveLength(1);
      expect(youreNext(user, 25), user).toHaveLength(1);
    }
  });

  it("says in the thread and the author's direct message that a failed check also failed for another pull request", async () => {
    open(23, "bob", "Bump parser");
    world.sim.state.setChecks(REPO, 23, "failure", "ci/test");
    await runQueue();
    open(24, "dave", "Add sprockets");
    world.sim.state.setChecks(REPO, 24, "failure", "ci/test");
    await runQueue();
    const leave = (n: number) =>
      world.sim.state.events(REPO).find((e) => e.pull_request === n && e.type === "action.queue.leave");
    expect(leave(23)).toBeDefined();
    expect(leave(24)).toBeDefined();
    const line =
      /ci\/test also failed for <[^>|]+\/pull\/23\|#23> in the last hour: probably not this change/;

    // The channel's thread of #24 says so in its leave notice, next to the Requeue button; #23's does not.
    const thread = (n: number) =>
      world.slack.state.messages(CHANNEL).find((top) => top.text.includes(`#${n} `))?.replies ?? [];
    const leaveReply = (n: number) =>
      thread(n).find((m) => Number(m.metadata?.event_payload.event_id) === leave(n)?.id);
    expect(JSON.stringify(leaveReply(24)?.blocks)).toMatch(line);
    expect(JSON.stringify(leaveReply(24)?.blocks)).toContain("requeue");
    expect(leaveReply(23)).toBeDefined();
    expect(JSON.stringify(leaveReply(23)?.blocks)).not.toContain("also failed");
    // So does its author's direct message.
    const dm = directNotices(DAVE).find((n) => n.eventId === leave(24)?.id);
    expect(dm?.blocks).toMatch(line);
  });
});

/**
 * The same on GitHub's own merge queue (MERGE_QUEUE_PROVIDER=github): the stand-in runs the queue and
 * sends its webhooks; who queued a pull request is the `enqueued` webhook's sender.
 */
describe("the person who queued a pull request, on GitHub's merge queue", () => {
  const SHIPS = "acme/ships";
  const SHIPS_CHANNEL = "C0SHIPS";
  let gh: World;

  beforeAll(async () => {
    gh = await startWorld({ MERGE_QUEUE_PROVIDER: "github", MERGE_QUEUE_API_TOKEN: "" });
    const { state } = gh.github;
    state.addRepository(SHIPS);
    for (const login of Object.keys(IDS)) state.setPermission(SHIPS, login, "write");
    gh.github.mergeQueues.enable(SHIPS, "main");
    for (const [number, author] of [
      [31, "alice"],
      [32, "bob"],
      [33, "dave"],
      [34, "alice"],
    ] as const)
      state.addPullRequest({ repository: SHIPS, number, author, title: `Part ${number}`, base: "main" });
    for (const [login, user] of [
      ["alice", ALICE],
      ["carol", CAROL],
      ["dave", DAVE],
    ] as const) {
      gh.slack.state.addUser({ id: user, name: login });
      await linkSlackUser(gh, user, login, IDS[login]);
    }
    await subscribeChannel(gh, SHIPS_CHANNEL, [SHIPS]);
    gh.sim.clock.advance(60_000);
  });
  afterAll(async () => {
    await gh?.close();
  });

  /**
   * What each notice is about, from the webhooks the stand-in sent: a notice's metadata carries its event
   * id, which comes from the delivery id (or, for a merge, from the pull request).
   */
  function pushedEvents(): Map<number, string> {
    const events = new Map<number, string>();
    for (const d of gh.github.deliveries) {
      const id = pushedEventId(`delivery:${d.deliveryId}`);
      if (d.event === "merge_group" && d.action === "checks_requested") events.set(id, "checks_start");
      if (d.event !== "pull_request") continue;
      const payload = d.payload as { number: number; reason?: string; pull_request: { merged?: boolean } };
      if (d.action === "enqueued") events.set(id, "enter");
      if (d.action === "dequeued" && payload.reason !== "MERGE") events.set(id, "leave");
      if (d.action === "closed" && payload.pull_request.merged)
        events.set(pushedEventId(`merged:${Repo.from(SHIPS).key}#${payload.number}`), "merged");
    }
    return events;
  }

  /**
   * The notices of a pull request in a person's direct messages (or a channel), by what they are about.
   * (GitHub's webhooks are handled at once: a thread may start with either its entry or its checks.)
   */
  const notices = (channelId: string | undefined, pull: number) => {
    if (!channelId) return [];
    const events = pushedEvents();
    return gh.slack.state.messages(channelId).flatMap((top) =>
      [top, ...top.replies]
        .filter((m) => m.metadata?.event_type === METADATA_EVENT_TYPE && top.text.includes(`#${pull} `))
        .map((m) => ({
          type: events.get(Number(m.metadata?.event_payload.event_id)) ?? "unknown",
          reply: m !== top,
          blocks: JSON.stringify(m.blocks ?? []),
        })),
    );
  };
  const direct = (user: string, pull: number) => notices(gh.slack.state.directChannel(user)?.id, pull);
  const ofType = <T extends { type: string }>(list: T[], type: string) => list.filter((n) => n.type === type);
  const enqueue = (number: number, by: string) =>
    gh.github.mergeQueues.enqueue(gh.github.state.getIssue(SHIPS, number)!, gh.github.state.getUser(by)!, {
      jump: false,
      expectedHeadOid: null,
    });
  async function settled(until: () => boolean): Promise<void> {
    await gh.github.settle();
    await gh.slack.waitFor(() => until() || undefined);
  }

  it("someone who queued another's pull request hears of its entry, you're next and its merge once, as its author does", async () => {
    enqueue(31, "carol");
    const people = [ALICE, CAROL];
    await settled(() =>
      people.every(
        (u) => ofType(direct(u, 31), "checks_start").length > 0 && ofType(direct(u, 31), "enter").length > 0,
      ),
    );
    gh.github.mergeQueues.completeChecks(SHIPS, 31, { ci: "success" });
    gh.github.mergeQueues.merge(SHIPS, "main");
    await settled(() => people.every((u) => ofType(direct(u, 31), "merged").length > 0));
    for (const user of people) {
      const dms = direct(user, 31);
      expect(dms.map((n) => n.type).sort(), user).toEqual(["checks_start", "enter", "merged"]);
      expect(ofType(dms, "merged")[0]?.blocks, user).toContain("Merged into");
    }
    expect(gh.slack.state.directChannel(DAVE)).toBeUndefined();
  });

  it("someone who queued another's pull request from Slack (enqueued by Yardmaster's bot) hears of it too", async () => {
    const sent = await gh.slack.sendSlashCommand({
      text: `queue ${SHIPS}#34`,
      userId: CAROL,
      channelId: SHIPS_CHANNEL,
    });
    await gh.slack.waitFor(
      () => gh.slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
      10_000,
    );
    expect(gh.github.mergeQueues.entries(SHIPS, "main").map((e) => e.pull.number)).toContain(34);
    // The enqueued and checks webhooks are handled at once: both direct messages are waited for.
    await settled(() =>
      [ALICE, CAROL].every(
        (u) => ofType(direct(u, 34), "checks_start").length > 0 && ofType(direct(u, 34), "enter").length > 0,
      ),
    );
    for (const user of [ALICE, CAROL])
      expect(
        direct(user, 34)
          .map((n) => n.type)
          .sort(),
        user,
      ).toEqual(["checks_start", "enter"]);
    gh.github.mergeQueues.remove(gh.github.state.getIssue(SHIPS, 34)!);
    await settled(() => ofType(direct(ALICE, 34), "leave").length > 0);
  });

  it("a check that failed for two pull requests in their own merge groups: the second's leave says so", async () => {
    enqueue(32, "bob");
    await settled(() => ofType(notices(SHIPS_CHANNEL, 32), "enter").length > 0);
    expect(gh.github.mergeQueues.completeChecks(SHIPS, 32, { ci: "failure" })).toMatchObject({
      removed: true,
    });
    await settled(() => ofType(notices(SHIPS_CHANNEL, 32), "leave").length > 0);
    enqueue(33, "dave");
    await settled(() => ofType(direct(DAVE, 33), "checks_start").length > 0);
    expect(gh.github.mergeQueues.completeChecks(SHIPS, 33, { ci: "failure" })).toMatchObject({
      removed: true,
    });
    await settled(
      () =>
        ofType(direct(DAVE, 33), "leave").length > 0 &&
        ofType(notices(SHIPS_CHANNEL, 33), "leave").length > 0,
    );
    const line = /ci also failed for <[^>|]+\/pull\/32\|#32> in the last hour: probably not this change/;
    const [dm] = ofType(direct(DAVE, 33), "leave");
    expect(dm?.blocks).toMatch(line);
    expect(dm?.blocks).toContain("requeue");
    expect(ofType(notices(SHIPS_CHANNEL, 33), "leave")[0]?.blocks).toMatch(line);
    expect(ofType(notices(SHIPS_CHANNEL, 32), "leave")[0]?.blocks).not.toContain("also failed");
  });
});
