import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { MergeQueueBackend } from "../../src/core/merge-queue.js";
import type { HeldPause } from "../../src/core/pause.js";
import type { QueueEvent } from "../../src/core/queue.js";
import { HealthEvaluator, RESUME_RECORD_WAIT_MS } from "../../src/health/evaluator.js";
import { PAUSES_TTL_MS } from "../../src/health/queue-pauses.js";
import { createLogger } from "../../src/logger.js";
import { Repo } from "../../src/repo.js";
import { openStore, type Store } from "../../src/store/index.js";
import { Channel, subscribe as subscribeChannels } from "./channel.js";
import { at, MIN, paused, resumed } from "./events.js";

/**
 * The long-pause reminder judged from the queue's own pause (its start, `paused_at` or the gate's
 * record), on a real (SQLite) store with a clock moved by hand and a queue whose pauses a test sets.
 */
const REPO = Repo.from("acme/widgets");
let store: Store;
let clock: Date;

/** A queue whose pauses the test sets; `failing` makes it not answer; `reads` counts its answers. */
class FakeQueue {
  pauses: HeldPause[] = [];
  failing = false;
  reads = 0;
  scope: "repository" | "branch" = "repository";
  readonly backend = {
    pauses: {
      scope: "repository",
      held: async () => {
        if (this.failing) throw new Error("503 Service Unavailable");
        this.reads += 1;
        return this.pauses;
      },
    },
  } as unknown as MergeQueueBackend;
}

function evaluator(channel: Channel, queue: FakeQueue | { backend: MergeQueueBackend }, owner = "a") {
  return new HealthEvaluator({
    queues: { for: async () => queue.backend },
    store,
    poster: channel,
    settings: { stallMinutes: null, pauseReminderHours: 4 },
    githubWebUrl: "https://github.com",
    owner,
    logger: createLogger({ level: "silent" }),
    now: () => clock,
  });
}

const record = (...events: QueueEvent[]) => store.recordQueueEvents(REPO, events, clock);
const pauseAt = (minute: number, reason: string, by: string | null = null, branch: string | null = null) => ({
  reason,
  pausedAt: at(minute).toISOString(),
  by,
  branch,
});

beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  clock = at(0);
});
afterEach(async () => {
  await store.close();
});

async function subscribe(minute: number) {
  await subscribeChannels(store, REPO, ["C1", "C2"], at(minute));
}

describe("the long-pause reminder, from the queue's own pause", () => {
  it("reminds at the first pass of a pause begun 5 hours before anyone subscribed, once across two replicas, naming who paused through Yardmaster", async () => {
    const queue = new FakeQueue();
    queue.pauses = [pauseAt(0, "Datacenter move")];
    await store.putPauseAttribution({
      repository: REPO,
      action: "pause",
      reason: "Datacenter move",
      actor: "carol",
      surface: "slack",
      at: at(0),
    });
    clock = at(5 * 60);
    await subscribe(5 * 60);
    const channel = new Channel();
    const [a, b] = [evaluator(channel, queue, "a"), evaluator(channel, queue, "b")];
    await Promise.all([a.tick(), b.tick()]);
    await Promise.all([a.tick(), b.tick()]);
    expect(channel.posted.map((p) => p.channel)).toEqual(["C1", "C2"]);
    expect(channel.texts()[0]).toMatch(
      /^⏸️ The merge queue of <[^|]+\|acme\/widgets> has been paused for 5 h by carol \("Datacenter move"\), since 2026-03-02 09:00 UTC/,
    );
  });

  it("names who paused as the queue says where Yardmaster has no record of it (the gate's), branch by branch", async () => {
    const queue = new FakeQueue();
    queue.pauses = [
      pauseAt(0, "freeze the release", "dora", "release/2"),
      pauseAt(200, "hotfix", "eve", "hotfix"),
    ];
    clock = at(5 * 60);
    await subscribe(5 * 60);
    const channel = new Channel();
    await evaluator(channel, queue).tick();
    // The branch paused 5 hours ago is reminded; the one paused 100 minutes ago not yet.
    expect(channel.texts()).toEqual([
      expect.stringMatching(
        /\(branch `release\/2`\) has been paused for 5 h by dora \("freeze the release"\)/,
      ),
      expect.stringMatching(/\(branch `release\/2`\) has been paused for 5 h by dora/),
    ]);
  });

  it("keeps a long pause's alert while the queue does not answer, and ends it once the queue says it resumed", async () => {
    const queue = new FakeQueue();
    queue.pauses = [pauseAt(0, "Datacenter move", "carol")];
    clock = at(5 * 60);
    await subscribe(5 * 60);
    const channel = new Channel();
    const replica = evaluator(channel, queue);
    await replica.tick();
    expect(channel.posted).toHaveLength(2);
    queue.failing = true;
    clock = new Date(clock.getTime() + PAUSES_TTL_MS);
    await replica.tick();
    expect(channel.edits).toBe(0);
    expect(await store.listHealthEpisodes()).toHaveLength(1);

    queue.failing = false;
    queue.pauses = [];
    await replica.tick();
    expect(channel.edits).toBe(2);
    expect(channel.texts()[0]).toMatch(/was paused for 5 h 5 min; it ended: the queue was unpaused\.$/);
  });

  it("waits for the history to record who resumed, 10 minutes at most", async () => {
    await subscribe(-10);
    const queue = new FakeQueue();
    queue.pauses = [pauseAt(0, "release")];
    await record(paused(0, "release", "rita"));
    clock = at(4 * 60 + 1);
    const channel = new Channel();
    const replica = evaluator(channel, queue);
    await replica.tick();
    expect(channel.texts()[0]).toContain('by rita ("release")');

    // The queue resumed; the poller has not read its log yet.
    queue.pauses = [];
    await record(paused(4 * 60 + 2, "release, still", "rita", true));
    clock = at(4 * 60 + 3);
    await replica.tick();
    expect(channel.edits).toBe(0);
    await record(resumed(4 * 60 + 4, "sam"));
    clock = at(4 * 60 + 5);
    await replica.tick();
    expect(channel.edits).toBe(2);
    expect(channel.texts()[0]).toMatch(/; it ended: the queue was unpaused by sam\.$/);

    // Never recorded: ended all the same, RESUME_RECORD_WAIT_MS after it was first seen.
    queue.pauses = [pauseAt(5 * 60, "again")];
    await record(paused(5 * 60, "again", "rita"));
    clock = at(9 * 60 + 1);
    await replica.tick();
    expect(channel.posted).toHaveLength(4);
    queue.pauses = [];
    await record(paused(9 * 60 + 2, "again, edited", "rita", true));
    clock = at(9 * 60 + 3);
    await replica.tick();
    clock = new Date(clock.getTime() + RESUME_RECORD_WAIT_MS - MIN);
    await replica.tick();
    expect(channel.edits).toBe(2);
    clock = new Date(clock.getTime() + MIN);
    await replica.tick();
    expect(channel.edits).toBe(4);
    expect(channel.texts()[2]).toMatch(/; it ended: the queue was unpaused\.$/);
  });

  it("asks the queue once per PAUSES_TTL_MS, and again as soon as the history records a pause or a resume", async () => {
    await subscribe(-10);
    const queue = new FakeQueue();
    const replica = evaluator(new Channel(), queue);
    await replica.tick();
    clock = new Date(clock.getTime() + PAUSES_TTL_MS - MIN);
    await replica.tick();
    expect(queue.reads).toBe(1);
    await record(paused(1, "release", "rita"));
    await replica.tick();
    expect(queue.reads).toBe(2);
    clock = new Date(clock.getTime() + PAUSES_TTL_MS);
    await replica.tick();
    expect(queue.reads).toBe(3);
  });

  it("judges from the history alone a queue that cannot list its pauses", async () => {
    await subscribe(-10);
    await record(paused(0, "release", "rita"));
    clock = at(4 * 60 + 1);
    const channel = new Channel();
    await evaluator(channel, { backend: {} as MergeQueueBackend }).tick();
    expect(channel.texts()[0]).toMatch(/has been paused for 4 h 1 min by rita \("release"\)/);
  });
});
