import type { QueueCheck, QueueEvent } from "../core/queue.js";
import { HOUR_MS, mergeTimes, type QueueNormal } from "./thresholds.js";

/** The alerts (docs/notifications.md, "The queue's health"). */
export type HealthKind = "stalled" | "slow-checks" | "failing-check" | "paused-long";

/** An alert's condition as it holds now: what its notice says. */
export interface Condition {
  kind: HealthKind;
  key: string;
  since: Date;
  facts: Record<string, unknown>;
}

/** What holds the head of the queue. */
export type Holding =
  | { kind: "checks"; pull: number; since: string; batch: string | null }
  | { kind: "paused"; since: string; reason: string; by: string | null }
  | { kind: "not-started"; pull: number; reason: string | null }
  | { kind: "waiting"; pull: number };

/** The queue as its history tells it. */
export interface QueueState {
  /** The pull requests in the queue and when they entered, ms. */
  waiting: Map<number, number>;
  lastMerge: { at: number; pull: number | null } | null;
  /** Running checks by pull request. */
  running: Map<number, { since: number; batch: string | null }>;
  notStarted: Map<number, string | null>;
  /** The pause holding the head: the repository's, else the oldest branch's. */
  pause: Pause | null;
  /**
   * Every pause that holds, by what it holds: "" for the repository (a pause without scope, Mergify's or
   * the default branch's), else the branch a `scope: "branch"` pause holds alone (GitHub's gate).
   */
  pauses: Map<string, Pause>;
}

/** A pause as the history tells it; `branch` when it holds that branch alone. */
export interface Pause {
  since: number;
  reason: string;
  by: string | null;
  branch: string | null;
}

/** A pause or resume: the pause it starts, renews or ends (a resume of a branch not paused alone: the repository's). */
function applyPause(pauses: Map<string, Pause>, e: QueueEvent, at: number): void {
  if (e.kind === "paused") {
    const branch = e.scope === "branch" && e.branch ? e.branch : null;
    const held = pauses.get(branch ?? "");
    pauses.set(branch ?? "", {
      since: held?.since ?? at,
      reason: e.reason,
      by: e.by ?? held?.by ?? null,
      branch,
    });
  } else if (e.kind === "resumed") {
    if (e.branch && pauses.has(e.branch)) pauses.delete(e.branch);
    else pauses.delete("");
  }
}

/** The queue's state at the end of its history (oldest first). */
export function queueState(events: readonly QueueEvent[]): QueueState {
  const state: QueueState = {
    waiting: new Map(),
    lastMerge: mergeTimes(events).at(-1) ?? null,
    running: new Map(),
    notStarted: new Map(),
    pause: null,
    pauses: new Map(),
  };
  for (const e of events) {
    const at = Date.parse(e.at);
    applyPause(state.pauses, e, at);
    if (e.kind === "paused" || e.pull === null) continue;
    if (e.kind === "entered") {
      if (!state.waiting.has(e.pull)) state.waiting.set(e.pull, at);
    } else if (e.kind === "left" || e.kind === "merged") {
      state.waiting.delete(e.pull);
      state.running.delete(e.pull);
      state.notStarted.delete(e.pull);
    } else if (e.kind === "checks-started") {
      state.running.set(e.pull, { since: at, batch: e.batch });
      state.notStarted.delete(e.pull);
    } else if (e.kind === "checks-ended") state.running.delete(e.pull);
    else if (e.kind === "checks-not-started") state.notStarted.set(e.pull, e.reason);
  }
  for (const pull of state.running.keys()) if (!state.waiting.has(pull)) state.running.delete(pull);
  state.pause =
    state.pauses.get("") ?? [...state.pauses.values()].sort((a, b) => a.since - b.since)[0] ?? null;
  return state;
}

/** What holds the head: its running checks, the pause, its checks not started, or nothing said. */
export function holding(state: QueueState): Holding | null {
  if (state.pause)
    return {
      kind: "paused",
      since: new Date(state.pause.since).toISOString(),
      reason: state.pause.reason,
      by: state.pause.by,
    };
  const [pull, run] = [...state.running].sort((a, b) => a[1].since - b[1].since)[0] ?? [];
  if (pull !== undefined && run)
    return { kind: "checks", pull, since: new Date(run.since).toISOString(), batch: run.batch };
  const head = [...state.waiting].sort((a, b) => a[1] - b[1])[0]?.[0];
  if (head === undefined) return null;
  if (state.notStarted.has(head))
    return { kind: "not-started", pull: head, reason: state.notStarted.get(head) ?? null };
  return { kind: "waiting", pull: head };
}

/** Stalled: pull requests wait and nothing merged for longer than the normal. */
export function stalled(state: QueueState, normal: QueueNormal, now: Date): Condition | null {
  if (state.waiting.size === 0) return null;
  const oldest = Math.min(...state.waiting.values());
  const since = Math.max(oldest, state.lastMerge?.at ?? 0);
  if (now.getTime() - since <= normal.stallAfterMs) return null;
  return {
    kind: "stalled",
    key: "queue",
    since: new Date(since),
    facts: {
      waiting: [...state.waiting.keys()].sort((a, b) => a - b),
      lastMergeAt: state.lastMerge ? new Date(state.lastMerge.at).toISOString() : null,
      lastMergePull: state.lastMerge?.pull ?? null,
      holding: holding(state),
      thresholdMs: normal.stallAfterMs,
      thresholdSet: normal.stallSet === true,
    },
  };
}

/** Slow checks: the head's checks have run far longer than their p90. */
export function slowChecks(state: QueueState, normal: QueueNormal, now: Date): Condition | null {
  if (normal.slowAfterMs === null || normal.checksP90 === null) return null;
  const runs = [...state.running].sort((a, b) => a[1].since - b[1].since);
  const [, head] = runs[0] ?? [];
  if (!head || now.getTime() - head.since <= normal.slowAfterMs) return null;
  const pulls = runs.filter(([, r]) => r.since === head.since && r.batch === head.batch).map(([p]) => p);
  return {
    kind: "slow-checks",
    key: `${head.batch ?? `#${pulls[0]}`}@${new Date(head.since).toISOString()}`,
    since: new Date(head.since),
    facts: { pulls, batch: head.batch, p90Ms: normal.checksP90, thresholdMs: normal.slowAfterMs },
  };
}

/** One failure of a check: which pull request, in which run of checks. */
export interface CheckFailure {
  check: QueueCheck;
  pull: number;
  run: string;
  at: number;
}

/** Every failure of a named check in the history (one per check and run). */
function checkFailures(events: readonly QueueEvent[]): CheckFailure[] {
  // Each pull request's latest run of checks: its batch (or merge group) and when it started.
  const runOf = new Map<number, string>();
  const failures = new Map<string, CheckFailure>();
  for (const e of events) {
    if (e.pull === null) continue;
    const at = Date.parse(e.at);
    if (e.kind === "checks-started") runOf.set(e.pull, `${e.batch ?? `#${e.pull}`}@${at}`);
    const failed =
      e.kind === "checks-ended" && !e.aborted ? e.failedChecks : e.kind === "left" ? e.failedChecks : [];
    for (const check of failed) {
      const run = runOf.get(e.pull) ?? `#${e.pull}@${at}`;
      const key = `${check.name}\n${run}\n${e.pull}`;
      if (!failures.has(key)) failures.set(key, { check, pull: e.pull, run, at });
    }
  }
  return [...failures.values()].sort((a, b) => a.at - b.at);
}

/** The first pass after `after`: a run of checks that succeeded, or a merge; null when none yet. */
export function passAfter(
  events: readonly QueueEvent[],
  after: number,
): { at: number; pull: number | null } | null {
  for (const e of events) {
    const at = Date.parse(e.at);
    if (at <= after) continue;
    if ((e.kind === "checks-ended" && e.conclusion === "success") || e.kind === "merged")
      return { at, pull: e.pull };
  }
  return null;
}

/** The fewest runs, and pull requests, a check fails in within an hour to be failing for everyone. */
const FAILING_FOR_EVERYONE = 3;

/** One check failing for everyone, as the alert names it. */
export interface FailingCheck {
  check: string;
  url: string | null | undefined;
  pulls: number[];
  lastFailureAt: string;
  minutes: number;
}

/**
 * Failing for everyone: a check failed in at least 3 runs (batches, merge groups) for 3 pull requests
 * within an hour, and has not passed since. One condition per repository, naming every such check in
 * the order they began failing (a CI outage failing 40 jobs is one alert, not 40).
 */
export function failingChecks(events: readonly QueueEvent[], now: Date): Condition[] {
  const checks = failingEach(events, now);
  const first = checks[0];
  if (!first) return [];
  return [
    {
      kind: "failing-check",
      key: "",
      since: new Date(Math.min(...checks.map((c) => c.since))),
      facts: { checks: checks.map((c) => c.facts) },
    },
  ];
}

/** The checks a failing-check alert names: `facts.checks`, or the one check of an alert an older version opened. */
export function failingChecksOf(facts: Record<string, unknown>): FailingCheck[] {
  if (Array.isArray(facts.checks)) return facts.checks as FailingCheck[];
  return typeof facts.check === "string" ? [facts as unknown as FailingCheck] : [];
}

/** Each check failing for everyone, and when its recent failures began. */
function failingEach(events: readonly QueueEvent[], now: Date): { since: number; facts: FailingCheck }[] {
  const byCheck = new Map<string, CheckFailure[]>();
  for (const f of checkFailures(events)) byCheck.set(f.check.name, [...(byCheck.get(f.check.name) ?? []), f]);
  const found: { since: number; facts: FailingCheck }[] = [];
  for (const [name, failures] of byCheck) {
    const last = failures.at(-1);
    if (!last || passAfter(events, last.at) || now.getTime() - last.at > HOUR_MS) continue;
    const recent = failures.filter((f) => f.at > now.getTime() - HOUR_MS);
    const runs = new Set(recent.map((f) => f.run));
    const pulls = [...new Set(recent.map((f) => f.pull))];
    if (runs.size < FAILING_FOR_EVERYONE || pulls.length < FAILING_FOR_EVERYONE) continue;
    const first = recent[0] ?? last;
    found.push({
      since: first.at,
      facts: {
        check: name,
        url: last.check.url,
        pulls,
        lastFailureAt: new Date(last.at).toISOString(),
        minutes: Math.max(1, Math.round((last.at - first.at) / 60_000)),
      },
    });
  }
  return found.sort((a, b) => a.since - b.since || a.facts.check.localeCompare(b.facts.check));
}

/**
 * Paused for long: a pause (the repository's, or a branch's), neither timed nor a freeze's, older than
 * `afterMs`. A branch's pause is keyed by its branch and start, and names its branch (its Unpause resumes
 * that branch alone).
 */
export function pausedLong(
  state: QueueState,
  held: Pause,
  afterMs: number,
  now: Date,
  pause: { timed: boolean; freeze: boolean; by: string | null; reason: string | null },
): Condition | null {
  if (pause.timed || pause.freeze) return null;
  if (now.getTime() - held.since <= afterMs) return null;
  const start = new Date(held.since).toISOString();
  return {
    kind: "paused-long",
    key: held.branch === null ? start : `${held.branch} ${start}`,
    since: new Date(held.since),
    facts: {
      by: pause.by ?? held.by,
      reason: pause.reason ?? held.reason,
      waiting: state.waiting.size,
      ...(held.branch === null ? {} : { branch: held.branch }),
    },
  };
}
