import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Repo } from "../../src/repo.js";
import { METADATA_EVENT_TYPE } from "../../src/slack/slack-poster.js";
import { startWorld, type World } from "../helpers/e2e.js";

/**
 * Slack's rate limits end to end: the Slack stand-in limits chat.postMessage per channel (a token
 * bucket) and chat.update workspace-wide, and answers 429 with Retry-After. A burst of notices for one
 * busy channel is posted once each, in order, at the pace Slack allows (the notifier keeps to it: no
 * 429), while a quiet channel's notice goes out at once. Orders and times come from the stand-in's records of each call.
 */
let world: World;
const BUSY_REPO = "acme/busy";
const QUIET_REPO = "acme/quiet";
const BUSY = "C0BUSY";
const QUIET = "C0QUIET";

/** Slack's pace as the stand-in plays it below (2 a second, burst 3): the notifier keeps to it. */
const PACE = { intervalMs: 500, burst: 3 };

beforeAll(async () => {
  world = await startWorld(
    {},
    { slackPace: PACE },
    {
      slackLimits: { postMessage: { perSecond: 2, burst: 3 }, update: { perSecond: 50 / 60, burst: 5 } },
      // Slack's Retry-After is in real seconds: the notifier's holds must run out on the real clock.
      notifierClock: "system",
    },
  );
  for (const repository of [BUSY_REPO, QUIET_REPO]) {
    world.sim.state.addRepository(repository, { branches: ["main"] });
    world.github.state.addRepository(repository);
    world.github.state.setPermission(repository, "alice", "write");
  }
  for (const [id, repository, groups] of [
    [BUSY, BUSY_REPO, ["queue", "checks", "pause"]],
    [QUIET, QUIET_REPO, ["pause"]],
  ] as const) {
    world.slack.state.addChannel({ id, name: id.toLowerCase(), botIsMember: true });
    await world.yardmaster.store.putSubscription({
      channelId: id,
      teamId: "T0001",
      repository: Repo.from(repository),
      branchGlob: null,
      groups: [...groups],
      createdBy: "alice",
      // On the merge queue's clock, which stamps the events it is compared with (not the machine's).
      createdAt: new Date(world.sim.clock.now()),
    });
  }
  world.sim.clock.advance(5_000);
});
afterAll(async () => {
  await world?.close();
});

/** Yardmaster's messages in a channel by event id, with the thread they are in (null: top level). */
function posted(channel: string) {
  const out: { eventId: number; threadTs: string | null; ts: string }[] = [];
  for (const top of world.slack.state.messages(channel)) {
    for (const m of [top, ...top.replies]) {
      if (m.metadata?.event_type !== METADATA_EVENT_TYPE) continue;
      out.push({
        eventId: Number(m.metadata.event_payload.event_id),
        threadTs: m === top ? null : top.ts,
        ts: m.ts,
      });
    }
  }
  return out;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("Slack's rate limits, end to end", () => {
  it("posts a busy channel's burst once each, in order, at Slack's pace, without holding up a quiet channel", async () => {
    const { sim } = world;
    for (const number of [1, 2]) {
      world.github.state.addPullRequest({
        repository: BUSY_REPO,
        number,
        author: "alice",
        title: `PR ${number}`,
        base: "main",
      });
      sim.clock.advance(1_000);
      sim.state.relayCommand(BUSY_REPO, {
        body: "@mergifyio queue",
        pull_request: { number, title: `PR ${number}`, base_ref: "main", author: { id: 1, login: "alice" } },
      });
    }
    for (let i = 0; i < 2; i++) {
      sim.clock.advance(1_000);
      sim.state.pause(BUSY_REPO, `freeze ${i}`);
      sim.clock.advance(1_000);
      sim.state.unpause(BUSY_REPO);
    }
    sim.clock.advance(70_000);
    sim.state.pause(QUIET_REPO, "quiet freeze");

    const wanted = sim.state
      .events(BUSY_REPO)
      .filter((e) => /^(action\.queue\.|queue\.pause\.)/.test(e.type))
      .sort((a, b) => Date.parse(a.received_at) - Date.parse(b.received_at) || a.id - b.id);
    expect(wanted.length).toBeGreaterThanOrEqual(12);

    await world.yardmaster.poller!.tick();
    const { store, deliverer } = world.yardmaster;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const pending = await store.pendingNotificationStats();
      const stale = await store.listStaleThreads();
      if (pending.length === 0 && stale.length === 0) break;
      await sleep(200);
      await deliverer!.deliverPending();
    }
    expect(await store.pendingNotificationStats()).toEqual([]);
    expect(await store.listStaleThreads()).toEqual([]);

    // Every notice exactly once.
    const busy = posted(BUSY);
    const ids = busy.map((m) => m.eventId);
    expect(new Set(ids).size).toBe(ids.length);
    const routed = new Set(ids);
    for (const e of wanted) expect(routed.has(e.id), `${e.type} ${e.id}`).toBe(true);
    expect(posted(QUIET)).toHaveLength(1);

    // In order per thread (and top level): the log's order.
    const rank = new Map(wanted.map((e, i) => [e.id, i]));
    const pullOf = new Map(wanted.map((e) => [e.id, e.pull_request]));
    const byThread = new Map<string, number[]>();
    for (const m of busy) {
      // A reply is in its parent's thread; a parent starts its own; a pause is top level.
      const thread = m.threadTs ?? (pullOf.get(m.eventId) ? m.ts : "top level");
      byThread.set(thread, [...(byThread.get(thread) ?? []), rank.get(m.eventId) ?? -1]);
    }
    for (const [thread, ranks] of byThread) expect(ranks, thread).toEqual([...ranks].sort((a, b) => a - b));

    const calls = world.slack.calls;
    const postsTo = (channel: string) =>
      calls.filter((c) => c.method === "chat.postMessage" && c.args.channel === channel);
    // Paced as Slack allows, neither channel was answered 429; the quiet one's notice went out before the
    // busy one's last.
    expect(postsTo(BUSY).filter((c) => c.rateLimited)).toEqual([]);
    expect(postsTo(QUIET).every((c) => !c.rateLimited)).toBe(true);
    const quietPost = calls.findIndex((c) => c.args.channel === QUIET && c.method === "chat.postMessage");
    const lastBusyPost = calls.findLastIndex(
      (c) => c.args.channel === BUSY && c.method === "chat.postMessage" && c.httpStatus === 200,
    );
    expect(quietPost).toBeGreaterThanOrEqual(0);
    expect(quietPost).toBeLessThan(lastBusyPost);

    // A burst of 3, then one per interval: the i-th post came (i - 2) intervals after the first at the
    // earliest (50 ms for the way from the notifier's clock to the stand-in's record).
    const busyPosts = postsTo(BUSY).map((c) => c.at);
    const first = busyPosts[0] as number;
    busyPosts.forEach((at, i) => {
      expect(at - first).toBeGreaterThanOrEqual((i - 2) * PACE.intervalMs - 50);
    });

    // Thread parents: edited fewer times than replies were posted, each showing the latest state.
    const replies = busy.filter((m) => m.threadTs !== null).length;
    const edits = calls.filter((c) => c.method === "chat.update" && c.httpStatus === 200).length;
    expect(edits).toBeLessThan(replies);
    for (const top of world.slack.state.messages(BUSY).filter((m) => m.replies.length > 0)) {
      const number = pullOf.get(Number(top.metadata?.event_payload.event_id));
      const thread = await store.getThread(BUSY, Repo.from(BUSY_REPO), number ?? -1);
      expect(thread?.parentStale).toBe(false);
      const latest = String((thread?.state as { latest?: string } | undefined)?.latest);
      expect(top.text.toLowerCase()).toContain(latest.toLowerCase().slice(0, 20));
    }
  });
});
