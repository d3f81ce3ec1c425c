import { describe, expect, it } from "vitest";
import type { EventQuery, LogEvent } from "../../src/backends/mergify/index.js";
import {
  fromMergifyLog,
  MERGIFY_STATS_TYPES,
  type MergifyLogClient,
  mergifyStatsEvents,
} from "../../src/backends/mergify/queue-events.js";
import {
  factsOf as factsOfEvents,
  factsWithin,
  percentile,
  periodFigures,
} from "../../src/history/figures.js";
import type { StatsDays } from "../../src/history/stats-reader.js";
import { readPeriodFigures, utcDays } from "../../src/history/stats-reader.js";
import { Repo } from "../../src/repo.js";

const repo = Repo.from("acme/widgets");
/** The facts of Mergify's log events, as the Mergify backend maps them. */
const factsOf = (events: readonly LogEvent[]) => factsOfEvents(events.map(fromMergifyLog));
/** Stats read from Mergify's log (the Mergify backend's stats events). */
const fromLog = (mergeQueue: MergifyLogClient, statsDays?: StatsDays) => ({
  statsEvents: (r: Repo, range: { from: Date; to: Date }) => mergifyStatsEvents(mergeQueue, r, range),
  ...(statsDays ? { statsDays } : {}),
});
const T = (iso: string) => `2026-11-${iso}Z`;
let nextId = 1;

function event(type: string, at: string, pull: number | null, metadata: Record<string, unknown>): LogEvent {
  return {
    id: nextId++,
    received_at: T(at),
    trigger: "test",
    repository: "acme/widgets",
    pull_request: pull,
    base_ref: pull === null ? null : "main",
    type,
    metadata,
  } as LogEvent;
}
const enter = (at: string, pull: number) =>
  event("action.queue.enter", at, pull, { queued_at: T(at), queue_name: "default", branch: "main" });
const merged = (at: string, pull: number, queuedAt: string) =>
  event("action.queue.merged", at, pull, { queued_at: T(queuedAt), queue_name: "default", branch: "main" });
const left = (
  at: string,
  pull: number,
  code: string | null,
  reason: string,
  checks: { name: string; url: string }[] = [],
) =>
  event("action.queue.leave", at, pull, {
    merged: false,
    dequeue_code: code,
    reason,
    unsuccessful_checks: checks.map((c) => ({ ...c, description: "", state: "failure", avatar_url: null })),
    queued_at: T(at),
  });
const pauseStart = (at: string) => event("queue.pause.create", at, null, { reason: "freeze" });
const pauseEnd = (at: string) => event("queue.pause.delete", at, null, {});

const unit = { name: "unit", url: "https://ci.example/unit/1" };
const lint = { name: "lint", url: "https://ci.example/lint/1" };

/**
 * A week of a repository's log, 2026-11-16 (Monday) to 2026-11-23, computed by hand below. #1 entered
 * twice: thrown out for failed checks, requeued, merged; its time in queue is its last stay's.
 */
const week: LogEvent[] = [
  enter("16T09:00:00", 1),
  left("16T09:30:00", 1, "CHECKS_FAILED", "checks failed: unit", [unit, lint]),
  enter("16T10:00:00", 1),
  merged("16T10:20:00", 1, "16T10:00:00"), // 20 min
  enter("17T08:00:00", 2),
  merged("17T09:00:00", 2, "17T08:00:00"), // 60 min
  enter("17T12:00:00", 3),
  left("17T12:10:00", 3, "CHECKS_FAILED", "checks failed: unit", [unit, unit]),
  pauseStart("18T22:00:00"),
  pauseEnd("19T02:00:00"), // 4 h, across midnight
  enter("19T10:00:00", 4),
  merged("19T10:05:00", 4, "19T10:00:00"), // 5 min
  enter("20T10:00:00", 5),
  left("20T11:00:00", 5, "PR_MANUALLY_DEQUEUED", "dequeued by alice"),
  merged("21T10:00:00", 6, "21T07:00:00"), // 3 h
  // Merged: an unrelated leave with merged: true is not a leave without merging.
  event("action.queue.leave", "21T10:00:01", 6, {
    merged: true,
    dequeue_code: "PR_MERGED",
    reason: "merged",
  }),
  pauseStart("22T23:00:00"), // still paused at the period's end: 1 h
];

const period = { from: new Date(T("16T00:00:00")), to: new Date(T("23T00:00:00")) };

describe("queue statistics", () => {
  it("computes every figure of a week by hand", () => {
    const figures = periodFigures(period, factsOf(week));
    expect(figures.merged).toBe(4);
    // Waits 5, 20, 60, 180 min: nearest rank p50 is the 2nd (20 min), p90 the 4th (180 min).
    expect(figures.waitP50).toBe(20 * 60);
    expect(figures.waitP90).toBe(180 * 60);
    expect(figures.leftWithoutMerging).toBe(3);
    expect(figures.leaves).toEqual([
      { code: "CHECKS_FAILED", count: 2, reason: "its checks failed" },
      { code: "PR_MANUALLY_DEQUEUED", count: 1, reason: "it was removed by hand" },
    ]);
    // unit failed in #1 and #3 (listed twice in #3: counted once), lint in #1.
    expect(figures.failedChecks).toEqual([
      { name: "unit", url: unit.url, count: 2 },
      { name: "lint", url: lint.url, count: 1 },
    ]);
    expect(figures.pauses).toBe(2);
    expect(figures.pausedSeconds).toBe(5 * 3600);
  });

  it("says nothing happened in an empty period", () => {
    const figures = periodFigures(period, factsOf([]));
    expect(figures).toMatchObject({
      merged: 0,
      waitP50: null,
      waitP90: null,
      leftWithoutMerging: 0,
      leaves: [],
      failedChecks: [],
      pauses: 0,
      pausedSeconds: 0,
    });
  });

  it("counts a pause that began before the period from the period's start", () => {
    const facts = factsOf([pauseEnd("16T03:00:00"), pauseStart("16T05:00:00"), pauseEnd("16T05:30:00")]);
    const figures = periodFigures(period, facts);
    expect(figures.pauses).toBe(1);
    expect(figures.pausedSeconds).toBe(3 * 3600 + 30 * 60);
  });

  it("counts the pull requests merged outside the queue, with who merged them, within the period", () => {
    const outside = (at: string, pull: number, by: string | null) => ({
      id: -pull,
      at: T(at),
      repository: "acme/widgets",
      pull,
      branch: "main",
      queue: null,
      origin: "pull_request.closed",
      kind: "merged-outside-queue" as const,
      by,
      sha: null,
      title: null,
    });
    const facts = factsOfEvents([
      outside("16T10:00:00", 31, "dana"),
      outside("20T10:00:00", 32, null),
      outside("30T10:00:00", 33, "eve"),
    ]);
    const figures = periodFigures(period, factsWithin(facts, period));
    expect(figures.mergedOutside).toEqual([
      { pull: 31, by: "dana" },
      { pull: 32, by: null },
    ]);
    // Neither a merge of the queue nor a leave.
    expect(figures).toMatchObject({ merged: 0, leftWithoutMerging: 0 });
    expect(periodFigures(period, factsOf([])).mergedOutside).toEqual([]);
  });

  it("takes the nearest-rank percentile", () => {
    expect(percentile([], 50)).toBeNull();
    expect(percentile([7], 90)).toBe(7);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90)).toBe(9);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50)).toBe(5);
    expect(percentile([1, 2, 3], 50)).toBe(2);
  });
});

describe("reading a period from the log", () => {
  /** The log as a merge-queue service would serve it: by time range and type, a page of 100 at most. */
  function service(events: LogEvent[]) {
    const queries: EventQuery[] = [];
    return {
      queries,
      async *iterateEvents(_repo: Repo, query: EventQuery) {
        queries.push(query);
        const from = Date.parse(iso(query.receivedFrom));
        const to = Date.parse(iso(query.receivedTo));
        for (const e of events) {
          const at = Date.parse(e.received_at);
          if (at >= from && at <= to && query.eventTypes?.includes(e.type)) yield e;
        }
      },
    };
  }

  function memoryDays() {
    const days = new Map<string, unknown>();
    return {
      days,
      get: async (_repo: Repo, wanted: readonly string[]) =>
        new Map(wanted.filter((d) => days.has(d)).map((d) => [d, structuredClone(days.get(d))])),
      put: async (_repo: Repo, day: string, facts: unknown) => {
        days.set(day, structuredClone(facts));
      },
    };
  }

  it("gives the same figures as the whole log, and the previous period's", async () => {
    const now = new Date(T("23T00:00:00"));
    const mergeQueue = service([...week, merged("10T12:00:00", 9, "10T11:00:00")]);
    const { current, previous } = await readPeriodFigures(fromLog(mergeQueue), repo, period, now);
    expect(current).toEqual(periodFigures(period, factsOf(week)));
    expect(previous.merged).toBe(1);
    expect(previous.waitP50).toBe(3600);
    expect(mergeQueue.queries.every((q) => q.perPage === 100)).toBe(true);
    expect(mergeQueue.queries[0]?.eventTypes).toEqual([...MERGIFY_STATS_TYPES]);
  });

  it("reads each finished day from the log once, then from the store", async () => {
    const mergeQueue = service(week);
    const statsDays = memoryDays();
    const now = new Date(T("23T10:00:00"));
    const sevenDays = { from: new Date(T("16T10:00:00")), to: now };
    const first = await readPeriodFigures(fromLog(mergeQueue, statsDays), repo, sevenDays, now);
    // 2026-11-09T10:00 to 2026-11-23T10:00: read as one range of whole days; 14 finished days kept.
    expect(mergeQueue.queries.map((q) => [iso(q.receivedFrom), iso(q.receivedTo)])).toEqual([
      ["2026-11-09T00:00:00.000Z", "2026-11-23T10:00:00.000Z"],
    ]);
    expect(statsDays.days.size).toBe(14);
    expect(statsDays.days.has("2026-11-23")).toBe(false);
    const again = await readPeriodFigures(fromLog(mergeQueue, statsDays), repo, sevenDays, now);
    expect(again).toEqual(first);
    // Only today is read again.
    expect(mergeQueue.queries.slice(1).map((q) => [iso(q.receivedFrom), iso(q.receivedTo)])).toEqual([
      ["2026-11-23T00:00:00.000Z", "2026-11-23T10:00:00.000Z"],
    ]);
    // #1's 09:30 leave is before the period (10:00); its 10:20 merge is inside.
    expect(first.current.merged).toBe(4);
    expect(first.current.leftWithoutMerging).toBe(2);
    expect(first.current.pausedSeconds).toBe(4 * 3600 + 11 * 3600);
  });

  it("lists the UTC days a range touches", () => {
    expect(utcDays({ from: new Date(T("16T10:00:00")), to: new Date(T("18T05:00:00")) })).toEqual([
      "2026-11-16",
      "2026-11-17",
      "2026-11-18",
    ]);
    expect(utcDays({ from: new Date(T("16T00:00:00")), to: new Date(T("17T00:00:00")) })).toEqual([
      "2026-11-16",
    ]);
  });
});

function iso(value: Date | string | undefined): string {
  return value instanceof Date ? value.toISOString() : String(value);
}
