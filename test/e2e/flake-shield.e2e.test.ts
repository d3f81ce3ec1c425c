import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pushedEventId } from "../../src/backends/github/queue-events.js";
import { SUMMARY_MARKER } from "../../src/github/summary-comment.js";
import { Repo } from "../../src/repo.js";
import { METADATA_EVENT_TYPE } from "../../src/slack/slack-poster.js";
import { eventually, linkSlackUser, startWorld, subscribeChannel, type World } from "../helpers/e2e.js";

/**
 * The flake shield end to end (docs/notifications.md, "The flake shield"): turned on by a person, it
 * queues again once a pull request removed for a check that also failed for two others within the hour,
 * and says so in the channel's thread, the author's direct message and the pull request's summary
 * comment; a pull request whose check failed only for it stays out. On Mergify's queue (the simulator,
 * the poller ticked by hand on its clock) and on GitHub's own (the stand-in's webhooks).
 */

const SAID = "ci/test is failing for everyone: queued again, attempt 2 of 2";
/** On Mergify the relayed `queue` is a request: Mergify takes it in its own time (its `entered` event). */
const ASKED = "ci/test is failing for everyone: asked Mergify to queue it again, attempt 2 of 2";
const IDS: Record<string, number> = { alice: 1, bob: 2, carol: 3, dave: 4 };

/** Every notice in a Slack conversation (a channel's threads, or a person's direct messages). */
function notices(world: World, channelId: string | undefined) {
  if (!channelId) return [];
  return world.slack.state.messages(channelId).flatMap((top) =>
    [top, ...top.replies]
      .filter((m) => m.metadata?.event_type === METADATA_EVENT_TYPE)
      .map((m) => ({
        eventId: Number(m.metadata?.event_payload.event_id),
        thread: top.text,
        blocks: JSON.stringify(m.blocks ?? []),
      })),
  );
}

/** The app's summary comment on a pull request (at most one). */
function summary(world: World, repository: string, number: number): string {
  const found = world.github.state
    .comments(repository, number)
    .filter((c) => c.body.includes(SUMMARY_MARKER));
  expect(found.length).toBeLessThanOrEqual(1);
  return found[0]?.body ?? "";
}

/**
 * Every text Yardmaster wrote into a pull request's summary comment (created or edited): one summary
 * carries a removal's details and the shield's word, never a note of the shield's own that replaces them.
 */
function summaryWrites(world: World, repository: string, number: number): string[] {
  const ids = new Set(
    world.github.state
      .comments(repository, number)
      .filter((c) => c.body.includes(SUMMARY_MARKER))
      .map((c) => c.id),
  );
  const onIt = new RegExp(`/repos/${repository}/issues/(${number}/comments|comments/(\\d+))$`);
  return world.github.requests
    .filter((r) => (r.method === "POST" || r.method === "PATCH") && onIt.test(r.path))
    .filter((r) => r.method === "POST" || ids.has(Number(onIt.exec(r.path)?.[2])))
    .map((r) => String((r.body as { body?: unknown } | undefined)?.body ?? ""))
    .filter((body) => body.includes(SUMMARY_MARKER));
}

describe("the flake shield on Mergify's queue", () => {
  const REPO = "acme/flaky";
  const CHANNEL = "C0FLAKY";
  const CAROL = "U0CAROL"; // linked: turns the shield on
  const DAVE = "U0DAVE"; // linked: the author of #23
  let world: World;

  beforeAll(async () => {
    world = await startWorld({ POLL_IDLE_SECONDS: "15" });
    world.sim.state.addRepository(REPO, { branches: ["main"] });
    world.github.state.addRepository(REPO);
    for (const login of Object.keys(IDS)) world.github.state.setPermission(REPO, login, "write");
    for (const [login, user] of [
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

  const tick = () => world.yardmaster.poller!.tick();
  /** Opens a pull request, has its author queue it, with its checks failing `check`. */
  function open(number: number, author: string, check: string) {
    world.github.state.addPullRequest({
      repository: REPO,
      number,
      author,
      title: `Change ${number}`,
      base: "main",
    });
    world.sim.clock.advance(1_000);
    world.sim.state.relayCommand(REPO, {
      body: "@mergifyio queue",
      author: { id: IDS[author] ?? 99, login: author },
      pull_request: {
        number,
        title: `Change ${number}`,
        base_ref: "main",
        author: { id: IDS[author] ?? 99, login: author },
      },
    });
    // Known to the merge queue once queued; its run fails at its end.
    world.sim.state.setChecks(REPO, number, "failure", check);
  }
  /** Reads the log while the simulator's clock moves on: the checks run, then it leaves. */
  async function runQueue() {
    await tick();
    world.sim.clock.advance(70_000);
    await tick();
    world.sim.clock.advance(15_000);
    await tick();
  }
  const events = (number: number, type: string) =>
    world.sim.state.events(REPO).filter((e) => e.pull_request === number && e.type === type);
  const leaveNotice = (number: number, nth = 0) => {
    const leave = events(number, "action.queue.leave")[nth];
    return notices(world, CHANNEL).find((n) => n.eventId === leave?.id);
  };
  /** The relayed `queue` commands the app's bot wrote on a pull request. */
  const relayed = (number: number) =>
    world.github.state.comments(REPO, number).filter((c) => c.body.startsWith("@mergifyio queue"));

  it("is turned on from Slack by a writer", async () => {
    const sent = await world.slack.sendSlashCommand({
      text: `retry ${REPO} on`,
      userId: CAROL,
      channelId: CHANNEL,
    });
    const answer = await world.slack.waitFor(
      () => world.slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
      10_000,
    );
    expect(JSON.stringify(answer)).toContain("turned the flake shield on for");
    expect(await world.yardmaster.store.getFlakeShield(Repo.from(REPO))).toMatchObject({
      enabled: true,
      changedBy: "carol",
      surface: "slack",
    });
  });

  it("queues again once a pull request whose check failed for two others within the hour, and says so", async () => {
    open(21, "bob", "ci/test");
    await runQueue();
    open(22, "bob", "ci/test");
    await runQueue();
    open(23, "dave", "ci/test");
    await runQueue();
    // The first two failed before it failed for everyone: they stay out.
    for (const n of [21, 22]) {
      expect(events(n, "action.queue.enter"), `#${n}`).toHaveLength(1);
      expect(leaveNotice(n)?.blocks, `#${n}`).not.toContain("failing for everyone");
    }
    // #23's removal: queued again through the merge queue's own command, said in the thread.
    expect(relayed(23)).toHaveLength(1);
    expect(relayed(23)[0]?.body.split("\n")[0]).toBe("@mergifyio queue default");
    await eventually(() => events(23, "action.queue.enter").length === 2);
    const notice = leaveNotice(23);
    expect(notice?.blocks).toMatch(
      /ci\/test also failed for <[^>|]+\/pull\/21\|#21> and <[^>|]+\/pull\/22\|#22>/,
    );
    expect(notice?.blocks).toContain(ASKED);
    // And in its author's direct message, and its summary comment on GitHub.
    const leave = events(23, "action.queue.leave")[0];
    const dm = await eventually(() =>
      notices(world, world.slack.state.directChannel(DAVE)?.id).find((n) => n.eventId === leave?.id),
    );
    expect(dm.blocks).toContain(ASKED);
    // One summary comment says both why it left (its failed check) and what the shield did of it.
    const said = await eventually(() => summary(world, REPO, 23).includes(ASKED) && summary(world, REPO, 23));
    expect(said).toContain("left the merge queue");
    expect(said).toContain("ci/test");
    expect(said).toContain(`🛡️ ${ASKED}`);
    for (const body of summaryWrites(world, REPO, 23)) expect(body).toContain("left the merge queue");
  });

  it("never queues the shield's own entry again: its second removal stays out", async () => {
    // The entry the shield made runs, and its check fails again.
    await runQueue();
    await runQueue();
    expect(events(23, "action.queue.leave")).toHaveLength(2);
    await tick();
    expect(events(23, "action.queue.enter")).toHaveLength(2);
    expect(relayed(23)).toHaveLength(1);
    const second = leaveNotice(23, 1);
    expect(second).toBeDefined();
    expect(second?.blocks).toContain("also failed for");
    expect(second?.blocks).not.toContain("failing for everyone");
  });

  it("never queues again a pull request whose check failed only for it", async () => {
    open(24, "dave", "ci/lint");
    await runQueue();
    await tick();
    expect(events(24, "action.queue.leave")).toHaveLength(1);
    expect(events(24, "action.queue.enter")).toHaveLength(1);
    expect(relayed(24)).toEqual([]);
    expect(leaveNotice(24)?.blocks).not.toContain("failing for everyone");
    // Its summary comment says why it left (its failed checks), never that it was queued again.
    expect(summary(world, REPO, 24)).not.toContain("🛡️");
  });

  it("counts what it queued again in stats", async () => {
    const sent = await world.slack.sendSlashCommand({
      text: `stats ${REPO} 24h`,
      userId: CAROL,
      channelId: CHANNEL,
    });
    const answer = await world.slack.waitFor(
      () => world.slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
      10_000,
    );
    const text = JSON.stringify(answer);
    // #23 was queued again once, and failed again: none merged.
    expect(text).toMatch(/\*Queued again by the flake shield\*\\n1 \(0 of them then merged\)/);
    expect(text).toMatch(
      /\*Checks that removed most pull requests\*\\n• <[^>|]+\|ci\/test> × 4\\n• <[^>|]+\|ci\/lint> × 1/,
    );
  });
});

describe("the flake shield on GitHub's merge queue", () => {
  const SHIPS = "acme/ships";
  const CHANNEL = "C0SHIPS";
  const DAVE = "U0DAVE";
  let gh: World;

  beforeAll(async () => {
    gh = await startWorld({ MERGE_QUEUE_PROVIDER: "github", MERGE_QUEUE_API_TOKEN: "" });
    const { state } = gh.github;
    state.addRepository(SHIPS);
    for (const login of Object.keys(IDS)) state.setPermission(SHIPS, login, "write");
    gh.github.mergeQueues.enable(SHIPS, "main", { requiredChecks: ["ci/test", "ci/lint"] });
    for (const number of [40, 41, 42, 43, 44])
      state.addPullRequest({
        repository: SHIPS,
        number,
        author: number === 43 ? "dave" : "bob",
        title: `Part ${number}`,
        base: "main",
      });
    gh.slack.state.addUser({ id: DAVE, name: "dave" });
    await linkSlackUser(gh, DAVE, "dave", IDS.dave);
    await subscribeChannel(gh, CHANNEL, [SHIPS]);
    gh.sim.clock.advance(60_000);
  });
  afterAll(async () => {
    await gh?.close();
  });

  /** The removals (`dequeued` webhooks) GitHub sent for a pull request, as their notices' event ids. */
  const removals = (number: number) =>
    gh.github.deliveries
      .filter((d) => d.event === "pull_request" && d.action === "dequeued")
      .filter((d) => (d.payload as { number: number }).number === number)
      .map((d) => pushedEventId(`delivery:${d.deliveryId}`));
  const enqueued = (number: number) =>
    gh.github.deliveries.filter(
      (d) =>
        d.event === "pull_request" &&
        d.action === "enqueued" &&
        (d.payload as { number: number }).number === number,
    );
  const notice = (channelId: string | undefined, eventId: number | undefined) =>
    notices(gh, channelId).find((n) => n.eventId === eventId);
  const enqueue = (number: number, by = "bob") =>
    gh.github.mergeQueues.enqueue(gh.github.state.getIssue(SHIPS, number)!, gh.github.state.getUser(by)!, {
      jump: false,
      expectedHeadOid: null,
    });
  /** Queues it, then CI fails `check` on its merge group: GitHub removes it. */
  async function failIn(number: number, check: "ci/test" | "ci/lint") {
    enqueue(number);
    await gh.github.settle();
    const other = check === "ci/test" ? "ci/lint" : "ci/test";
    expect(
      gh.github.mergeQueues.completeChecks(SHIPS, number, { [check]: "failure", [other]: "success" }),
    ).toMatchObject({
      removed: true,
    });
    await gh.github.settle();
    await eventually(() => notice(CHANNEL, removals(number).at(-1)));
  }

  it("is turned on from a comment by a writer", async () => {
    await gh.github.deliverIssueComment({
      repository: SHIPS,
      number: 40,
      body: "@yardmaster retry on",
      author: "carol",
    });
    expect(await eventually(() => summary(gh, SHIPS, 40))).toContain("The flake shield is now on for");
  });

  it("queues again once with enqueuePullRequest a pull request whose check failed for two others, and says so", async () => {
    await failIn(41, "ci/test");
    await failIn(42, "ci/test");
    await failIn(43, "ci/test");
    // #43 is in GitHub's queue again, queued by Yardmaster's app; #41 and #42 are not.
    await eventually(() => gh.github.mergeQueues.entries(SHIPS, "main").some((e) => e.pull.number === 43));
    expect(gh.github.mergeQueues.entries(SHIPS, "main").map((e) => e.pull.number)).toEqual([43]);
    expect(enqueued(43)).toHaveLength(2);
    const [removal] = removals(43);
    const inThread = notice(CHANNEL, removal);
    expect(inThread?.blocks).toMatch(
      /ci\/test also failed for <[^>|]+\/pull\/41\|#41> and <[^>|]+\/pull\/42\|#42>/,
    );
    expect(inThread?.blocks).toContain(SAID);
    for (const n of [41, 42])
      expect(notice(CHANNEL, removals(n)[0])?.blocks, `#${n}`).not.toContain("failing for everyone");
    const dm = await eventually(() => notice(gh.slack.state.directChannel(DAVE)?.id, removal));
    expect(dm.blocks).toContain(SAID);
    const said = await eventually(() => summary(gh, SHIPS, 43).includes(SAID) && summary(gh, SHIPS, 43));
    expect(said).toContain("left the merge queue");
    expect(said).toContain(`🛡️ ${SAID}`);
    for (const body of summaryWrites(gh, SHIPS, 43)) expect(body).toContain("left the merge queue");
    // Its second removal (the shield's entry) stays out.
    expect(gh.github.mergeQueues.completeChecks(SHIPS, 43, { "ci/test": "failure" })).toMatchObject({
      removed: true,
    });
    await gh.github.settle();
    await eventually(() => notice(CHANNEL, removals(43)[1]));
    expect(enqueued(43)).toHaveLength(2);
    expect(gh.github.mergeQueues.entries(SHIPS, "main")).toEqual([]);
  });

  it("never queues again a pull request whose check failed only for it", async () => {
    await failIn(44, "ci/lint");
    await gh.github.settle();
    expect(enqueued(44)).toHaveLength(1);
    expect(gh.github.mergeQueues.entries(SHIPS, "main")).toEqual([]);
    expect(notice(CHANNEL, removals(44)[0])?.blocks).not.toContain("failing for everyone");
    expect(summary(gh, SHIPS, 44)).not.toContain("🛡️");
  });
});
