import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pushedEventId } from "../../src/core/pushed-events.js";
import { SETTLE_MS } from "../../src/outside-merges/watch.js";
import { Repo } from "../../src/repo.js";
import { METADATA_EVENT_TYPE } from "../../src/slack/slack-poster.js";
import { eventually, linkSlackUser, startWorld, subscribeChannel, type World } from "../helpers/e2e.js";

/**
 * Merges that skipped Mergify's queue, end to end (docs/notifications.md, "Merged outside the queue"): the
 * merge-queue simulator merges what it queued and logs it; the GitHub stand-in merges a pull request
 * directly when a person asks (the merge button), which the simulator sees as a merge by hand. GitHub's
 * `closed` webhook of each reaches Yardmaster; Mergify's log, read by the poller, says which the queue
 * merged. The poller is ticked by hand on the simulator's clock.
 */
const BOATS = "acme/boats";
const HEALTH = "C0HEALTH"; // queue, health
const QUIET = "C0QUIET"; // queue
const ALICE = "U0ALICE";
const SECOND = 1_000;
let world: World;

beforeAll(async () => {
  world = await startWorld();
  world.sim.state.addRepository(BOATS, { branches: ["main"] });
  const { state } = world.github;
  state.addRepository(BOATS);
  state.setPermission(BOATS, "alice", "write");
  state.setPermission(BOATS, "dana", "write");
  for (const [number, title, base] of [
    [7, "Oars", "main"],
    [8, "Hotfix <keel>", "main"],
    [9, "Rudder", "main"],
    [10, "Pages", "gh-pages"],
  ] as const)
    state.addPullRequest({ repository: BOATS, number, author: "alice", title, base });
  world.slack.state.addUser({ id: ALICE, name: "alice" });
  await linkSlackUser(world, ALICE, "alice", 1);
  await subscribeChannel(world, HEALTH, [BOATS], ["queue", "health"]);
  await subscribeChannel(world, QUIET, [BOATS], ["queue"]);
  world.sim.clock.advance(5 * SECOND);
}, 60_000);
afterAll(async () => {
  await world?.close();
});

const outsideId = (number: number) => pushedEventId(`merged-outside:${Repo.from(BOATS).key}#${number}`);
/** The channel's messages about a merge outside the queue, with the pull request each is about. */
function outsideNotices(channel: string) {
  return world.slack.state.messages(channel).flatMap((top) =>
    [top, ...top.replies]
      .filter((m) => m.metadata?.event_type === METADATA_EVENT_TYPE)
      .flatMap((m) => {
        const pull = [7, 8, 9, 10].find((n) => Number(m.metadata?.event_payload.event_id) === outsideId(n));
        return pull === undefined ? [] : [{ pull, topLevel: m === top, text: m.text ?? "" }];
      }),
  );
}
const judgement = (number: number) =>
  world.yardmaster.store.getMergedPullJudgement(Repo.from(BOATS), number).then((j) => j?.judgement);
const queue = (number: number, title: string) =>
  world.sim.state.relayCommand(BOATS, {
    body: "@mergifyio queue",
    pull_request: { number, title, base_ref: "main", author: { id: 1, login: "alice" } },
  });
/** Judges what is due, then posts what it said. */
async function judge(): Promise<number> {
  const said = await world.yardmaster.outsideMerges!.runDue();
  await world.yardmaster.poller!.deliver();
  return said;
}

describe("a pull request merged outside Mergify's queue", () => {
  it("merged by hand (queued or not) is said once in the health channel; merged by the queue is not", async () => {
    queue(7, "Oars");
    queue(9, "Rudder");
    await world.yardmaster.poller!.tick();
    // #9 is merged with the merge button while queued (Mergify then drops it), #8 without ever being queued.
    world.github.mergeDirectly(BOATS, 9, "dana");
    world.github.mergeDirectly(BOATS, 8, "dana");
    // The queue merges #7: its batch's fill wait, then its checks.
    world.sim.clock.advance(70 * SECOND);
    await world.github.settle();
    expect(
      world.sim.state
        .events(BOATS)
        .filter((e) => e.type === "action.queue.merged")
        .map((e) => e.pull_request),
    ).toEqual([7]);
    // Before the log is read past the merges, nothing can be told.
    expect(await judge()).toBe(0);
    world.sim.clock.advance(SETTLE_MS + SECOND);
    await world.yardmaster.poller!.tick();
    expect(await judge()).toBe(2);
    expect(await judgement(7)).toBe("queue");
    await eventually(() => outsideNotices(HEALTH).length === 2);
    const notices = outsideNotices(HEALTH).sort((a, b) => a.pull - b.pull);
    expect(notices.map((n) => [n.pull, n.topLevel])).toEqual([
      [8, true],
      [9, true],
    ]);
    expect(notices[0]?.text).toBe(
      "acme/boats#8 was merged into main by @\u200bdana without going through the merge queue: it was not tested with the rest of the queue. Check that main still passes its checks.",
    );
    expect(outsideNotices(QUIET)).toEqual([]);
    // The channel heard #9 leave the queue, in Mergify's words.
    expect(JSON.stringify(world.slack.state.messages(HEALTH))).toContain("it was merged by hand");
  });

  it("a redelivered webhook, and a branch Mergify has no queue for, say nothing more", async () => {
    const closed = world.github.deliveries.find(
      (d) =>
        d.event === "pull_request" && d.action === "closed" && (d.payload as { number: number }).number === 8,
    );
    expect((await world.github.redeliver(closed!.deliveryId)).status).toBe(200);
    world.github.mergeDirectly(BOATS, 10, "dana");
    await world.github.settle();
    world.sim.clock.advance(SETTLE_MS + SECOND);
    await world.yardmaster.poller!.tick();
    expect(await judge()).toBe(0);
    expect(await judgement(10)).toBe("no-queue");
    expect(outsideNotices(HEALTH)).toHaveLength(2);
  });

  it("/mq stats counts them next to Mergify's own figures", async () => {
    world.sim.clock.advance(60 * SECOND);
    const sent = await world.slack.sendSlashCommand({
      text: `stats ${BOATS}`,
      userId: ALICE,
      channelId: HEALTH,
    });
    const answer = await world.slack.waitFor(() =>
      world.slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
    );
    expect(answer.text).toContain("merged 1 (previous 7 days: 0, +1)");
    expect(answer.text).toContain("merged outside the queue 2 (previous 7 days: 0, +2)");
    expect(JSON.stringify(answer.blocks)).toContain("acme/boats#9 by @\u200bdana");
  });
});
