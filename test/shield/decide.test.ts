import { describe, expect, it } from "vitest";
import type { QueueEvent } from "../../src/core/queue.js";
import {
  endsShieldEntry,
  entriesUpTo,
  entryKeyOf,
  failingForEveryone,
  queuerOf,
  type Removal,
} from "../../src/shield/decide.js";

// What the flake shield decides from a removal and the history, without I/O (src/shield/decide.ts).

const T0 = Date.parse("2026-03-02T10:00:00Z");
const iso = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
const base = { repository: "acme/widgets", branch: "main", queue: "default", origin: "test" };

function removal(id: number, minutes: number, alsoFailed?: { check: string; pulls: number[] }[]): Removal {
  return {
    ...base,
    id,
    at: iso(minutes),
    pull: 23,
    kind: "left",
    merged: false,
    reason: "its checks failed",
    code: "CHECKS_FAILED",
    failedChecks: [
      { name: "ci/test", url: `https://ci.example/${id}`, state: "failure" },
      { name: "lint", url: null, state: "failure" },
    ],
    ...(alsoFailed ? { notes: { alsoFailed } } : {}),
  };
}
const entered = (id: number, minutes: number, queuedBy: string | null = "carol"): QueueEvent => ({
  ...base,
  id,
  at: iso(minutes),
  pull: 23,
  kind: "entered",
  queuedBy,
});

describe("failingForEveryone", () => {
  it("names a failed check that also failed for at least two others within the hour", () => {
    expect(failingForEveryone(removal(10, 0, [{ check: "ci/test", pulls: [21, 22] }]))).toEqual({
      check: "ci/test",
      pulls: [21, 22],
    });
    expect(
      failingForEveryone(
        removal(10, 0, [
          { check: "lint", pulls: [21] },
          { check: "ci/test", pulls: [19, 21, 22] },
        ]),
      ),
    ).toEqual({ check: "ci/test", pulls: [19, 21, 22] });
  });

  it("is null for a check that failed for it alone or for one other, and for anything but a removal", () => {
    expect(failingForEveryone(removal(10, 0))).toBeNull();
    expect(failingForEveryone(removal(10, 0, [{ check: "ci/test", pulls: [21] }]))).toBeNull();
    expect(
      failingForEveryone({ ...removal(10, 0, [{ check: "ci/test", pulls: [21, 22] }]), merged: true }),
    ).toBeNull();
    expect(
      failingForEveryone({ ...removal(10, 0, [{ check: "ci/test", pulls: [21, 22] }]), pull: null }),
    ).toBeNull();
    expect(failingForEveryone(entered(1, 0))).toBeNull();
    // A note about a check the removal does not name says nothing of it.
    expect(failingForEveryone(removal(10, 0, [{ check: "deploy", pulls: [21, 22] }]))).toBeNull();
  });
});

describe("the entry a removal ends", () => {
  it("is its latest entry at or before it, with who queued it; the removal itself without one", () => {
    const history = [entered(1, -30, "carol"), entered(2, -10, "dave[bot]"), entered(3, 5, "erin")];
    const entries = entriesUpTo(removal(10, 0), history);
    expect(entryKeyOf(removal(10, 0), entries)).toBe("2");
    expect(queuerOf(entries)).toBe("dave[bot]");
    expect(entryKeyOf(removal(10, 0), [])).toBe("left:10");
    expect(queuerOf([])).toBeNull();
  });
});

describe("endsShieldEntry: one retry per entry", () => {
  const requeued = { outcome: "requeued", leftEventId: 10, leftAt: new Date(iso(0)) };

  it("is false while the shield never queued it again, or its try failed", () => {
    expect(endsShieldEntry(removal(10, 0), [], entriesUpTo(removal(10, 0), [entered(1, -30)]))).toBe(false);
    expect(
      endsShieldEntry(
        removal(20, 20),
        [{ ...requeued, outcome: "failed" }],
        entriesUpTo(removal(20, 20), [entered(1, -30)]),
      ),
    ).toBe(false);
  });

  it("is true for the removal of the entry the shield made, seen or not in the history", () => {
    expect(
      endsShieldEntry(
        removal(20, 20),
        [requeued],
        entriesUpTo(removal(20, 20), [entered(1, -30), entered(2, 1)]),
      ),
    ).toBe(true);
    expect(
      endsShieldEntry(removal(20, 20), [requeued], entriesUpTo(removal(20, 20), [entered(1, -30)])),
    ).toBe(true);
  });

  it("is false for the removal the shield acted on itself (seen again)", () => {
    expect(endsShieldEntry(removal(10, 0), [requeued], entriesUpTo(removal(10, 0), [entered(1, -30)]))).toBe(
      false,
    );
  });

  it("is false once a person queued it again after the shield's entry: a new entry", () => {
    expect(
      endsShieldEntry(
        removal(30, 40),
        [requeued],
        entriesUpTo(removal(30, 40), [entered(1, -30), entered(2, 1), entered(3, 30)]),
      ),
    ).toBe(false);
  });
});
