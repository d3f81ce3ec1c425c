import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { MergeQueueBackend, MergeQueues, QueueEntry } from "../../src/core/merge-queue.js";
import type { QueueEvent } from "../../src/core/queue.js";
import { HealthEvaluator } from "../../src/health/evaluator.js";
import { createLogger } from "../../src/logger.js";
import { Repo } from "../../src/repo.js";
import { unpauseValue } from "../../src/slack/actions.js";
import { openStore, type Store } from "../../src/store/index.js";
import { Channel, subscribe } from "./channel.js";
import { at, ended, entered, merged, paused, resumed, started } from "./events.js";

/**
 * The evaluator on a real (SQLite) store with a clock moved by hand, and a poster that keeps what it was
 * asked to post and edit: what a channel would show.
 */
const REPO = Repo.from("acme/widgets");
let store: Store;
let clock: Date;

function evaluator(channel: Channel, owner = "replica-a", queues?: Pick<MergeQueues, "for">) {
  return new HealthEvaluator({
    ...(queues ? { queues } : {}),
    store,
    poster: channel,
    settings: { stallMinutes: null, pauseReminderHours: 4 },
    githubWebUrl: "https://github.com",
    owner,
    logger: createLogger({ level: "silent" }),
    now: () => clock,
  });
}

async function record(...events: QueueEvent[]) {
  await store.recordQueueEvents(REPO, events, clock);
}

beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  clock = at(0);
  await subscribe(store, REPO, ["C1", "C2"], at(-100), (id) =>
    id === "C1" ? ["queue", "health"] : ["health"],
  );
  await subscribe(store, REPO, ["C3"], at(-100), () => ["queue", "pause"]);
});
afterEach(async () => {
  await store.close();
});

describe("the health evaluator", () => {
  it("posts a stall once in each channel that wants health, from two replicas, and edits it once at the merge", async () => {
    const channel = new Channel();
    const [a, b] = [evaluator(channel, "a"), evaluator(channel, "b")];
    await record(entered(0, 1), started(1, 1, "b1"));
    clock = at(30);
    await Promise.all([a.tick(), b.tick()]);
    expect(channel.posted).toEqual([]);
    clock = at(31);
    await Promise.all([a.tick(), b.tick()]);
    await Promise.all([a.tick(), b.tick()]);
    expect(channel.posted.map((p) => p.channel)).toEqual(["C1", "C2"]);
    expect(channel.texts()[0]).toBe(
      "⚠️ The merge queue of <https://github.com/acme/widgets|acme/widgets> looks stalled: 1 pull request waits (<https://github.com/acme/widgets/pull/1|#1>) and nothing has merged for 31 min, longer than its usual 30 min. The head, <https://github.com/acme/widgets/pull/1|#1>, has had its <https://github.com/acme/widgets/pull/1/checks|checks> running since 2026-03-02 09:01 UTC (batch b1): look at them.",
    );
    clock = at(50);
    await record(ended(49, 1), merged(50, 1));
    await Promise.all([a.tick(), b.tick()]);
    expect(channel.edits).toBe(2);
    expect(channel.texts()).toEqual([
      "✅ The merge queue of <https://github.com/acme/widgets|acme/widgets> was stalled for 50 min; it ended: <https://github.com/acme/widgets/pull/1|#1> merged.",
      "✅ The merge queue of <https://github.com/acme/widgets|acme/widgets> was stalled for 50 min; it ended: <https://github.com/acme/widgets/pull/1|#1> merged.",
    ]);
  });

  it("of two replicas whose copies of the history differ, a merge recorded 65 minutes late ends the stall once: one post per channel, one edit each", async () => {
    const channel = new Channel();
    const [a, b] = [evaluator(channel, "a"), evaluator(channel, "b")];
    await record(entered(0, 1), started(1, 1, "b1"));
    clock = at(31);
    await a.tick();
    clock = at(33);
    await b.tick();
    expect(channel.posted.map((p) => p.channel)).toEqual(["C1", "C2"]);
    // Replica a makes a new copy of the 7 days; #1 merged at minute 40, recorded only at minute 105.
    clock = at(102);
    await a.tick();
    clock = at(105);
    await record(ended(39, 1), merged(40, 1));
    await b.tick();
    expect(channel.edits).toBe(2);
    for (let minute = 106; minute <= 112; minute += 1) {
      clock = at(minute);
      await a.tick();
      await b.tick();
    }
    expect(channel.posted.map((p) => p.channel)).toEqual(["C1", "C2"]);
    expect(channel.edits).toBe(2);
    expect(channel.texts()).toEqual([
      expect.stringMatching(/^✅ The merge queue .* was stalled for .*; it ended: .*#1> merged\.$/),
      expect.stringMatching(/^✅ The merge queue .* was stalled for .*; it ended: .*#1> merged\.$/),
    ]);
  });

  it("edits the message just posted to say how the alert ended when another replica closed it meanwhile, and tells no other channel", async () => {
    const channel = new Channel();
    const b = evaluator(channel, "b");
    await record(entered(0, 1), started(1, 1, "b1"));
    clock = at(31);
    channel.onPost = async () => {
      channel.onPost = null;
      await record(ended(31, 1), merged(31, 1));
      await b.tick();
    };
    await evaluator(channel, "a").tick();
    expect(channel.posted.map((p) => p.channel)).toEqual(["C1"]);
    expect(channel.edits).toBe(1);
    expect(channel.texts()[0]).toMatch(
      /^✅ The merge queue .* was stalled for 31 min; it ended: .*#1> merged\.$/,
    );
    expect(await store.listHealthEpisodes()).toEqual([]);
  });

  it("records each message as it lands: a slow second channel does not make another replica post the alert again", async () => {
    const channel = new Channel();
    const b = evaluator(channel, "b");
    await record(entered(0, 1), started(1, 1, "b1"));
    clock = at(31);
    channel.onPost = async (posting) => {
      if (posting !== "C2") return;
      channel.onPost = null;
      expect((await store.listHealthEpisodes())[0]?.posts).toEqual([{ channel: "C1", ts: "1.000000" }]);
      // Slack answers the second post only after 6 minutes; replica b passes meanwhile.
      clock = at(37);
      await b.tick();
    };
    await evaluator(channel, "a").tick();
    expect(channel.posted.map((p) => p.channel)).toEqual(["C1", "C2"]);
    expect((await store.listHealthEpisodes())[0]?.posts.map((p) => p.channel)).toEqual(["C1", "C2"]);
  });

  it("reads the 7 days once per repository in a pass and not again in the next pass a minute on", async () => {
    const a = evaluator(new Channel());
    await record(entered(0, 1), started(1, 1, "b1"));
    clock = at(10);
    await a.tick();
    clock = at(11);
    await a.tick();
    expect(a.history.fullReads).toBe(1);
  });

  it("names the head's checks still pending as the queue reports them, read once when the alert opens", async () => {
    const reads: (string | null)[] = [];
    const head = {
      position: 1,
      pull: { number: 1, title: "One", url: "", author: null },
      state: "checks-running",
      checks: {
        state: "pending",
        runIn: "in_place",
        draftPull: null,
        checks: [
          { name: "ci/test", url: "https://ci.example/t", state: "pending", description: null },
          { name: "ci/build", url: null, state: "success", description: null },
        ],
      },
    } as unknown as QueueEntry;
    const backend = {
      state: async (_repo: Repo, branch: string | null) => {
        reads.push(branch);
        return { entries: [head], batches: null, pause: null };
      },
    } as unknown as MergeQueueBackend;
    const channel = new Channel();
    const a = evaluator(channel, "a", { for: async () => backend });
    await record(entered(0, 1), started(1, 1, "b1"));
    clock = at(31);
    await a.tick();
    await a.tick();
    expect(reads).toEqual(["main"]);
    expect(channel.texts()[0]).toMatch(
      /running since 2026-03-02 09:01 UTC \(batch b1\); still pending: <https:\/\/ci\.example\/t\|ci\/test>: look at them\.$/,
    );

    // A queue that cannot be read: the history's words alone.
    const other = new Channel();
    const failing = { state: async () => Promise.reject(new Error("503")) } as unknown as MergeQueueBackend;
    await store.closeHealthEpisode((await store.listHealthEpisodes())[0] as never, "ended", clock);
    // The same stall opens again once its closing is an hour old.
    clock = at(95);
    await evaluator(other, "b", { for: async () => failing }).tick();
    expect(other.texts()[0]).toMatch(/running since 2026-03-02 09:01 UTC \(batch b1\): look at them\.$/);
  });

  it("posts, 5 minutes on, an alert whose replica died between opening it and posting it", async () => {
    await record(entered(0, 1));
    clock = at(31);
    await store.openHealthEpisode({
      repository: REPO,
      kind: "stalled",
      key: "queue",
      since: at(0),
      openedAt: clock,
      openedBy: "dead-replica",
      facts: {},
    });
    const channel = new Channel();
    clock = at(35);
    await evaluator(channel).tick();
    expect(channel.posted).toEqual([]);
    clock = at(36);
    await Promise.all([evaluator(channel, "a").tick(), evaluator(channel, "b").tick()]);
    await evaluator(channel).tick();
    expect(channel.texts()).toEqual([
      expect.stringMatching(/^⚠️ The merge queue .* looks stalled/),
      expect.stringMatching(/^⚠️ The merge queue .* looks stalled/),
    ]);
    expect(channel.posted.map((p) => p.channel)).toEqual(["C1", "C2"]);
  });

  it("posts, 10 minutes on, an alert in the channels its replica did not reach before it died, once", async () => {
    await record(entered(0, 1));
    clock = at(31);
    const ref = { repository: REPO, kind: "stalled", key: "queue" };
    await store.openHealthEpisode({ ...ref, since: at(0), openedAt: clock, openedBy: "dead", facts: {} });
    await store.addHealthEpisodePosts(ref, [{ channel: "C1", ts: "9.000000" }], at(31));
    const channel = new Channel();
    clock = at(40);
    await evaluator(channel).tick();
    expect(channel.posted).toEqual([]);
    clock = at(41);
    await Promise.all([evaluator(channel, "a").tick(), evaluator(channel, "b").tick()]);
    expect(channel.posted.map((p) => p.channel)).toEqual(["C2"]);
    expect(channel.texts()).toEqual([expect.stringMatching(/^⚠️ The merge queue .* looks stalled/)]);
    // Later passes, even long after, leave it be: every channel has it.
    for (const minute of [52, 90]) {
      clock = at(minute);
      await Promise.all([evaluator(channel, "a").tick(), evaluator(channel, "b").tick()]);
    }
    expect(channel.posted.map((p) => p.channel)).toEqual(["C2"]);
    expect((await store.listHealthEpisodes())[0]?.posts).toEqual([
      { channel: "C1", ts: "9.000000" },
      { channel: "C2", ts: "1.000000" },
    ]);
  });

  it("edits, 5 minutes on, the messages of an alert whose replica died between closing it and editing them", async () => {
    const channel = new Channel();
    await record(entered(0, 1));
    clock = at(31);
    await evaluator(channel, "a").tick();
    expect(channel.posted.map((p) => p.channel)).toEqual(["C1", "C2"]);
    await record(merged(38, 1));
    // The replica that read the merge closed the episode, then died before editing its messages.
    const [open] = await store.listHealthEpisodes();
    await store.closeHealthEpisode(open as never, "#1 merged", at(39));
    clock = at(43);
    await evaluator(channel, "a").tick();
    expect(channel.edits).toBe(0);
    clock = at(44);
    await Promise.all([evaluator(channel, "a").tick(), evaluator(channel, "b").tick()]);
    expect(channel.edits).toBe(2);
    expect(channel.texts()).toEqual([
      expect.stringMatching(/^✅ The merge queue .* was stalled for 39 min; it ended: #1 merged\.$/),
      expect.stringMatching(/^✅ The merge queue .* was stalled for 39 min; it ended: #1 merged\.$/),
    ]);
    for (const minute of [50, 200]) {
      clock = at(minute);
      await Promise.all([evaluator(channel, "a").tick(), evaluator(channel, "b").tick()]);
    }
    expect(channel.edits).toBe(2);
    expect(channel.posted).toHaveLength(2);
  });

  it("does not edit again the messages of an alert its replica closed and edited", async () => {
    const channel = new Channel();
    await record(entered(0, 1));
    clock = at(31);
    await evaluator(channel, "a").tick();
    await record(merged(38, 1));
    clock = at(39);
    await evaluator(channel, "a").tick();
    expect(channel.edits).toBe(2);
    for (const minute of [45, 100]) {
      clock = at(minute);
      await Promise.all([evaluator(channel, "a").tick(), evaluator(channel, "b").tick()]);
    }
    expect(channel.edits).toBe(2);
  });

  it("closes on start an episode that ended while no replica ran", async () => {
    const before = new Channel();
    await record(entered(0, 1));
    clock = at(40);
    await evaluator(before).tick();
    expect(before.posted).toHaveLength(2);
    // Every replica down; the pull request merges; a replica starts again.
    await record(merged(60, 1));
    clock = at(120);
    const after = new Channel();
    after.posted = before.posted;
    await evaluator(after).tick();
    expect(after.edits).toBe(2);
    expect(after.texts()[0]).toMatch(/^✅ The merge queue .* was stalled for 2 h; it ended: .*#1> merged\.$/);
    expect(await store.listHealthEpisodes()).toEqual([]);
  });

  it("reminds of a long pause with the Unpause button, again every 24 hours at most, escaping its reason", async () => {
    const channel = new Channel();
    await record(paused(0, "<!channel> *wait*", "rita"));
    clock = at(4 * 60 + 1);
    await evaluator(channel).tick();
    expect(channel.posted).toHaveLength(2);
    expect(channel.texts()[0]).toContain('by rita ("&lt;!channel&gt; \u200b*\u200bwait\u200b*\u200b")');
    expect(JSON.stringify(channel.posted[0]?.blocks)).toContain('"text":"Unpause"');
    clock = at(4 * 60 + 1 + 23 * 60);
    await evaluator(channel).tick();
    expect(channel.posted).toHaveLength(2);
    clock = at(4 * 60 + 1 + 24 * 60);
    await Promise.all([evaluator(channel, "a").tick(), evaluator(channel, "b").tick()]);
    expect(channel.posted).toHaveLength(4);
    await record(resumed(2000, "sam"));
    clock = at(2001);
    await evaluator(channel).tick();
    expect(channel.edits).toBe(4);
    expect(new Set(channel.texts())).toEqual(
      new Set([
        "✅ The merge queue of <https://github.com/acme/widgets|acme/widgets> was paused for 1 d 9 h; it ended: the queue was unpaused by sam.",
      ]),
    );
  });

  it("reminds of each branch's long pause on its own (GitHub's gate): resuming another branch leaves it", async () => {
    const channel = new Channel();
    const onBranch = (e: QueueEvent, branch: string) => ({ ...e, branch });
    await record(
      onBranch({ ...paused(0, "hold release", "rita"), scope: "branch" } as QueueEvent, "release/1"),
      onBranch({ ...paused(1, "hold hotfix", "rita"), scope: "branch" } as QueueEvent, "hotfix"),
      onBranch(resumed(2, "sam"), "hotfix"),
    );
    clock = at(4 * 60 + 1);
    await evaluator(channel).tick();
    expect(channel.posted.map((p) => p.channel)).toEqual(["C1", "C2"]);
    expect(channel.texts()[0]).toMatch(
      /^⏸️ The merge queue of .* \(branch `release\/1`\) has been paused for 4 h/,
    );
    expect(JSON.stringify(channel.posted[0]?.blocks)).toContain(
      JSON.stringify(unpauseValue(REPO, "release/1")).slice(1, -1),
    );
    // Resuming the default branch (not paused alone) does not end release/1's pause; resuming it does.
    await record(onBranch(resumed(4 * 60 + 2, "sam"), "main"));
    clock = at(4 * 60 + 3);
    await evaluator(channel).tick();
    expect(channel.edits).toBe(0);
    await record(onBranch(resumed(4 * 60 + 4, "sam"), "release/1"));
    clock = at(4 * 60 + 5);
    await evaluator(channel).tick();
    expect(channel.edits).toBe(2);
    expect(channel.texts()[0]).toMatch(
      /^✅ The merge queue of .* \(branch `release\/1`\) was paused for 4 h 5 min; it ended: the queue was unpaused by sam\.$/,
    );
  });

  it("names who paused through Yardmaster, from its own record of this pause", async () => {
    const channel = new Channel();
    await record(paused(0, "release", "yardmaster-app"));
    await store.putPauseAttribution({
      repository: REPO,
      action: "pause",
      reason: "release",
      actor: "alice",
      surface: "slack",
      at: at(0),
    });
    clock = at(5 * 60);
    await evaluator(channel).tick();
    expect(channel.texts()[0]).toContain('paused for 5 h by alice ("release")');
  });

  it("does not remind of a freeze window's pause", async () => {
    const channel = new Channel();
    await store.addFreeze({
      id: "f1",
      repository: REPO,
      name: "weekend",
      schedule: {
        kind: "weekly",
        start: { day: 5, hour: 18, minute: 0 },
        end: { day: 1, hour: 8, minute: 0 },
      },
      zone: "UTC",
      createdBy: "alice",
      surface: "slack",
      createdAt: at(0),
    });
    await record(paused(0, "weekend (scheduled by alice)", null));
    clock = at(5 * 60);
    await evaluator(channel).tick();
    expect(channel.posted).toEqual([]);
  });

  it("does not remind of a timed pause", async () => {
    const channel = new Channel();
    await record(paused(0, "deploy", "rita"));
    await store.putScheduledUnpause({
      repository: REPO,
      reason: "deploy",
      resumesAt: at(10 * 60),
      scheduledBy: "rita",
      surface: "slack",
      createdAt: at(0),
    });
    clock = at(5 * 60);
    await evaluator(channel).tick();
    expect(channel.posted).toEqual([]);
  });

  it("says checks far slower than usual, and that they ended", async () => {
    const channel = new Channel();
    // Five runs of 10 minutes each: slow past max(20, 25) = 25 minutes.
    for (let i = 0; i < 5; i++)
      await record(
        entered(i * 12, i + 1),
        started(i * 12, i + 1, `b${i}`),
        ended(i * 12 + 10, i + 1),
        merged(i * 12 + 11, i + 1),
      );
    await record(entered(70, 6), started(70, 6, "b5"));
    clock = at(95);
    await evaluator(channel).tick();
    expect(channel.posted).toEqual([]);
    clock = at(96);
    await evaluator(channel).tick();
    expect(channel.texts()[0]).toBe(
      "🐢 The <https://github.com/acme/widgets/pull/6/checks|checks of #6> in the merge queue of <https://github.com/acme/widgets|acme/widgets> have been running for 26 min, far longer than usual (90% of runs end within 10 min): look at the checks still pending, a runner may be stuck.",
    );
    await record(ended(100, 6), merged(101, 6));
    clock = at(101);
    await evaluator(channel).tick();
    expect(channel.texts()[0]).toMatch(
      /^✅ The slow checks in the merge queue of .* ran for 31 min; it ended: the checks ended\.$/,
    );
  });
});
