import { describe, expect, it } from "vitest";
import type { LogEvent } from "../../src/backends/mergify/index.js";
import {
  fromMergifyLog,
  mergifyEventTypes,
  mergifyGroupOf,
} from "../../src/backends/mergify/queue-events.js";
import type { QueueEvent } from "../../src/core/queue.js";
import type { Subscription } from "../../src/core/records.js";
import { matchesGlob } from "../../src/notifier/glob.js";
import { advance, OVERLAP_MS } from "../../src/notifier/poller.js";
import { route } from "../../src/notifier/routing.js";
import { Repo } from "../../src/repo.js";

const T0 = new Date("2026-01-01T10:00:00Z");
function sub(
  channelId: string,
  groups: string[],
  branchGlob: string | null = null,
  createdAt = T0,
): Subscription {
  return {
    channelId,
    teamId: "T1",
    repository: Repo.of("acme", "widgets"),
    branchGlob,
    groups,
    createdBy: "alice",
    createdAt,
  };
}
function event(type: string, over: Partial<LogEvent> = {}): QueueEvent {
  return fromMergifyLog({
    id: 1,
    received_at: "2026-01-01T10:05:00Z",
    trigger: "merge queue",
    repository: "acme/widgets",
    pull_request: 42,
    base_ref: "main",
    type,
    metadata: {},
    ...over,
  } as LogEvent);
}

describe("branch globs", () => {
  it("matches within and across segments", () => {
    expect(matchesGlob("main", "main")).toBe(true);
    expect(matchesGlob("release/*", "release/1.x")).toBe(true);
    expect(matchesGlob("release/*", "release/1.x/hotfix")).toBe(false);
    expect(matchesGlob("release/**", "release/1.x/hotfix")).toBe(true);
    expect(matchesGlob("v?.x", "v2.x")).toBe(true);
    expect(matchesGlob("a.b", "axb")).toBe(false);
    expect(matchesGlob("release/**", "release")).toBe(false);
  });

  it("takes only *, ** and ? as special: braces, brackets and parentheses are literal", () => {
    expect(matchesGlob("(x)+", "(x)+")).toBe(true);
    expect(matchesGlob("(x)+", "x")).toBe(false);
    expect(matchesGlob("{a,b}", "a")).toBe(false);
    expect(matchesGlob("!main", "dev")).toBe(false);
    expect(matchesGlob("+(a)", "a")).toBe(false);
  });
});

describe("routing", () => {
  it("maps event types to groups, including the real checks.change name", () => {
    expect(mergifyGroupOf("action.queue.enter")).toBe("queue");
    expect(mergifyGroupOf("action.queue.checks.change")).toBe("checks");
    expect(mergifyGroupOf("action.queue.checks_change")).toBe("checks");
    expect(mergifyGroupOf("action.queue.batch_bisection_end")).toBe("bisection");
    expect(mergifyGroupOf("queue.pause.delete")).toBe("pause");
    expect(mergifyGroupOf("action.label")).toBeUndefined();
  });

  it("asks the log only for the types some subscription wants", () => {
    expect(mergifyEventTypes(["pause"])).toEqual([
      "queue.pause.create",
      "queue.pause.delete",
      "queue.pause.update",
    ]);
    expect(mergifyEventTypes(["queue", "queue", "bisection"])).toHaveLength(6);
  });

  it("sends each event to the channels whose filters match, once each", () => {
    const subs = [
      sub("C1", ["queue", "pause"]),
      sub("C2", ["pause"]),
      sub("C3", ["queue"], "release/*"),
      sub("C4", ["queue"], null, new Date("2026-01-01T11:00:00Z")),
    ];
    expect(route(event("action.queue.enter"), subs)).toEqual(["C1"]);
    expect(route(event("action.queue.enter", { base_ref: "release/1.x" }), subs)).toEqual(["C1", "C3"]);
    expect(route(event("queue.pause.create", { pull_request: null, base_ref: null }), subs)).toEqual([
      "C1",
      "C2",
    ]);
    expect(route(event("action.queue.checks_start"), subs)).toEqual([]);
  });

  it("reads the branch from metadata when base_ref is missing", () => {
    expect(event("action.queue.merged", { base_ref: null, metadata: { branch: "main" } }).branch).toBe(
      "main",
    );
    expect(
      route(event("action.queue.enter", { base_ref: null, metadata: { branch: "release/2" } }), [
        sub("C", ["queue"], "release/*"),
      ]),
    ).toEqual(["C"]);
  });
});

describe("the poll cursor", () => {
  const cursor = {
    repository: Repo.of("acme", "widgets"),
    receivedFrom: T0,
    seenEventIds: [],
    updatedAt: T0,
  };

  it("stays LATE_MS before the newest event: one the log shows late, with an earlier time, is still taken, none twice", () => {
    const now = new Date("2026-01-01T10:06:00Z");
    const events = [
      event("a", { id: 1, received_at: "2026-01-01T10:04:00Z" }),
      event("b", { id: 2, received_at: "2026-01-01T10:05:00Z" }),
      event("c", { id: 3, received_at: "2026-01-01T10:05:00Z" }),
    ];
    const next = advance(cursor, events, now);
    expect(next.receivedFrom.toISOString()).toBe("2026-01-01T10:04:00.000Z");
    expect(next.seenEventIds).toEqual([3, 2, 1]);
    // A later read finds an event made visible late, 30 s before the newest: it is taken, and kept.
    const late = advance(next, [event("d", { id: 4, received_at: "2026-01-01T10:04:30Z" })], now);
    expect(late.receivedFrom).toEqual(next.receivedFrom);
    expect(late.seenEventIds).toEqual([4, 3, 2, 1]);
  });

  it("never moves back, and follows the clock when idle", () => {
    const now = new Date("2026-01-01T12:00:00Z");
    expect(advance(cursor, [], now).receivedFrom.getTime()).toBe(now.getTime() - OVERLAP_MS);
    const later = { ...cursor, receivedFrom: new Date("2026-01-01T13:00:00Z") };
    expect(advance(later, [], now).receivedFrom).toEqual(later.receivedFrom);
  });
});
