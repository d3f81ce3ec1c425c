import { describe, expect, it } from "vitest";
import type { QueueEvent } from "../../src/core/queue.js";
import {
  failingChecks,
  holding,
  pausedLong as judgePause,
  type Pause,
  type QueueState,
  queueState,
  slowChecks,
  stalled,
} from "../../src/health/assess.js";
import { checkDurations, p90, queueNormal, timesBetweenMerges } from "../../src/health/thresholds.js";
import { at, ended, entered, left, MIN, merged, paused, resumed, started } from "./events.js";

/** A queue that merged every 10 minutes, its checks 8 minutes each, for 10 pull requests. */
function steadyHistory() {
  return Array.from({ length: 10 }, (_, i) => [
    entered(i * 10, i + 1),
    started(i * 10 + 1, i + 1, `b${i}`),
    ended(i * 10 + 9, i + 1),
    merged(i * 10 + 10, i + 1),
  ]).flat();
}

describe("the queue's normal", () => {
  it("is the p90 of the recorded gaps between merges and of the checks' durations", () => {
    expect(p90([1, 2, 3, 4, 5, 6, 7, 8, 9, 100])).toBe(9);
    expect(p90([5, 1])).toBeNull();
    const history = steadyHistory();
    expect(timesBetweenMerges(history)).toEqual(Array(9).fill(10 * MIN));
    expect(checkDurations(history)).toEqual(Array(10).fill(8 * MIN));
    const normal = queueNormal(history);
    expect(normal).toEqual({
      mergeGapP90: 10 * MIN,
      checksP90: 8 * MIN,
      // 3 × 10 min is under the least 30 minutes; 2 × 8 min is under 8 + 15 min.
      stallAfterMs: 30 * MIN,
      slowAfterMs: 23 * MIN,
    });
    expect(queueNormal(history, 45).stallAfterMs).toBe(45 * MIN);
  });

  it("takes 3 × the p90 between merges when that is over 30 minutes, and 30 minutes without merges", () => {
    const slow = [0, 20, 40, 60].map((m, i) => merged(m, i + 1));
    expect(queueNormal(slow).stallAfterMs).toBe(60 * MIN);
    expect(queueNormal([]).stallAfterMs).toBe(30 * MIN);
    expect(queueNormal([]).slowAfterMs).toBeNull();
  });
});

describe("stalled", () => {
  const history = steadyHistory();
  const normal = queueNormal(history);

  it("holds once pull requests have waited with no merge for longer than the threshold", () => {
    // The last merge at minute 100; #11 enters at 105 and its checks start at 106, never to end.
    const events = [...history, entered(105, 11), started(106, 11, "b10"), entered(107, 12)];
    const state = queueState(events);
    expect(stalled(state, normal, at(135))).toBeNull();
    const condition = stalled(state, normal, at(136));
    expect(condition).toMatchObject({
      kind: "stalled",
      key: "queue",
      since: at(105),
      facts: {
        waiting: [11, 12],
        lastMergePull: 10,
        holding: { kind: "checks", pull: 11, batch: "b10", since: at(106).toISOString() },
      },
    });
  });

  it("does not hold with nothing waiting, and names the pause that holds the head", () => {
    expect(stalled(queueState(history), normal, at(500))).toBeNull();
    const state = queueState([...history, paused(101, "release", "rita"), entered(102, 11)]);
    expect(holding(state)).toEqual({
      kind: "paused",
      since: at(101).toISOString(),
      reason: "release",
      by: "rita",
    });
  });
});

describe("slow checks", () => {
  it("holds when the head's checks run past max(2 × p90, p90 + 15 min)", () => {
    const history = steadyHistory();
    const normal = queueNormal(history);
    const state = queueState([...history, entered(105, 11), started(106, 11, "b10")]);
    expect(slowChecks(state, normal, at(106 + 23))).toBeNull();
    expect(slowChecks(state, normal, at(106 + 24))).toMatchObject({
      kind: "slow-checks",
      since: at(106),
      facts: { pulls: [11], batch: "b10", p90Ms: 8 * MIN },
    });
  });
});

describe("failing for everyone", () => {
  it("holds for a check failed in 3 batches for 3 pull requests within an hour, until it passes", () => {
    const failures = [
      entered(0, 1),
      started(1, 1, "a"),
      ended(10, 1, ["ci/test"]),
      left(10, 1, ["ci/test"]),
      entered(11, 2),
      started(12, 2, "b"),
      ended(20, 2, ["ci/test", "lint"]),
      entered(21, 3),
      started(22, 3, "c"),
      ended(40, 3, ["ci/test"]),
    ];
    const [condition, ...others] = failingChecks(failures, at(41));
    expect(others).toEqual([]);
    expect(condition).toMatchObject({
      kind: "failing-check",
      key: "",
      since: at(10),
      facts: {
        checks: [{ check: "ci/test", url: "https://ci.example/ci/test", pulls: [1, 2, 3], minutes: 30 }],
      },
    });
    // A pass ends it.
    expect(failingChecks([...failures, started(42, 4, "d"), ended(50, 4)], at(51))).toEqual([]);
  });

  it("is one condition for the repository however many checks fail for everyone, in the order they began", () => {
    const names = ["build", "lint", "e2e", "unit", "docs", "types", "deploy"];
    const outage = [1, 2, 3].flatMap((pull) => [
      started(pull * 10, pull, `batch-${pull}`),
      ended(pull * 10 + 5, pull, names),
    ]);
    const conditions = failingChecks(
      [
        ...outage,
        started(36, 4, "d"),
        ended(38, 4, ["late"]),
        started(39, 5, "e"),
        ended(40, 5, ["late"]),
        started(41, 6, "f"),
        ended(42, 6, ["late"]),
      ],
      at(45),
    );
    expect(conditions).toHaveLength(1);
    const [condition] = conditions;
    if (!condition) throw new Error("no condition");
    const checks = (condition.facts.checks as { check: string }[]).map((c) => c.check);
    expect(checks).toEqual([...[...names].sort(), "late"]);
    expect(condition.since).toEqual(at(15));
  });

  it("does not hold for one batch's pull requests, nor for failures over more than an hour", () => {
    const oneBatch = [1, 2, 3].flatMap((pull) => [started(0, pull, "a"), ended(10, pull, ["ci/test"])]);
    expect(failingChecks(oneBatch, at(11))).toEqual([]);
    const spread = [
      started(0, 1, "a"),
      ended(5, 1, ["ci/test"]),
      started(40, 2, "b"),
      ended(45, 2, ["ci/test"]),
      started(70, 3, "c"),
      ended(75, 3, ["ci/test"]),
    ];
    expect(failingChecks(spread, at(76))).toEqual([]);
  });
});

describe("paused for long", () => {
  const events = [paused(0, "release", "rita"), paused(60, "release, still", "rita", true)];
  const plain: { timed: boolean; freeze: boolean; by: string | null; reason: string | null } = {
    timed: false,
    freeze: false,
    by: null,
    reason: null,
  };
  const pausedLong = (state: QueueState, afterMs: number, now: Date, p: typeof plain) =>
    state.pause ? judgePause(state, state.pause, afterMs, now, p) : null;

  it("counts from the pause's own time, not an update's, and names who and why", () => {
    const state = queueState(events);
    expect(pausedLong(state, 4 * 60 * MIN, at(240), plain)).toBeNull();
    expect(pausedLong(state, 4 * 60 * MIN, at(241), plain)).toMatchObject({
      kind: "paused-long",
      key: at(0).toISOString(),
      since: at(0),
      facts: { by: "rita", reason: "release, still" },
    });
    // Yardmaster's own record of who paused comes first.
    expect(
      pausedLong(state, 4 * 60 * MIN, at(241), { ...plain, by: "alice", reason: "why" })?.facts,
    ).toMatchObject({
      by: "alice",
      reason: "why",
    });
  });

  it("is not said for a timed pause, a freeze window, or once resumed", () => {
    const state = queueState(events);
    expect(pausedLong(state, 60 * MIN, at(500), { ...plain, timed: true })).toBeNull();
    expect(pausedLong(state, 60 * MIN, at(500), { ...plain, freeze: true })).toBeNull();
    expect(pausedLong(queueState([...events, resumed(100)]), 60 * MIN, at(500), plain)).toBeNull();
  });

  it("keeps each branch's pause (GitHub's gate): resuming one branch leaves another's, and the repository's", () => {
    const onBranch = (e: QueueEvent, branch: string) => ({ ...e, branch });
    const branchPause = (minute: number, branch: string) =>
      onBranch({ ...paused(minute, `hold ${branch}`, "rita"), scope: "branch" } as QueueEvent, branch);
    const state = queueState([
      paused(0, "repository", "sam"),
      branchPause(10, "release/1"),
      branchPause(20, "release/2"),
      onBranch(resumed(30, "rita"), "release/2"),
    ]);
    expect([...state.pauses.keys()].sort()).toEqual(["", "release/1"]);
    const held = state.pauses.get("release/1");
    expect(held).toMatchObject({ since: at(10).getTime(), branch: "release/1", reason: "hold release/1" });
    expect(judgePause(state, held as Pause, 60 * MIN, at(100), plain)).toMatchObject({
      kind: "paused-long",
      key: `release/1 ${at(10).toISOString()}`,
      facts: { branch: "release/1", reason: "hold release/1", by: "rita" },
    });
    // A resume of the default branch (no pause of its own) ends the repository's pause; release/1 holds.
    const later = queueState([
      paused(0, "repository", "sam"),
      branchPause(10, "release/1"),
      onBranch(resumed(40, "sam"), "main"),
    ]);
    expect([...later.pauses.keys()]).toEqual(["release/1"]);
    expect(later.pause?.branch).toBe("release/1");
  });
});
