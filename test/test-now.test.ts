import { describe, expect, it } from "vitest";
import { shiftSystemClock, testNow } from "./helpers/clock.js";

describe("TEST_NOW, where the tests' clocks start", () => {
  it("is an ISO 8601 instant with its zone", () => {
    expect(testNow({ TEST_NOW: "2026-12-31T23:59:00Z" }).toISOString()).toBe("2026-12-31T23:59:00.000Z");
    expect(testNow({ TEST_NOW: "2027-03-28T02:30+01:00" }).toISOString()).toBe("2027-03-28T01:30:00.000Z");
  });

  it("refuses a local time or anything else, saying what it wants", () => {
    for (const bad of ["2026-12-31T23:59:00", "2026-12-31", "tomorrow", "2026-13-01T00:00:00Z"])
      expect(() => testNow({ TEST_NOW: bad }), bad).toThrow(
        `TEST_NOW must be an ISO 8601 instant with its time zone, for example 2026-12-31T23:59:00Z; got "${bad}"`,
      );
  });

  it("is the real time, to the second, when unset", () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    const now = testNow({}).getTime();
    expect(now % 1000).toBe(0);
    expect(now).toBeGreaterThanOrEqual(before);
  });

  it.runIf(process.env.TEST_NOW)(
    "is the system clock of the unit tests when set (test/setup-clock.ts)",
    () => {
      // Time goes on from TEST_NOW at the real pace: this file runs within the hour.
      const elapsed = Date.now() - testNow().getTime();
      expect(elapsed).toBeGreaterThanOrEqual(0);
      expect(elapsed).toBeLessThan(3_600_000);
    },
  );

  it("shifts Date and Date.now, which go on from there, and undoes it", () => {
    const before = Date;
    // A minute before the year ends: the assertions hold however slow the machine is within that minute.
    const undo = shiftSystemClock(new Date("2026-12-31T23:59:00Z"));
    try {
      const start = Date.now();
      expect(new Date().toISOString().slice(0, 16)).toBe("2026-12-31T23:59");
      expect(start - Date.parse("2026-12-31T23:59:00Z")).toBeLessThan(60_000);
      expect(new Date(0).toISOString()).toBe("1970-01-01T00:00:00.000Z");
      expect(new Date(2027, 0, 1).getFullYear()).toBe(2027);
      // Dates from the clock before the shift are dates still.
      expect(new before(5) instanceof Date).toBe(true);
    } finally {
      undo();
    }
    expect(Date).toBe(before);
  });
});
