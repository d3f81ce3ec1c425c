import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { QueueEvent } from "../../src/core/queue.js";
import { queueState } from "../../src/health/assess.js";
import { NORMAL_KINDS } from "../../src/health/evaluator.js";
import { HealthHistory, NORMAL_TTL_MS } from "../../src/health/history-cache.js";
import { queueNormal } from "../../src/health/thresholds.js";
import { Repo } from "../../src/repo.js";
import { openStore, type Store } from "../../src/store/index.js";
import { at, ended, entered, left, MIN, merged, started } from "./events.js";

/**
 * The health passes' reads of the history (src/health/history-cache.ts) on a real (SQLite) store whose
 * reads are counted, with a clock moved by hand: the 7 days are read once per few minutes, and what a
 * pass sees is what a full read would have given.
 */
const REPO = Repo.from("acme/widgets");
const DAY = 24 * 60;
let store: Store;
let clock: Date;
let reads: { from: Date; to: Date }[];

function history() {
  const counted = {
    readQueueEvents: (repo: Repo, range: { from: Date; to: Date }, kinds?: readonly string[]) => {
      reads.push(range);
      return store.readQueueEvents(repo, range, kinds);
    },
    readRecentQueueEvents: (
      repo: Repo,
      range: { from: Date; to: Date; since: Date },
      kinds: readonly string[],
    ) => {
      reads.push({ from: range.since, to: range.to });
      return store.readRecentQueueEvents(repo, range, kinds);
    },
  };
  return new HealthHistory({ history: counted, stallMinutes: null, kinds: NORMAL_KINDS, now: () => clock });
}

/** What a full read of the 7 days gives now. */
async function fullRead() {
  const events = await store.readQueueEvents(
    REPO,
    { from: new Date(clock.getTime() - 7 * DAY * MIN), to: new Date(clock.getTime() + 1) },
    NORMAL_KINDS,
  );
  return { normal: queueNormal(events), state: queueState(events) };
}

async function record(...events: QueueEvent[]) {
  await store.recordQueueEvents(REPO, events, clock);
}

beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  reads = [];
  // Days of merges, a pull request failed and gone, and #50 queued two days ago whose checks still run.
  clock = at(0);
  for (let day = 1; day <= 5; day += 1) {
    const m = day * 600;
    await record(entered(m, day), started(m + 1, day), ended(m + 20, day), merged(m + 21, day));
  }
  await record(
    entered(3100, 40),
    started(3101, 40),
    ended(3120, 40, ["ci/test"]),
    left(3121, 40, ["ci/test"]),
  );
  await record(entered(5 * DAY, 50), started(5 * DAY + 1, 50, "b9"));
  clock = at(7 * DAY);
});
afterEach(async () => {
  await store.close();
});

describe("the health passes' reads of the history", () => {
  it("reads the 7 days once, then within the TTL only the last hour and what came since", async () => {
    const cache = history();
    const first = await cache.read(REPO);
    expect(reads).toHaveLength(1);
    expect(reads[0]?.from).toEqual(new Date(clock.getTime() - 7 * DAY * MIN));
    expect(cache.fullReads).toBe(1);

    clock = new Date(clock.getTime() + 2 * MIN);
    await record(entered(7 * DAY + 1, 60));
    const second = await cache.read(REPO);
    expect(cache.fullReads).toBe(1);
    expect(reads[1]?.from).toEqual(new Date(clock.getTime() - 2 * MIN - 60 * MIN));
    // The same normal, and the same queue as a full read tells it: #50's checks running since two days.
    const full = await fullRead();
    expect(second.normal).toEqual(first.normal);
    expect(second.normal).toEqual(full.normal);
    expect(queueState(second.events)).toEqual(full.state);
    expect([...queueState(second.events).waiting.keys()]).toEqual([50, 60]);
    expect(queueState(second.events).running.get(50)).toEqual({
      since: at(5 * DAY + 1).getTime(),
      batch: "b9",
    });
  });

  it("sees, before its next full read, an event recorded more than an hour after it happened", async () => {
    const cache = history();
    await cache.read(REPO);
    // #50 merged 65 minutes ago; the poller records it only now, after this replica's copy was made.
    clock = new Date(clock.getTime() + MIN);
    await record(ended(7 * DAY - 64, 50), merged(7 * DAY - 64, 50));
    clock = new Date(clock.getTime() + MIN);
    const seen = await cache.read(REPO);
    expect(cache.fullReads).toBe(1);
    const full = await fullRead();
    expect(queueState(seen.events)).toEqual(full.state);
    expect([...queueState(seen.events).waiting.keys()]).toEqual([]);
    expect(seen.events.filter((e) => e.kind === "merged").at(-1)?.pull).toBe(50);
  });

  it("reads the 7 days again once the TTL has passed, on the injected clock", async () => {
    const cache = history();
    await cache.read(REPO);
    clock = new Date(clock.getTime() + NORMAL_TTL_MS - 1);
    await cache.read(REPO);
    expect(cache.fullReads).toBe(1);
    clock = new Date(clock.getTime() + 2);
    await cache.read(REPO);
    expect(cache.fullReads).toBe(2);
    expect(reads.at(-1)?.from).toEqual(new Date(clock.getTime() - 7 * DAY * MIN));
  });
});
