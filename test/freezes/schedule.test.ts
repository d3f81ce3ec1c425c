import { describe, expect, it } from "vitest";
import { CommandError } from "../../src/commands/errors.js";
import { parseFreeze } from "../../src/freezes/parse.js";
import { describeSchedule, windowAt } from "../../src/freezes/schedule.js";

const iso = (w: { start: Date; end: Date } | null) =>
  w ? { start: w.start.toISOString(), end: w.end.toISOString() } : null;

describe("parseFreeze", () => {
  it("reads a weekly window with its zone, a daily one without, and a one-off", () => {
    expect(parseFreeze("freeze", "weekend freeze every fri 18:00 - mon 08:00 Europe/Paris")).toEqual({
      name: "weekend freeze",
      schedule: {
        kind: "weekly",
        start: { day: 5, hour: 18, minute: 0 },
        end: { day: 1, hour: 8, minute: 0 },
      },
      zone: "Europe/Paris",
      except: [],
    });
    expect(parseFreeze("freeze", "nightly every day 22:00 - 06:00")).toEqual({
      name: "nightly",
      schedule: { kind: "daily", start: { hour: 22, minute: 0 }, end: { hour: 6, minute: 0 } },
      zone: null,
      except: [],
    });
    expect(parseFreeze("freeze", "holidays from 2026-12-24 00:00 to 2027-01-02 00:00 europe/paris")).toEqual({
      name: "holidays",
      schedule: {
        kind: "once",
        start: { year: 2026, month: 12, day: 24, hour: 0, minute: 0 },
        end: { year: 2027, month: 1, day: 2, hour: 0, minute: 0 },
      },
      zone: "Europe/Paris",
      except: [],
    });
  });

  it("reads the labels a window lets through, after its zone (or after the window without one)", () => {
    expect(
      parseFreeze("freeze", "weekend every fri 18:00 - mon 08:00 UTC except label:Hotfix label:release"),
    ).toMatchObject({ name: "weekend", zone: "UTC", except: ["hotfix", "release"] });
    expect(parseFreeze("freeze", "nightly every day 22:00 - 06:00 except label:hotfix")).toMatchObject({
      name: "nightly",
      zone: null,
      except: ["hotfix"],
    });
    expect(() => parseFreeze("freeze", "nightly every day 22:00 - 06:00 except label:hotfix UTC")).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ argument: "exemptions" }) }),
    );
  });

  it.each([
    ["weekend every fry 18:00 - mon 08:00", '"fry" is not a day'],
    ["weekend every fri 25:00 - mon 08:00", '"25:00" is not a time'],
    ["nightly every day 22:00 - 22:00", "the window ends when it starts"],
    ["holidays from 2027-01-02 00:00 to 2026-12-24 00:00", "the window ends before it starts"],
    ["holidays from 2026-02-30 00:00 to 2026-03-02 00:00", '"2026-02-30" is not a date'],
    ["weekend every fri 18:00 - mon 08:00 Mars/Olympus", '"Mars/Olympus" is not a time zone'],
    ["weekend fri 18:00 - mon 08:00", 'must start with "every" or "from"'],
    ["every fri 18:00 - mon 08:00", "needs a name"],
    ["blink every day 10:00 - 10:01", "lasts at least 15 minutes (this one lasts 1 minute)"],
    ["blink every day 23:55 - 00:05", "lasts at least 15 minutes (this one lasts 10 minutes)"],
    ["blink every sat 10:00 - sat 10:14", "lasts at least 15 minutes (this one lasts 14 minutes)"],
    ["blink from 2026-12-31 23:50 to 2027-01-01 00:00", "lasts at least 15 minutes (this one lasts 10"],
    ["season from 2026-12-01 00:00 to 2027-01-01 00:01", "lasts at most 31 days (this one lasts 32 days)"],
  ])("refuses %s with a clear reason", (text, reason) => {
    let error: unknown;
    try {
      parseFreeze("freeze", text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CommandError);
    expect((error as CommandError).details.detail).toContain(reason);
  });

  it("takes windows at the limits: 15 minutes, a one-off of 31 days, a week", () => {
    for (const text of [
      "q every day 23:50 - 00:05",
      "q every sat 10:00 - sat 10:15",
      "m from 2026-12-01 00:00 to 2027-01-01 00:00",
      "w every sat 10:00 - sat 09:59",
    ])
      expect(() => parseFreeze("freeze", text), text).not.toThrow();
  });

  it("shows a window as it is typed", () => {
    const { schedule } = parseFreeze("freeze", "w every Friday 18:00 to Monday 8:00");
    expect(describeSchedule(schedule, "Europe/Paris")).toBe("every fri 18:00 - mon 08:00 Europe/Paris");
  });
});

describe("windowAt", () => {
  const weekend = parseFreeze("freeze", "weekend every fri 18:00 - mon 08:00").schedule;

  it("finds the next window, and the one in progress", () => {
    // Wednesday 2026-11-25 in Paris (UTC+1).
    expect(iso(windowAt(weekend, "Europe/Paris", new Date("2026-11-25T12:00:00Z")))).toEqual({
      start: "2026-11-27T17:00:00.000Z",
      end: "2026-11-30T07:00:00.000Z",
    });
    // Sunday: in progress since Friday.
    expect(iso(windowAt(weekend, "Europe/Paris", new Date("2026-11-29T12:00:00Z")))).toEqual({
      start: "2026-11-27T17:00:00.000Z",
      end: "2026-11-30T07:00:00.000Z",
    });
    // Its end: the next one.
    expect(windowAt(weekend, "Europe/Paris", new Date("2026-11-30T07:00:00Z"))?.start.toISOString()).toBe(
      "2026-12-04T17:00:00.000Z",
    );
  });

  it("keeps 18:00 in Paris across daylight-saving changes, the window that spans one included", () => {
    // The clocks go back on Sunday 2026-10-25: the weekend before starts at 16:00 UTC and ends at 07:00 UTC.
    expect(iso(windowAt(weekend, "Europe/Paris", new Date("2026-10-21T12:00:00Z")))).toEqual({
      start: "2026-10-23T16:00:00.000Z",
      end: "2026-10-26T07:00:00.000Z",
    });
    // They go forward on Sunday 2027-03-28: starts at 17:00 UTC (winter), ends at 06:00 UTC (summer).
    expect(iso(windowAt(weekend, "Europe/Paris", new Date("2027-03-24T12:00:00Z")))).toEqual({
      start: "2027-03-26T17:00:00.000Z",
      end: "2027-03-29T06:00:00.000Z",
    });
  });

  it("runs a daily window over midnight, and a time the clocks skip at the jump", () => {
    const nightly = parseFreeze("freeze", "nightly every day 22:00 - 06:00").schedule;
    expect(iso(windowAt(nightly, "UTC", new Date("2026-11-25T03:00:00Z")))).toEqual({
      start: "2026-11-24T22:00:00.000Z",
      end: "2026-11-25T06:00:00.000Z",
    });
    expect(windowAt(nightly, "UTC", new Date("2026-11-25T07:00:00Z"))?.start.toISOString()).toBe(
      "2026-11-25T22:00:00.000Z",
    );
    // 02:30 does not exist in Paris on 2027-03-28: that night's window starts at 03:00 (01:00 UTC).
    const early = parseFreeze("freeze", "early every day 02:30 - 04:00").schedule;
    expect(windowAt(early, "Europe/Paris", new Date("2027-03-27T12:00:00Z"))?.start.toISOString()).toBe(
      "2027-03-28T01:00:00.000Z",
    );
  });

  it("has no window once a one-off has ended", () => {
    const holidays = parseFreeze("freeze", "h from 2026-12-24 00:00 to 2027-01-02 00:00").schedule;
    expect(iso(windowAt(holidays, "Europe/Paris", new Date("2026-12-30T00:00:00Z")))).toEqual({
      start: "2026-12-23T23:00:00.000Z",
      end: "2027-01-01T23:00:00.000Z",
    });
    expect(windowAt(holidays, "Europe/Paris", new Date("2027-01-01T23:00:00Z"))).toBeNull();
  });
});
