import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../../src/logger.js";
import { openStore, type Store, type WorkItem } from "../../src/store/index.js";
import { backoff, type WorkKind, type WorkNext, WorkRunner } from "../../src/work/runner.js";

// The runner of durable work on a fake clock (timers and Date), over an in-memory SQLite store.

const T0 = new Date("2026-03-02T09:00:00.000Z");
const at = (ms: number) => new Date(T0.getTime() + ms);
const logger = createLogger({ level: "silent" });

let store: Store;
const runners: WorkRunner[] = [];

function runner(owner = "a", safetyMs = 30_000) {
  const failing = new Map<string, number>();
  const runs: string[] = [];
  const made = new WorkRunner({
    store,
    owner,
    now: () => new Date(),
    logger,
    safetyMs,
    metrics: {
      workRuns: { inc: ({ kind, outcome }) => runs.push(`${kind}:${outcome}`) },
      workFailing: { set: ({ kind }, value) => failing.set(kind, value), reset: () => failing.clear() },
    },
  });
  runners.push(made);
  return { runner: made, failing, runs };
}

/** A kind whose runs are recorded with the fake time they began at (ms after T0). */
function recorded(kind: string, run?: (item: WorkItem) => Promise<WorkNext>, extra: Partial<WorkKind> = {}) {
  const started: string[] = [];
  const definition: WorkKind = {
    kind,
    run: async (item) => {
      started.push(`${item.key}@${Date.now() - T0.getTime()}`);
      return run ? run(item) : null;
    },
    ...extra,
  };
  return { definition, started };
}

/** Registers each kind, schedules its one item (key, due time), then has the runner claim the kinds in turn. */
async function runKinds(r: WorkRunner, items: [WorkKind, string, Date][]) {
  for (const [kind, key, dueAt] of items) {
    r.register(kind);
    await store.scheduleWork({ kind: kind.kind, key, dueAt });
  }
  for (const [kind] of items) r.resume(kind.kind);
}

beforeEach(async () => {
  vi.useFakeTimers({
    now: T0,
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
  });
  store = await openStore({ kind: "sqlite", path: ":memory:" });
});

afterEach(async () => {
  for (const made of runners.splice(0)) await made.stop();
  await store.close();
  vi.useRealTimers();
});

describe("WorkRunner", () => {
  it("wakes for the earliest due item of any kind, and not before", async () => {
    const { runner: r } = runner();
    const a = recorded("a");
    const b = recorded("b");
    await runKinds(r, [
      [a.definition, "later", at(10_000)],
      [b.definition, "sooner", at(5_000)],
    ]);
    await vi.advanceTimersByTimeAsync(4_999);
    expect([...a.started, ...b.started]).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(b.started).toEqual(["sooner@5000"]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(a.started).toEqual(["later@10000"]);
  });

  it("is woken by work this replica schedules, and finds other replicas' work by its safety poll", async () => {
    const { runner: r } = runner("a", 30_000);
    const job = recorded("job", undefined, { concurrency: 2 });
    r.register(job.definition);
    r.resume("job");
    await vi.advanceTimersByTimeAsync(1_000);
    await r.schedule({ kind: "job", key: "mine", dueAt: at(2_000) });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(job.started).toEqual(["mine@2000"]);
    // Another replica's: this one hears nothing of it, and finds it at its next look (30 s after the last).
    await store.scheduleWork({ kind: "job", key: "theirs", dueAt: at(3_000) });
    await vi.advanceTimersByTimeAsync(30_000);
    expect(job.started).toEqual(["mine@2000", "theirs@32000"]);
  });

  it("reschedules an item at the time its run returns", async () => {
    const { runner: r } = runner();
    const job = recorded("job", async () => ({ dueAt: new Date(Date.now() + 7_000) }));
    r.register(job.definition);
    await store.scheduleWork({ kind: "job", key: "k", dueAt: at(0) });
    r.resume("job");
    await vi.advanceTimersByTimeAsync(14_000);
    expect(job.started).toEqual(["k@0", "k@7000", "k@14000"]);
  });

  it("runs at most a kind's concurrency at once, and all of its due items in the end", async () => {
    const { runner: r } = runner();
    let now = 0;
    let most = 0;
    const job = recorded(
      "job",
      async () => {
        now += 1;
        most = Math.max(most, now);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        now -= 1;
        return null;
      },
      { concurrency: 2 },
    );
    r.register(job.definition);
    for (const key of ["a", "b", "c", "d", "e"]) await store.scheduleWork({ kind: "job", key, dueAt: at(0) });
    r.resume("job");
    await vi.advanceTimersByTimeAsync(10_000);
    expect(most).toBe(2);
    expect(job.started.map((s) => s.split("@")[0]).sort()).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("renews a claim while its item runs: another replica does not take it, however long it runs", async () => {
    const { runner: first } = runner("a");
    const { runner: second } = runner("b");
    const slow = recorded(
      "job",
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 20_000));
        return null;
      },
      { leaseMs: 3_000 },
    );
    first.register(slow.definition);
    const other = recorded("job", undefined, { leaseMs: 3_000 });
    second.register(other.definition);
    await store.scheduleWork({ kind: "job", key: "k", dueAt: at(0) });
    first.resume("job");
    await vi.advanceTimersByTimeAsync(1);
    second.resume("job");
    await vi.advanceTimersByTimeAsync(25_000);
    expect(slow.started).toEqual(["k@0"]);
    expect(other.started).toEqual([]);
  });

  it("takes over an item whose replica stopped renewing its claim (killed), once the claim lapsed", async () => {
    await store.scheduleWork({ kind: "job", key: "k", dueAt: at(0) });
    // A replica claims it, then dies: nothing renews it.
    await store.claimWork({ kind: "job", owner: "dead", now: at(0), leaseMs: 10_000, limit: 1 });
    const { runner: survivor } = runner("b", 60_000);
    const job = recorded("job");
    survivor.register(job.definition);
    survivor.resume("job");
    await vi.advanceTimersByTimeAsync(9_999);
    expect(job.started).toEqual([]);
    // The claim told the survivor when the item becomes claimable: it does not wait for its safety poll.
    await vi.advanceTimersByTimeAsync(1);
    expect(job.started).toEqual(["k@10000"]);
  });

  it("retries a failing item with exponential backoff, counts it, and runs the others meanwhile", async () => {
    const { runner: r, failing, runs } = runner();
    const job = recorded(
      "job",
      async (item) => {
        if (item.key === "bad") throw new Error("always");
        return { dueAt: new Date(Date.now() + 4_000) };
      },
      { concurrency: 2 },
    );
    r.register(job.definition);
    await store.scheduleWork({ kind: "job", key: "bad", dueAt: at(0) });
    await store.scheduleWork({ kind: "job", key: "good", dueAt: at(0) });
    r.resume("job");
    await vi.advanceTimersByTimeAsync(36_000);
    expect(job.started.filter((s) => s.startsWith("bad"))).toEqual([
      "bad@0",
      "bad@5000",
      "bad@15000",
      "bad@35000",
    ]);
    expect(job.started.filter((s) => s.startsWith("good"))).toHaveLength(10);
    expect(failing.get("job")).toBe(1);
    expect(runs.filter((run) => run === "job:failed")).toHaveLength(4);
    const kept = await store.claimWork({
      kind: "job",
      owner: "x",
      now: at(10 * 60_000),
      leaseMs: 1,
      limit: 5,
    });
    expect(kept.claimed.find((item) => item.key === "bad")).toMatchObject({
      attempts: 4,
      lastError: "always",
    });
  });

  it("backs off exponentially up to its cap", () => {
    expect([1, 2, 3, 4].map((n) => backoff(n))).toEqual([5_000, 10_000, 20_000, 40_000]);
    expect(backoff(50)).toBe(10 * 60_000);
  });

  it("stops gracefully: waits for the item under way, then claims nothing more", async () => {
    const { runner: r } = runner();
    let ended = false;
    const job = recorded("job", async () => {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      ended = true;
      return { dueAt: new Date(Date.now() + 1_000) };
    });
    r.register(job.definition);
    await store.scheduleWork({ kind: "job", key: "k", dueAt: at(0) });
    r.resume("job");
    await vi.advanceTimersByTimeAsync(1);
    const stopped = r.stop();
    await vi.advanceTimersByTimeAsync(2_000);
    await stopped;
    expect(ended).toBe(true);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(job.started).toEqual(["k@0"]);
  });

  it("drains a kind by hand, claim after claim, whether or not it runs by itself", async () => {
    const { runner: r } = runner();
    const job = recorded("job", undefined, { concurrency: 2 });
    r.register(job.definition);
    for (const key of ["a", "b", "c"]) await store.scheduleWork({ kind: "job", key, dueAt: at(0) });
    await store.scheduleWork({ kind: "job", key: "later", dueAt: at(1_000) });
    expect(await r.drain("job")).toEqual({ claimed: 3, ok: 3, failed: 0 });
  });

  it("runs an item made claimed next, its turn given up early if it asks; others wait their turn, renewed", async () => {
    const { runner: a } = runner("a");
    const { runner: b } = runner("b");
    const gates = new Map<string, () => void>();
    const order: string[] = [];
    const kind = (owner: string): WorkKind => ({
      kind: "job",
      concurrency: 1,
      leaseMs: 3_000,
      run: async (item, { yieldTurn }) => {
        order.push(`${owner} ran ${item.key}`);
        if (item.key === "first") {
          yieldTurn();
          await new Promise<void>((resolve) => gates.set(item.key, resolve));
        }
        order.push(`${owner} done ${item.key}`);
        return null;
      },
    });
    a.register(kind("a"));
    b.register(kind("b"));
    b.resume("job");
    const first = await a.scheduleClaimed({ kind: "job", key: "first", dueAt: at(0) });
    const second = await a.scheduleClaimed({ kind: "job", key: "second", dueAt: at(0) });
    expect(first?.item).toMatchObject({ claimedBy: "a", claimedUntil: at(3_000) });
    expect(await a.scheduleClaimed({ kind: "job", key: "first", dueAt: at(0) })).toBeNull();
    await second?.run;
    // The second ran once the first gave up its turn, while the first still waits, claimed.
    expect(order).toEqual(["a ran first", "a ran second", "a done second"]);
    // Renewed while it waits: no other replica takes it over, however long.
    await vi.advanceTimersByTimeAsync(20_000);
    expect(order).toEqual(["a ran first", "a ran second", "a done second"]);
    gates.get("first")?.();
    expect(await first?.run).toBe(true);
    expect(order.at(-1)).toBe("a done first");
    expect(await store.claimWork({ kind: "job", owner: "c", now: at(60_000), leaseMs: 1, limit: 9 })).toEqual(
      {
        claimed: [],
        nextDueAt: null,
      },
    );
  });

  it("keeps a kind's claims on the kind's own clock", async () => {
    const { runner: r } = runner("a", 1_000);
    // The kind's clock is an hour ahead of the runner's: its item is due by it, not by the runner's.
    const ahead = () => new Date(Date.now() + 3_600_000);
    const late = recorded("late", undefined, { now: ahead });
    r.register(late.definition);
    await store.scheduleWork({ kind: "late", key: "k", dueAt: at(3_600_000 + 2_000) });
    r.resume("late");
    await vi.advanceTimersByTimeAsync(1_999);
    expect(late.started).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_001);
    expect(late.started).toEqual(["k@2000"]);
  });
  it("keeps a recurring kind's one item: made at the start unless there is one, run by one replica an interval apart", async () => {
    const every = 10_000;
    const a = runner("a", 1_000);
    const b = runner("b", 1_000);
    const runs: string[] = [];
    for (const [name, made] of [
      ["a", a.runner],
      ["b", b.runner],
    ] as const) {
      made.register({
        kind: "pass",
        standing: { key: "all", dueAt: () => new Date(Date.now() + every) },
        run: async () => {
          runs.push(`${name}@${Date.now() - T0.getTime()}`);
          return { dueAt: new Date(Date.now() + every) };
        },
      });
    }
    a.runner.resume("pass");
    await vi.advanceTimersByTimeAsync(4_000);
    // The second replica starts later: the item made by the first stands, due when it said.
    b.runner.resume("pass");
    await vi.advanceTimersByTimeAsync(35_000);
    // One item, run once an interval by whichever runner claimed it.
    expect(runs.map((run) => run.split("@")[1])).toEqual(["10000", "20000", "30000"]);
  });

  it("makes a standing item the store refused at the next pass, telling it once", async () => {
    const { runner: r } = runner("a", 1_000);
    const errors = vi.spyOn(logger, "error");
    const schedule = store.scheduleWork.bind(store);
    let refusals = 3;
    store.scheduleWork = async (item) => {
      if (refusals > 0) {
        refusals -= 1;
        throw new Error("database is locked");
      }
      return schedule(item);
    };
    const pass = recorded("pass", async () => ({ dueAt: new Date(Date.now() + 60_000) }), {
      standing: { key: "all", dueAt: () => new Date(Date.now() + 5_000) },
    });
    r.register(pass.definition);
    r.resume("pass");
    // Refused at the passes at 0, 1 and 2 s; made at 3 s, due 5 s later.
    await vi.advanceTimersByTimeAsync(7_999);
    expect(refusals).toBe(0);
    expect(pass.started).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(pass.started).toEqual(["all@8000"]);
    expect(errors).toHaveBeenCalledTimes(1);
    errors.mockRestore();
  });

  it("looks again after a pass the store failed, and tells its listeners only of passes the store answered", async () => {
    const { runner: r } = runner("a", 1_000);
    r.register(recorded("k").definition);
    let passes = 0;
    const stop = r.onPassed(() => {
      passes += 1;
    });
    r.resume("k");
    await vi.advanceTimersByTimeAsync(2_500);
    expect(passes).toBe(3);
    const claim = store.claimWork.bind(store);
    store.claimWork = async () => {
      throw new Error("connection refused");
    };
    await vi.advanceTimersByTimeAsync(3_000);
    expect(passes).toBe(3);
    // The store answers again: the passes go on at the safety look (no work scheduled here to wake it).
    store.claimWork = claim;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(passes).toBe(4);
    stop();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(passes).toBe(4);
  });
  it("runs the other kinds when one kind's batch cannot start, and counts its items failed", async () => {
    const { runner: r, runs, failing } = runner("a", 1_000);
    const bad = recorded("bad", undefined, {
      beforeBatch: async () => {
        throw new Error("could not read the subscriptions");
      },
    });
    const good = recorded("good", async () => ({ dueAt: new Date(Date.now() + 2_000) }));
    await runKinds(r, [
      [bad.definition, "b", at(0)],
      [good.definition, "g", at(0)],
    ]);
    await vi.advanceTimersByTimeAsync(4_500);
    expect(bad.started).toEqual([]);
    expect(good.started).toEqual(["g@0", "g@2000", "g@4000"]);
    // Its item failed at once (not left claimed until its lease lapsed), and again after the backoff.
    expect(runs.filter((run) => run === "bad:failed")).toHaveLength(1);
    expect(failing.get("bad")).toBe(1);
    await vi.advanceTimersByTimeAsync(backoff(1));
    expect(runs.filter((run) => run === "bad:failed")).toHaveLength(2);
  });
});
