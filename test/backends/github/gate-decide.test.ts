import { describe, expect, it } from "vitest";
import {
  decideGate,
  exempt,
  type GateEntry,
  groupOf,
  queuedBefore,
} from "../../../src/backends/github/gate/decide.js";
import { Repo } from "../../../src/repo.js";
import type { GateDrain, GatePass, GatePauseRecord } from "../../../src/store/gates.js";

/** The gate's decision for a merge group of a held branch (decide.ts), without I/O. */
const GATE = "yardmaster/gate";
const T0 = new Date("2026-11-20T10:00:00Z");
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000).toISOString();
const entry = (number: number, minutes: number, labels: string[] = []): GateEntry => ({
  number,
  enteredAt: at(minutes),
  labels,
});

const pause = (over: Partial<GatePauseRecord> = {}): GatePauseRecord => ({
  repository: Repo.of("acme", "ships"),
  branch: "main",
  pauseId: "p1",
  reason: "deploy <now>",
  by: "alice",
  pausedAt: T0,
  drain: null,
  drainedAt: null,
  except: [],
  ...over,
});
const drain = (entries: GateEntry[]): GateDrain => ({
  id: "d1",
  by: "bob",
  startedAt: new Date(at(10)),
  entries: entries.map(({ number, enteredAt }) => ({ number, enteredAt })),
});
const pass = (pulls: number[]): GatePass => ({
  repository: Repo.of("acme", "ships"),
  branch: "main",
  pauseId: "p1",
  pullNumber: pulls.at(-1) ?? 0,
  passId: "x",
  pulls,
  by: "carol",
  at: T0,
});

describe("a merge group's pull requests", () => {
  it("are its own and every one ahead of it; none when it is not queued", () => {
    const queue = [entry(10, 1), entry(11, 2), entry(12, 3)];
    expect(groupOf(queue, 11)?.map((e) => e.number)).toEqual([10, 11]);
    expect(groupOf(queue, 10)?.map((e) => e.number)).toEqual([10]);
    expect(groupOf(queue, 99)).toBeNull();
  });

  it("were queued before a drain when it listed them, at the time they entered then", () => {
    const d = drain([entry(10, 1), entry(11, 2)]);
    expect(queuedBefore(d, entry(10, 1))).toBe(true);
    // Removed and queued again after the drain began: a later entry.
    expect(queuedBefore(d, entry(11, 12))).toBe(false);
    expect(queuedBefore(d, entry(12, 3))).toBe(false);
    expect(queuedBefore(d, { number: 11, enteredAt: null, labels: [] })).toBe(true);
  });

  it("carry an exempt label whatever its case", () => {
    expect(exempt(["hotfix"], entry(1, 1, ["HotFix"]))).toBe(true);
    expect(exempt(["hotfix"], entry(1, 1, ["hotfix-later"]))).toBe(false);
    expect(exempt([], entry(1, 1, ["hotfix"]))).toBe(false);
  });
});

describe("the gate of a held branch's merge group", () => {
  it("is held by a pause, saying who paused and why", () => {
    const decided = decideGate(GATE, pause(), [entry(10, 1)], null);
    expect(decided.pass).toBe(false);
    expect(decided.run).toMatchObject({ status: "queued", title: "Paused by alice: deploy <now>" });
    expect(decided.run.summary).toContain("Reason: deploy &lt;now&gt;");
  });

  it("passes, during a drain, a group of entries queued before it, and holds one with a later entry", () => {
    const earlier = [entry(10, 1), entry(11, 2)];
    const draining = pause({ drain: drain(earlier) });
    expect(decideGate(GATE, draining, earlier, null)).toMatchObject({
      pass: true,
      run: { status: "completed", title: "Queued before the drain" },
    });
    const held = decideGate(GATE, draining, [...earlier, entry(12, 11)], null);
    expect(held.pass).toBe(false);
    expect(held.run.title).toBe("Draining by bob: deploy <now>");
    expect(held.run.summary).toContain("This merge group holds #12, queued since, so it waits.");
    expect(held.run.summary).toContain("Reason: deploy &lt;now&gt;");
    const drained = decideGate(GATE, { ...draining, drainedAt: new Date(at(20)) }, [entry(12, 11)], null);
    expect(drained.run.title).toBe("Drained by bob: deploy <now>");
    expect(drained.run.summary).toContain("held until it is unpaused");
  });

  it("passes, during a pause with exemptions, a group whose every pull request is labelled, and holds the rest", () => {
    const exempting = pause({ except: ["hotfix", "release"] });
    expect(
      decideGate(GATE, exempting, [entry(10, 1, ["hotfix"]), entry(11, 2, ["Release"])], null),
    ).toMatchObject({ pass: true, run: { title: "Exempt from the pause: labelled hotfix or release" } });
    const held = decideGate(GATE, exempting, [entry(10, 1), entry(11, 2, ["hotfix"])], null);
    expect(held.pass).toBe(false);
    expect(held.run.title).toBe("Paused by alice: deploy <now>");
    expect(held.run.summary).toContain(
      "Pull requests labelled `hotfix` or `release` pass: this merge group holds #10, without one.",
    );
  });

  it("passes a group holding what an admin let through, and no other", () => {
    expect(decideGate(GATE, pause(), [entry(12, 1)], pass([12]))).toMatchObject({
      pass: true,
      run: { title: "Let through by carol" },
    });
    expect(decideGate(GATE, pause(), [entry(10, 1), entry(12, 2)], pass([10, 12])).pass).toBe(true);
    // Something else got ahead of it since: held again.
    expect(decideGate(GATE, pause(), [entry(9, 0), entry(12, 2)], pass([12])).pass).toBe(false);
  });

  it("keeps a title that people typed on one line, within 200 characters", () => {
    const decided = decideGate(GATE, pause({ reason: `two\nlines ${"x".repeat(300)}` }), [entry(1, 1)], null);
    expect(decided.run.title).not.toContain("\n");
    expect(decided.run.title.length).toBe(200);
  });
});
