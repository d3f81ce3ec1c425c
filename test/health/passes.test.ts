import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HealthEvaluator } from "../../src/health/evaluator.js";
import { HEALTH_PASS_KIND, HEALTH_PASS_MS, HealthPasses } from "../../src/health/passes.js";
import { createLogger } from "../../src/logger.js";
import { Repo } from "../../src/repo.js";
import { openStore, type Store } from "../../src/store/index.js";
import { WorkRunner } from "../../src/work/runner.js";
import { Channel, subscribe } from "./channel.js";
import { at, ended, entered, merged, started } from "./events.js";

/**
 * The health passes as durable work: two replicas' runners on one real (SQLite) store, a clock moved by
 * hand, each pass claimed by hand (the runners' drain: no timer runs), and a channel that keeps what it
 * was asked to post and edit.
 */
const REPO = Repo.from("acme/widgets");
const logger = createLogger({ level: "silent" });
let store: Store;
let clock: Date;

/** A replica: its runner of durable work with the health passes registered, its evaluator. */
function replica(channel: Channel, owner: string): WorkRunner {
  const now = () => clock;
  const work = new WorkRunner({ store, owner, now, logger });
  const evaluator = new HealthEvaluator({
    store,
    poster: channel,
    settings: { stallMinutes: null, pauseReminderHours: 4 },
    githubWebUrl: "https://github.com",
    owner,
    logger,
    now,
  });
  new HealthPasses({ evaluator, work, now });
  return work;
}

const later = (ms: number) => new Date(clock.getTime() + ms);

beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  clock = at(0);
  await subscribe(store, REPO, ["C1", "C2"], at(-100));
  await store.recordQueueEvents(REPO, [entered(0, 1), started(1, 1, "b1")], clock);
});
afterEach(async () => {
  await store.close();
});

describe("the health passes", () => {
  it("are run by one replica each; a dead replica's claim is taken over at its lapse, and nothing is posted twice", async () => {
    const channel = new Channel();
    const [a, b] = [replica(channel, "a"), replica(channel, "b")];
    clock = at(31);
    await a.schedule({ kind: HEALTH_PASS_KIND, key: "all", dueAt: clock, when: "absent" });
    // Both look at once: one claims the pass and opens the stall's alert in each channel.
    const [ra, rb] = await Promise.all([a.drain(HEALTH_PASS_KIND), b.drain(HEALTH_PASS_KIND)]);
    expect(ra.ok + rb.ok).toBe(1);
    expect(channel.posted.map((p) => p.channel)).toEqual(["C1", "C2"]);
    // The next pass is an interval away.
    expect((await b.drain(HEALTH_PASS_KIND)).claimed).toBe(0);

    // An interval on, replica a claims the pass (as its runner does) and is killed before running it.
    clock = later(HEALTH_PASS_MS);
    const dead = await store.claimWork({
      kind: HEALTH_PASS_KIND,
      owner: "a",
      now: clock,
      leaseMs: HEALTH_PASS_MS,
      limit: 1,
    });
    expect(dead.claimed).toHaveLength(1);
    const lapse = later(HEALTH_PASS_MS);
    // #1 merges: the alert is to end, but the pass is a's until its claim lapses.
    await store.recordQueueEvents(REPO, [ended(32, 1), merged(32, 1)], clock);
    clock = new Date(lapse.getTime() - 1);
    expect((await b.drain(HEALTH_PASS_KIND)).claimed).toBe(0);
    expect(channel.edits).toBe(0);

    // At the lapse, b's runner takes the pass over: the alert ends, each message edited once.
    clock = lapse;
    expect(await b.drain(HEALTH_PASS_KIND)).toEqual({ claimed: 1, ok: 1, failed: 0 });
    expect(channel.edits).toBe(2);
    expect(channel.posted).toHaveLength(2);
    expect(channel.posted.map((p) => p.text)).toEqual([
      expect.stringMatching(/^✅ The merge queue .* was stalled for .*; it ended: .*#1> merged\.$/),
      expect.stringMatching(/^✅ The merge queue .* was stalled for .*; it ended: .*#1> merged\.$/),
    ]);

    // Replica a, back, finds no pass due: b's was the one, nothing posted or edited again.
    expect((await a.drain(HEALTH_PASS_KIND)).claimed).toBe(0);
    clock = later(HEALTH_PASS_MS);
    expect((await a.drain(HEALTH_PASS_KIND)).ok).toBe(1);
    expect(channel.posted).toHaveLength(2);
    expect(channel.edits).toBe(2);
  });

  it("a pass that failed is tried again an interval later, as the next would be", async () => {
    const work = new WorkRunner({ store, owner: "a", now: () => clock, logger });
    let fail = true;
    new HealthPasses({
      evaluator: {
        tick: async () => {
          if (fail) throw new Error("store unreachable");
        },
      },
      work,
      now: () => clock,
    });
    clock = at(31);
    await work.schedule({ kind: HEALTH_PASS_KIND, key: "all", dueAt: clock, when: "absent" });
    expect(await work.drain(HEALTH_PASS_KIND)).toEqual({ claimed: 1, ok: 0, failed: 1 });
    fail = false;
    clock = later(HEALTH_PASS_MS - 1);
    expect((await work.drain(HEALTH_PASS_KIND)).claimed).toBe(0);
    clock = later(1);
    expect(await work.drain(HEALTH_PASS_KIND)).toEqual({ claimed: 1, ok: 1, failed: 0 });
  });
});
