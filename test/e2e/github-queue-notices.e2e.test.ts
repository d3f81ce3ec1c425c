import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pushedEventId } from "../../src/backends/github/queue-events.js";
import { Repo } from "../../src/repo.js";
import { ACTION_IDS, requeueValue } from "../../src/slack/actions.js";
import { METADATA_EVENT_TYPE } from "../../src/slack/slack-poster.js";
import type { Yardmaster } from "../../src/yardmaster.js";
import { linkSlackUser, startWorld, subscribeChannel, type World } from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";

/**
 * Notices pushed by GitHub's own merge queue, end to end (docs/notifications.md, "GitHub's merge
 * queue"): MERGE_QUEUE_PROVIDER=github without any Mergify key, two replicas on one PostgreSQL. The
 * GitHub stand-in runs the queue and sends `pull_request` webhooks as GitHub does; nothing is polled.
 */
const db = useSchema("ym_ghq_notices");
const SHIPS = "acme/ships";
const CHANNEL = "C0SHIPS";
const ALICE = "U0ALICE"; // linked: the author of #11
const BOB = "U0BOB"; // not linked: the author of #12
let world: World;
let second: { app: Yardmaster; url: string };

beforeAll(async () => {
  world = await startWorld({
    DATABASE_URL: db.url(),
    MERGE_QUEUE_PROVIDER: "github",
    MERGE_QUEUE_API_TOKEN: "",
  });
  second = await world.replica();
  const { state } = world.github;
  state.addRepository(SHIPS);
  for (const login of ["alice", "bob"]) state.setPermission(SHIPS, login, "write");
  world.github.mergeQueues.enable(SHIPS, "main");
  state.addPullRequest({
    repository: SHIPS,
    number: 11,
    author: "alice",
    title: "Faster <hulls>",
    base: "main",
  });
  state.addPullRequest({
    repository: SHIPS,
    number: 12,
    author: "bob",
    title: "Brass fittings",
    base: "main",
  });
  state.addPullRequest({ repository: SHIPS, number: 13, author: "alice", title: "Sails", base: "main" });
  world.slack.state.addUser({ id: ALICE, name: "alice" });
  world.slack.state.addUser({ id: BOB, name: "bob" });
  await linkSlackUser(world, ALICE, "alice", 1);
  await subscribeChannel(world, CHANNEL, [SHIPS], ["queue", "checks"]);
  // The notifier's clock (the simulator's) stands still: it moves a minute past the subscription, made
  // on it, so that every webhook of the tests comes after it.
  world.sim.clock.advance(60_000);
});
afterAll(async () => {
  await world?.close();
});

interface Notice {
  ts: string;
  parent: boolean;
  threadTs: string | null;
  type: string;
  pull: number;
  text: string;
  blocks: string;
}

/**
 * What each notice is about, from the webhooks the stand-in sent: a notice's metadata carries its event
 * id, which comes from the delivery id (or, for a merge, from the pull request).
 */
function pushedEvents(): Map<number, { type: string; pull: number }> {
  const events = new Map<number, { type: string; pull: number }>();
  for (const d of world.github.deliveries) {
    if (d.event === "merge_group") {
      const group = d.payload as { merge_group: { head_ref: string } };
      const pull = Number(/\/pr-(\d+)-/.exec(group.merge_group.head_ref)?.[1]);
      const type = d.action === "checks_requested" ? "checks_start" : "checks_end";
      events.set(pushedEventId(`delivery:${d.deliveryId}`), { type, pull });
      continue;
    }
    if (d.event !== "pull_request") continue;
    const payload = d.payload as { number: number; reason?: string; pull_request: { merged?: boolean } };
    const pull = payload.number;
    if (d.action === "enqueued")
      events.set(pushedEventId(`delivery:${d.deliveryId}`), { type: "enter", pull });
    if (d.action === "dequeued" && payload.reason !== "MERGE")
      events.set(pushedEventId(`delivery:${d.deliveryId}`), { type: "leave", pull });
    if (d.action === "closed" && payload.pull_request.merged)
      events.set(pushedEventId(`merged:${Repo.from(SHIPS).key}#${pull}`), { type: "merged", pull });
  }
  return events;
}

/** The notices in a channel (or a person's direct messages), with the event each carries. */
function notices(channelId: string | undefined): Notice[] {
  if (!channelId) return [];
  const events = pushedEvents();
  return world.slack.state.messages(channelId).flatMap((top) =>
    [top, ...top.replies]
      .filter((m) => m.metadata?.event_type === METADATA_EVENT_TYPE)
      .map((m) => {
        const event = events.get(Number(m.metadata?.event_payload.event_id));
        return {
          ts: m.ts,
          parent: m === top,
          threadTs: m === top ? null : top.ts,
          type: event?.type ?? "unknown",
          pull: event?.pull ?? 0,
          text: m.text ?? "",
          blocks: JSON.stringify(m.blocks ?? []),
        };
      }),
  );
}
const channel = () => notices(CHANNEL);
const direct = (user: string) => notices(world.slack.state.directChannel(user)?.id);
const ofType = (list: Notice[], type: string, pull: number) =>
  list.filter((n) => n.type === type && n.pull === pull);

const comment = (number: number, body: string, author = "alice") =>
  world.github.deliverIssueComment({ repository: SHIPS, number, body, author });
const queued = () => world.github.mergeQueues.entries(SHIPS, "main").map((e) => e.pull.number);

/** Both replicas deliver what is pending, in turn, twice: neither finds the channel held by the other. */
async function drained(): Promise<void> {
  for (const app of [world.yardmaster, second.app, world.yardmaster, second.app]) await app.poller!.deliver();
}

/** Waits for the stand-in's webhooks to be answered and for what they brought to be posted. */
async function settled(until: () => boolean): Promise<void> {
  await world.github.settle();
  await world.slack.waitFor(() => until() || undefined);
}

describe("GitHub's merge queue pushes its notices (MERGE_QUEUE_PROVIDER=github, two replicas)", () => {
  it("a pull request queued from a comment: the channel hears it and its checks, the linked author gets a direct message", async () => {
    await comment(11, "@yardmaster queue");
    expect(queued()).toEqual([11]);
    await settled(
      () =>
        ofType(channel(), "checks_start", 11).length > 0 &&
        ofType(direct(ALICE), "enter", 11).length > 0 &&
        ofType(direct(ALICE), "checks_start", 11).length > 0,
    );
    const [entered] = ofType(channel(), "enter", 11);
    expect(entered?.parent).toBe(true);
    expect(entered?.blocks).toContain("queue `main`");
    expect(entered?.blocks).toContain("Faster &lt;hulls&gt;");
    const [started] = ofType(channel(), "checks_start", 11);
    expect(started?.threadTs).toBe(entered?.ts);
    expect(started?.blocks).toContain("Checks started");
    // The author hears of the queue, not of its checks (their default groups), but for "you're next"
    // (GitHub's two webhooks are handled at once: the direct thread starts with either).
    expect(
      direct(ALICE)
        .map((n) => n.type)
        .sort(),
    ).toEqual(["checks_start", "enter"]);
    // Nothing asked Mergify: there is none.
    expect(world.sim.requests.snapshot().total).toBe(0);
  });

  it("the author's Home tab shows it in GitHub's queue, with its position and Dequeue", async () => {
    const before = world.slack.state.homeView(ALICE)?.publishes ?? 0;
    expect((await world.slack.openHome({ userId: ALICE })).status).toBe(200);
    const home = await world.slack.waitFor(() => {
      const view = world.slack.state.homeView(ALICE);
      return view && view.publishes > before ? JSON.stringify(view.view.blocks) : undefined;
    });
    expect(home).toContain("acme/ships#11");
    expect(home).toContain("Faster &lt;hulls&gt;\\nPosition 1, merge expected");
    expect(home).toContain(ACTION_IDS.dequeue);
  });

  it("an unlinked author's pull request is told in the channel only", async () => {
    await comment(12, "@yardmaster queue", "bob");
    await settled(() => ofType(channel(), "checks_start", 12).length > 0);
    expect(ofType(channel(), "enter", 12)).toHaveLength(1);
    expect(direct(BOB)).toEqual([]);
  });

  it("failed checks: the removal says GitHub's reason and links the failed check, in the channel's thread and the author's, with Requeue", async () => {
    const outcome = world.github.mergeQueues.completeChecks(SHIPS, 11, { ci: "failure" });
    expect(outcome).toMatchObject({ removed: true, reason: "CI_FAILURE" });
    await settled(
      () =>
        ofType(channel(), "leave", 11).length > 0 &&
        ofType(channel(), "checks_end", 11).length > 0 &&
        ofType(channel(), "checks_start", 12).length === 2 &&
        ofType(direct(ALICE), "leave", 11).length > 0,
    );
    const [parent] = ofType(channel(), "enter", 11);
    const [left] = ofType(channel(), "leave", 11);
    expect(left?.threadTs).toBe(parent?.ts);
    expect(left?.blocks).toContain(
      "Left the merge queue `main` without merging: its merge group's required checks failed (<http",
    );
    expect(left?.blocks).toMatch(/<http:\/\/[^|]+\/acme\/ships\/runs\/\d+\|ci>\)/);
    const [ended] = ofType(channel(), "checks_end", 11);
    expect(ended?.blocks).toContain("Checks ended: `failure`");

    const [dm] = ofType(direct(ALICE), "leave", 11);
    expect(dm?.blocks).toMatch(/acme\/ships\/runs\/\d+\|ci>\)/);
    expect(dm?.blocks).toContain(ACTION_IDS.requeue);
    // The thread's parent shows the latest state.
    const dmChannel = world.slack.state.directChannel(ALICE)!.id;
    const dmParent = direct(ALICE).find((n) => n.parent);
    expect(world.slack.state.message(dmChannel, dmParent!.ts)?.text).toMatch(
      /left the queue without merging/i,
    );

    // The pull request behind had its merge group rebuilt: aborted, then started again.
    const [aborted] = ofType(channel(), "checks_end", 12);
    expect(aborted?.blocks).toContain("Checks aborted: a pull request ahead of it left the queue");
  });

  it("Requeue from the direct message puts it back in GitHub's queue, told once more", async () => {
    const click = await world.slack.clickButton({
      actionId: ACTION_IDS.requeue,
      value: requeueValue(Repo.from(SHIPS), 11),
      userId: ALICE,
      channelId: world.slack.state.directChannel(ALICE)!.id,
    });
    const answer = await world.slack.waitFor(
      () => world.slack.state.responses.find((r) => r.responseUrl === click.responseUrl),
      10_000,
    );
    expect(answer.text).not.toMatch(/🚫|⚠️/);
    expect(queued()).toEqual([12, 11]);
    await settled(
      () => ofType(direct(ALICE), "enter", 11).length === 2 && ofType(channel(), "enter", 11).length === 2,
    );
  });

  it("a merge through the queue is told once, though GitHub says it twice (dequeued MERGE, closed)", async () => {
    world.github.mergeQueues.completeChecks(SHIPS, 12, { ci: "success" });
    world.github.mergeQueues.merge(SHIPS, "main"); // #12, at the head
    world.github.mergeQueues.completeChecks(SHIPS, 11, { ci: "success" });
    world.github.mergeQueues.merge(SHIPS, "main"); // #11
    await settled(
      () =>
        ofType(channel(), "merged", 11).length > 0 &&
        ofType(channel(), "merged", 12).length > 0 &&
        ofType(direct(ALICE), "merged", 11).length > 0,
    );
    for (const number of [11, 12]) expect(ofType(channel(), "merged", number)).toHaveLength(1);
    expect(ofType(direct(ALICE), "merged", 11)).toHaveLength(1);
    const [merged] = ofType(channel(), "merged", 11);
    expect(merged?.blocks).toContain("Merged into `main`");
    expect(
      ofType(channel(), "checks_end", 12)
        .map((n) => n.blocks)
        .join(),
    ).toContain("Checks ended: `success`");
    // Nothing else was told: a removal for the merge is not a notice.
    expect(ofType(channel(), "leave", 12)).toEqual([]);
    // One thread per pull request in the author's direct messages and in the channel.
    expect(direct(ALICE).filter((n) => n.parent)).toHaveLength(1);
    expect(channel().filter((n) => n.parent)).toHaveLength(2);
  });

  it("a dequeue asked in Slack is told as that person's, not the app's", async () => {
    await comment(13, "@yardmaster queue");
    await settled(() => ofType(channel(), "enter", 13).length > 0);
    const sent = await world.slack.sendSlashCommand({
      text: `dequeue ${SHIPS}#13`,
      userId: ALICE,
      channelId: CHANNEL,
    });
    await world.slack.waitFor(
      () => world.slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
      10_000,
    );
    expect(queued()).toEqual([]);
    await settled(() => ofType(channel(), "leave", 13).length > 0);
    const [left] = ofType(channel(), "leave", 13);
    expect(left?.blocks).toContain("without merging: removed by alice (through Yardmaster)");
  });

  it("a redelivered webhook, to either replica or both at once, posts nothing twice", async () => {
    // Whatever the earlier webhooks brought is posted first (each replica delivers in the background).
    await world.github.settle();
    await drained();
    const before = { channel: channel().length, alice: direct(ALICE).length };
    const sent = world.github.deliveries.filter(
      (d) => d.event === "pull_request" || d.event === "merge_group",
    );
    expect(sent.length).toBeGreaterThan(10);
    for (const delivery of sent) {
      const [a, b] = await Promise.all([
        world.github.redeliver(delivery.deliveryId, `${world.url}/api/github/webhooks`),
        world.github.redeliver(delivery.deliveryId, `${second.url}/api/github/webhooks`),
      ]);
      expect([a.status, b.status]).toEqual([200, 200]);
    }
    await drained();
    expect(channel()).toHaveLength(before.channel);
    expect(direct(ALICE)).toHaveLength(before.alice);
  });
});
