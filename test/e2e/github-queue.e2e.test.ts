import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_MARKER } from "../../src/github/summary-comment.js";
import { METADATA_EVENT_TYPE } from "../../src/slack/slack-poster.js";
import { linkSlackUser, startWorld, subscribeChannel, type World } from "../helpers/e2e.js";

/**
 * GitHub's own merge queue, end to end, with MERGE_QUEUE_PROVIDER=auto: acme/ships's main branch has a
 * merge queue on the GitHub stand-in (GraphQL), acme/widgets has none and stays on the merge-queue
 * simulator (Mergify).
 */
let world: World;
const SHIPS = "acme/ships";
const WIDGETS = "acme/widgets";
const CHANNEL = "C0SHIPS";
const ALICE = "U0ALICE";

beforeAll(async () => {
  world = await startWorld({ MERGE_QUEUE_PROVIDER: "auto" });
  const { state } = world.github;
  for (const repo of [SHIPS, WIDGETS]) {
    state.addRepository(repo);
    state.setPermission(repo, "alice", "write");
    state.setPermission(repo, "rita", "read");
  }
  world.github.mergeQueues.enable(SHIPS, "main");
  for (const [number, title] of [
    [11, "Faster <hulls>"],
    [12, "Brass fittings"],
    [13, "Sails"],
  ] as const) {
    state.addPullRequest({ repository: SHIPS, number, author: "alice", title, base: "main" });
  }
  state.addPullRequest({
    repository: WIDGETS,
    number: 21,
    author: "alice",
    title: "Add gears",
    base: "main",
  });
  world.slack.state.addChannel({ id: CHANNEL, name: "ships", botIsMember: true });
  world.slack.state.addUser({ id: ALICE, name: "alice" });
  await linkSlackUser(world, ALICE, "alice", 1);
});
afterAll(() => world.close());

const comment = (repository: string, number: number, body: string, author = "alice") =>
  world.github.deliverIssueComment({ repository, number, body, author });

function summary(repository: string, number: number): string {
  const found = world.github.state
    .comments(repository, number)
    .filter((c) => c.body.includes(SUMMARY_MARKER));
  return found[0]?.body ?? "";
}

const queued = () => world.github.mergeQueues.entries(SHIPS, "main").map((e) => e.pull.number);

const slash = (text: string) => world.slack.sendSlashCommand({ text, userId: ALICE, channelId: CHANNEL });
const textOf = (message: { text?: string; blocks?: unknown }) =>
  `${message.text ?? ""}\n${JSON.stringify(message.blocks ?? [])}`;
/** Every answer (ephemeral or in the channel) on this command's response_url. */
function answerTo(responseUrl: string) {
  return world.slack.waitFor(
    () => world.slack.state.responses.find((r) => r.responseUrl === responseUrl),
    10_000,
  );
}

describe("GitHub's merge queue, end to end (MERGE_QUEUE_PROVIDER=auto)", () => {
  it("queues from a comment with enqueuePullRequest, relaying nothing, and says the position", async () => {
    const { status } = await comment(SHIPS, 11, "@yardmaster queue");
    expect(status).toBe(200);
    expect(queued()).toEqual([11]);
    const bodies = world.github.state.comments(SHIPS, 11).map((c) => c.body);
    expect(bodies.some((b) => b.startsWith("@mergifyio"))).toBe(false);
    expect(summary(SHIPS, 11)).toContain(
      "#11 is at position 1 in GitHub's merge queue of `main`, ETA in 5 min.",
    );
  });

  it("queues from Slack, and a writer's --jump puts it at the head", async () => {
    const first = await slash(`queue ${SHIPS}#12`);
    expect(textOf(await answerTo(first.responseUrl))).toContain("at position 2 in GitHub's merge queue of");
    const jumped = await slash(`queue ${SHIPS}#13 --jump`);
    expect(textOf(await answerTo(jumped.responseUrl))).toContain("(jumped to the front)");
    expect(queued()).toEqual([13, 11, 12]);
  });

  it("shows status with positions, enqueuers and estimates, and the queue's configuration", async () => {
    await comment(SHIPS, 11, "@yardmaster status");
    const body = summary(SHIPS, 11);
    expect(body).toContain("GitHub's merge queue of `main` · 3 queued");
    expect(body).toMatch(
      /1\. \[\\#13\]\([^)]*\/acme\/ships\/pull\/13\) Sails — awaiting checks, enqueued .* by yardmaster\\\[bot\\\], ETA in 5 min · jumped/,
    );
    expect(body).toMatch(/3\. \[\\#12\][^\n]*ETA in 15 min/);
    expect(body).toContain("Configuration: merges by squash, strategy `ALLGREEN`");
    const sent = await slash(`status ${SHIPS}`);
    expect(textOf(await answerTo(sent.responseUrl))).toContain("3 queued");
  });

  it("answers /mq pr from the pull request's entry", async () => {
    const sent = await slash(`pr ${SHIPS}#12`);
    expect(textOf(await answerTo(sent.responseUrl))).toContain("is at position 3 in GitHub's merge queue of");
  });

  it("dequeues with dequeuePullRequest; the stand-in sends pull_request enqueued and dequeued as GitHub does", async () => {
    await comment(SHIPS, 12, "@yardmaster dequeue");
    expect(queued()).toEqual([13, 11]);
    expect(summary(SHIPS, 12)).toContain("is not in GitHub's merge queue of `main` any more.");
    await world.github.settle();
    const sent = world.github.deliveries
      .filter((d) => d.event === "pull_request")
      .map((d) => [d.action, d.status]);
    expect(sent).toEqual([
      ["enqueued", 200],
      ["enqueued", 200],
      ["enqueued", 200],
      ["dequeued", 200],
    ]);
  });

  it("pauses GitHub's queue through the gate check and unpauses it, and refuses a reader's queue", async () => {
    await comment(SHIPS, 12, "@yardmaster pause release freeze");
    expect(summary(SHIPS, 12)).toContain(
      "The merge queue of `acme/ships` (branch `main`) is **paused**: release freeze",
    );
    await comment(SHIPS, 12, "@yardmaster unpause");
    expect(summary(SHIPS, 12)).toContain("is running again");
    await comment(SHIPS, 12, "@yardmaster queue", "rita");
    expect(summary(SHIPS, 12)).toContain(
      "`queue` needs **write** permission on `acme/ships`; rita has **read**.",
    );
    expect(queued()).toEqual([13, 11]);
  });

  it("auto keeps Mergify where the branch has no GitHub queue", async () => {
    await comment(WIDGETS, 21, "@yardmaster queue");
    const bodies = world.github.state.comments(WIDGETS, 21).map((c) => c.body);
    expect(bodies.some((b) => b.startsWith("@mergifyio queue\n"))).toBe(true);
    expect(world.sim.state.pullDetails(WIDGETS, 21)?.number).toBe(21);
    await comment(WIDGETS, 21, "@yardmaster pause release freeze");
    expect(world.sim.state.pauseData(WIDGETS)).toMatchObject({ paused: true, reason: "release freeze" });
    await comment(WIDGETS, 21, "@yardmaster unpause");
  });

  it("auto reads Mergify's log only for the repository on Mergify; GitHub's queue pushes its notices", async () => {
    await subscribeChannel(world, CHANNEL, [SHIPS, WIDGETS], ["queue"]);
    // The notifier's clock is the simulator's, which stands still between tests: it moves past the
    // subscription (made on that clock), so that what follows is after it.
    world.sim.clock.advance(5_000);
    world.sim.requests.reset();
    await world.yardmaster.poller!.tick();
    const read = world.sim.requests.snapshot().repositories;
    expect(read[WIDGETS]?.total).toBeGreaterThan(0);
    expect(read[SHIPS]).toBeUndefined();

    await comment(SHIPS, 12, "@yardmaster queue");
    await world.github.settle();
    const told = await world.slack.waitFor(
      () =>
        world.slack.state
          .messages(CHANNEL)
          .find((m) => m.metadata?.event_type === METADATA_EVENT_TYPE && m.text?.includes("#12")),
      10_000,
    );
    expect(told.text).toContain("Entered the merge queue main");
    expect(world.sim.requests.snapshot().repositories[SHIPS]).toBeUndefined();
  });
});

describe("MERGE_QUEUE_PROVIDER=github without a Mergify key, end to end", () => {
  let alone: World;
  beforeAll(async () => {
    alone = await startWorld({ MERGE_QUEUE_PROVIDER: "github", MERGE_QUEUE_API_TOKEN: "" });
    alone.github.state.addRepository(SHIPS);
    alone.github.state.setPermission(SHIPS, "alice", "write");
    alone.github.mergeQueues.enable(SHIPS);
    alone.github.state.addPullRequest({
      repository: SHIPS,
      number: 11,
      author: "alice",
      title: "Hulls",
      base: "main",
    });
  });
  afterAll(() => alone?.close());

  it("starts, queues on GitHub's merge queue, and answers stats from its own history; nothing reads Mergify", async () => {
    const say = (body: string) =>
      alone.github.deliverIssueComment({ repository: SHIPS, number: 11, body, author: "alice" });
    const bodyOf = () =>
      alone.github.state.comments(SHIPS, 11).find((c) => c.body.includes(SUMMARY_MARKER))?.body ?? "";
    await say("@yardmaster queue");
    expect(alone.github.mergeQueues.entries(SHIPS, "main").map((e) => e.pull.number)).toEqual([11]);
    expect(bodyOf()).toContain("#11 is at position 1 in GitHub's merge queue of `main`");
    await say("@yardmaster stats");
    // Stats read the history Yardmaster recorded of GitHub's queue (docs/backends.md), not Mergify.
    expect(bodyOf()).toContain("Queue health of acme/ships");
    // The notifier runs (it posts what GitHub's webhooks bring) but reads no Mergify log.
    const pass = await alone.yardmaster.poller!.tick();
    expect(pass.repositories).toBe(0);
    expect(alone.sim.requests.snapshot().total).toBe(0);
    const health = await (await fetch(`${alone.url}/healthz`)).json();
    expect(health).toMatchObject({ ok: true, poller: { enabled: true } });
  });
});
