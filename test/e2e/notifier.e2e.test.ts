import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MergeQueueClient } from "../../src/backends/mergify/index.js";
import { Repo } from "../../src/repo.js";
import { METADATA_EVENT_TYPE } from "../../src/slack/slack-poster.js";
import { linkSlackUser, startWorld, type World } from "../helpers/e2e.js";

/**
 * The notifier end to end: simulator → poller → Slack stand-in, through restarts and failures.
 * The poller is driven tick by tick (autoPoll off) and the simulator's clock by hand.
 */
let world: World;
let dir: string;
const REPO = "acme/gadgets";
const BROKEN = "acme/broken";
const EVERYTHING = "C0ALL"; // queue, checks, pause
const PAUSES = "C0PAUSE"; // pause only
const ALICE = "U0ALICE";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "yardmaster-notifier-"));
  // POLL_IDLE_SECONDS as the interval: these tests move the clock an interval at a time.
  world = await startWorld({ DATABASE_URL: `sqlite:${join(dir, "yardmaster.db")}`, POLL_IDLE_SECONDS: "15" });
  world.sim.state.addRepository(REPO, { branches: ["main"] });
  world.sim.state.addRepository(BROKEN, { branches: ["main"] });
  world.github.state.addRepository(REPO);
  world.github.state.addRepository(BROKEN);
  world.github.state.setPermission(REPO, "alice", "write");
  world.github.state.setPermission(BROKEN, "alice", "write");
  world.github.state.addPullRequest({
    repository: REPO,
    number: 7,
    author: "alice",
    title: "Add cogs",
    base: "main",
  });
  for (const id of [EVERYTHING, PAUSES])
    world.slack.state.addChannel({ id, name: id.toLowerCase(), botIsMember: true });
  world.slack.state.addUser({ id: ALICE, name: "alice" });
  await linkSlackUser(world, ALICE, "alice", 1);
  for (const [channel, text] of [
    [EVERYTHING, `subscribe ${REPO} events=queue,checks,pause`],
    [PAUSES, `subscribe ${REPO} events=pause`],
    [EVERYTHING, `subscribe ${BROKEN}`],
  ] as const) {
    const sent = await world.slack.sendSlashCommand({ text, userId: ALICE, channelId: channel });
    await world.slack.waitFor(() =>
      world.slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
    );
  }
  // Events from now on are after the subscriptions (the simulator's clock starts at the whole second).
  world.sim.clock.advance(5_000);
});
afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every message Yardmaster posted in a channel (top level and replies) with the event id it carries. */
function posted(channel: string) {
  const out: { ts: string; threadTs: string | null; eventId: number; text: string }[] = [];
  for (const top of world.slack.state.messages(channel)) {
    for (const m of [top, ...top.replies]) {
      if (m.metadata?.event_type !== METADATA_EVENT_TYPE) continue;
      out.push({
        ts: m.ts,
        threadTs: m === top ? null : top.ts,
        eventId: Number(m.metadata.event_payload.event_id),
        text: m.text,
      });
    }
  }
  return out;
}

const tick = () => world.yardmaster.poller!.tick();
/** Each repository is read once per POLL_INTERVAL_SECONDS (15 s by default) of the notifier's clock. */
const INTERVAL_MS = 15_000;
/** The merge queue's clock, which the notifier runs on here, moved to the next read and ticked. */
const nextRead = () => {
  world.sim.clock.advance(INTERVAL_MS);
  return tick();
};

/** A pull request opened on GitHub and queued in the merge queue, a second after the last event. */
function openAndQueue(number: number, title: string) {
  world.github.state.addPullRequest({ repository: REPO, number, author: "alice", title, base: "main" });
  world.sim.clock.advance(1_000);
  world.sim.state.relayCommand(REPO, {
    body: "@mergifyio queue",
    pull_request: { number, title, base_ref: "main", author: { id: 1, login: "alice" } },
  });
}

describe("notifications, end to end", () => {
  it("threads a pull request from queue to merge in the subscribed channel, each event once", async () => {
    world.sim.state.relayCommand(REPO, {
      body: "@mergifyio queue",
      pull_request: { number: 7, title: "Add cogs", base_ref: "main", author: { id: 1, login: "alice" } },
    });
    await tick();
    const first = posted(EVERYTHING);
    const tops = first.filter((m) => m.threadTs === null);
    expect(tops).toHaveLength(1);
    expect(tops[0]?.text).toContain("#7 Add cogs");
    expect(first.every((m) => m.threadTs === null || m.threadTs === tops[0]?.ts)).toBe(true);

    world.sim.clock.advance(70_000);
    await tick();
    const all = posted(EVERYTHING);
    const wanted = world.sim.state
      .events(REPO)
      .filter(
        (e) =>
          e.pull_request === 7 &&
          /^action\.queue\.(enter|leave|merged|checks_start|checks_end)$/.test(e.type),
      );
    expect(wanted.map((e) => e.type)).toEqual(
      expect.arrayContaining(["action.queue.enter", "action.queue.checks_start", "action.queue.merged"]),
    );
    for (const e of wanted)
      expect(
        all.filter((m) => m.eventId === e.id),
        e.type,
      ).toHaveLength(1);
    const parent = all[0];
    expect(all.slice(1).filter((m) => m.threadTs === parent?.ts).length).toBeGreaterThanOrEqual(
      wanted.length - 1,
    );
    // The parent was edited to the latest state.
    const parentNow = world.slack.state.message(EVERYTHING, parent!.ts);
    expect(parentNow?.text).toMatch(/Left the queue: merged|Merged into main/);
    expect(all.some((m) => /Merged into main/.test(m.text) || /merged into main/.test(m.text))).toBe(true);

    // Nothing in the pause-only channel.
    expect(posted(PAUSES)).toEqual([]);
    // Ticking again posts nothing new.
    await tick();
    expect(posted(EVERYTHING)).toHaveLength(all.length);
  });

  it("sends a pause to both channels, top level, with an Unpause button", async () => {
    const client = new MergeQueueClient({
      baseUrl: world.sim.apiUrl,
      token: world.sim.token,
      retry: { retries: 0 },
    });
    world.sim.clock.advance(1_000);
    await client.pause(Repo.of("acme", "gadgets"), "release <!channel> freeze");
    await nextRead();
    for (const channel of [EVERYTHING, PAUSES]) {
      const pauses = posted(channel).filter((m) => m.text.includes("paused"));
      expect(pauses, channel).toHaveLength(1);
      expect(pauses[0]?.threadTs).toBeNull();
      const message = world.slack.state.message(channel, pauses[0]!.ts);
      expect(JSON.stringify(message?.blocks)).toContain("mq.unpause");
      expect(JSON.stringify(message)).not.toContain("<!channel>");
    }
    await client.unpause(Repo.of("acme", "gadgets"));
  });

  it("neither loses nor repeats events across a restart, even one between a post and its record", async () => {
    const before = posted(EVERYTHING).length;
    openAndQueue(8, "Fix gears");
    // Crash right after Slack accepted the first post, before the store recorded it.
    const store = world.yardmaster.store;
    const original = store.markNotificationSent.bind(store);
    let crashed = false;
    store.markNotificationSent = async (...args) => {
      if (!crashed) {
        crashed = true;
        throw new Error("process killed");
      }
      return original(...args);
    };
    await nextRead();
    expect(crashed).toBe(true);
    const afterCrash = posted(EVERYTHING);
    expect(afterCrash.length).toBe(before + 1);
    // A killed process records nothing after the kill: undo the backoff the thrown error left.
    await store.clearBackoff(`channel:${EVERYTHING}`);
    store.markNotificationSent = original;

    await world.restart();
    // The restarted process does not know how the post it began ended: the row is marked begun, so it is
    // looked up in Slack's history and recovered, not posted again.
    world.sim.clock.advance(70_000);
    await tick();
    await world.restart();
    await tick();

    const events = world.sim.state
      .events(REPO)
      .filter(
        (e) =>
          e.pull_request === 8 &&
          /^action\.queue\.(enter|leave|merged|change|checks_start|checks_end)$/.test(e.type),
      );
    const all = posted(EVERYTHING);
    for (const e of events)
      expect(
        all.filter((m) => m.eventId === e.id),
        `${e.type} ${e.id}`,
      ).toHaveLength(1);
    expect(new Set(all.map((m) => m.eventId)).size).toBe(all.length);
  });

  it("keeps notifying a healthy repository while another one fails, and backs the failing one off", async () => {
    world.sim.faults.set(BROKEN, { forbidden: true });
    openAndQueue(9, "Oil");
    const report = await nextRead();
    expect(report.failed).toBe(1);
    expect(posted(EVERYTHING).some((m) => m.text.includes("#9"))).toBe(true);
    const schedule = await world.yardmaster.store.getPollSchedule(Repo.parse(BROKEN)!);
    expect(schedule).toMatchObject({ cadence: "retry", failures: 1 });
    // Retried after a backoff (15 s, less up to 20% jitter), not at the next interval.
    expect(schedule!.nextPollAt.getTime() - world.sim.clock.now()).toBeGreaterThanOrEqual(12_000);
    const health = (await (await fetch(`${world.url}/healthz`)).json()) as {
      poller: { lastSuccessfulTick: string };
    };
    expect(health.poller.lastSuccessfulTick).not.toBeNull();
    world.sim.faults.clear(BROKEN);
  });

  it("names the person who paused through Yardmaster, not the app's account", async () => {
    world.sim.clock.advance(1_000);
    const sent = await world.slack.sendSlashCommand({
      text: `pause ${REPO} deploy window`,
      userId: ALICE,
      channelId: PAUSES,
    });
    await world.slack.waitFor(() =>
      world.slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
    );
    await nextRead();
    const notice = posted(PAUSES).find((m) => m.text.includes("deploy window"));
    expect(notice?.text).toContain("paused by alice (through Yardmaster): deploy window");
    await world.slack.sendSlashCommand({ text: `unpause ${REPO}`, userId: ALICE, channelId: PAUSES });
    await world.slack.waitFor(() => (world.sim.state.pauseData(REPO).paused ? undefined : true));
    await nextRead();
    expect(posted(PAUSES).some((m) => m.text.includes("resumed by alice (through Yardmaster)"))).toBe(true);
  });
});
