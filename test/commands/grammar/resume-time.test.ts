import { describe, expect, it } from "vitest";
import { CommandError } from "../../../src/commands/errors.js";
import { resumeInstant, splitResume } from "../../../src/commands/grammar/resume-time.js";
import { canonicalZone } from "../../../src/time-zone.js";

const NOW = new Date("2026-11-23T16:40:00Z");
const H = 3_600_000;

/** When `pause <text>` typed at `now` resumes, in the default zone `zone`. */
function resumesAt(text: string, now = NOW, zone = "UTC"): { reason: string; at: string | null } {
  const { reason, resume } = splitResume("pause", text);
  return { reason, at: resume ? resumeInstant("pause", resume, now, zone).toISOString() : null };
}

function refusal(text: string, now = NOW, zone = "UTC"): string {
  try {
    resumesAt(text, now, zone);
  } catch (error) {
    expect(error).toBeInstanceOf(CommandError);
    const e = error as CommandError;
    expect(e.isRefusal).toBe(true);
    return e.details.detail ?? "";
  }
  throw new Error(`"${text}" was not refused`);
}

describe("timed pauses: durations", () => {
  it.each([
    ["release freeze for 90m", 1.5 * H],
    ["release freeze for 2h", 2 * H],
    ["release freeze for 1d", 24 * H],
    ["release freeze for 1h30m", 1.5 * H],
    ["release freeze for 1d2h", 26 * H],
    ["release freeze for 1 h 30 min", 1.5 * H],
    ["release freeze for 2 hours", 2 * H],
    ["release freeze FOR 45 Minutes", 0.75 * H],
    ["release freeze for 14d", 14 * 24 * H],
  ])("%s", (text, ms) => {
    expect(resumesAt(text)).toEqual({
      reason: "release freeze",
      at: new Date(NOW.getTime() + ms).toISOString(),
    });
  });

  it("is exactly that long, even across a change of the clocks", () => {
    // Paris goes from CEST to CET on 2026-10-25: a day is still 24 hours from now.
    const now = new Date("2026-10-24T12:00:00Z");
    expect(resumesAt("freeze for 1d", now, "Europe/Paris").at).toBe("2026-10-25T12:00:00.000Z");
  });

  it("leaves reasons that merely contain the words alone", () => {
    for (const text of [
      "waiting for CI",
      "waiting for 2 reviewers",
      "frozen until the release",
      "for real",
    ]) {
      expect(resumesAt(text)).toEqual({ reason: text, at: null });
    }
  });

  it.each([
    "Release freeze for 1.2",
    "freeze for v2.0",
    "freeze for 1.2.3",
    "freeze for QA",
    "freeze for 2",
    "freeze for 2.0-rc1",
  ])("takes versions and words after the last `for` as the reason: %s", (text) => {
    expect(resumesAt(text)).toEqual({ reason: text, at: null });
  });

  it("still reads a duration after a version", () => {
    expect(resumesAt("deploy for 1.2 for 2h")).toEqual({
      reason: "deploy for 1.2",
      at: new Date(NOW.getTime() + 2 * H).toISOString(),
    });
    expect(resumesAt("deploy for 2h").reason).toBe("deploy");
  });

  it("reads only the last ending, and leaves the reason empty when there is none", () => {
    expect(resumesAt("wait for CI for 2h").reason).toBe("wait for CI");
    expect(resumesAt("for 2h")).toEqual({ reason: "", at: new Date(NOW.getTime() + 2 * H).toISOString() });
  });

  it.each([
    ["freeze for 15d", "more than 14 days"],
    ["freeze for 0m", "no time at all"],
    ["freeze for 2x", "not a duration"],
    ["freeze for 1h1h", "not a duration"],
    ["freeze for 3hrs5", "not a duration"],
    ["freeze for 1.5h", "not a duration"],
  ])("refuses %s with examples", (text, why) => {
    const detail = refusal(text);
    expect(detail).toContain(why);
    expect(detail).toContain('"for 2h"');
    expect(detail).toContain('"until 2026-12-01 09:00 Europe/Paris"');
  });
});

describe("timed pauses: times", () => {
  it("takes a bare time as its next occurrence, today or tomorrow", () => {
    expect(resumesAt("freeze until 18:00")).toEqual({ reason: "freeze", at: "2026-11-23T18:00:00.000Z" });
    expect(resumesAt("freeze until 9:05").at).toBe("2026-11-24T09:05:00.000Z");
    expect(resumesAt("freeze until 16:40").at).toBe("2026-11-24T16:40:00.000Z");
  });

  it("takes a day and a time", () => {
    expect(resumesAt("freeze until 2026-12-01 09:00").at).toBe("2026-12-01T09:00:00.000Z");
  });

  it("reads the time in the zone typed, else the default one (the Slack user's)", () => {
    expect(resumesAt("freeze until 18:00 Europe/Paris").at).toBe("2026-11-23T17:00:00.000Z");
    expect(resumesAt("freeze until 18:00 europe/paris").at).toBe("2026-11-23T17:00:00.000Z");
    expect(resumesAt("freeze until 2026-12-01 09:00 America/New_York").at).toBe("2026-12-01T14:00:00.000Z");
    expect(resumesAt("freeze until 18:00", NOW, "Asia/Kolkata").at).toBe("2026-11-24T12:30:00.000Z");
    expect(resumesAt("freeze until 18:00 UTC", NOW, "Asia/Kolkata").at).toBe("2026-11-23T18:00:00.000Z");
  });

  it("follows the zone's change of the clocks", () => {
    // 2026-10-24 14:00 in Paris (CEST, +2); 09:00 next morning is CET (+1).
    const now = new Date("2026-10-24T12:00:00Z");
    expect(resumesAt("freeze until 09:00 Europe/Paris", now).at).toBe("2026-10-25T08:00:00.000Z");
    expect(resumesAt("freeze until 13:00 Europe/Paris", now).at).toBe("2026-10-25T12:00:00.000Z");
    // 02:30 happens twice that night: the first one counts.
    expect(resumesAt("freeze until 2026-10-25 02:30 Europe/Paris", now).at).toBe("2026-10-25T00:30:00.000Z");
  });

  it("refuses a time the clocks skip", () => {
    const now = new Date("2026-03-28T12:00:00Z");
    expect(refusal("freeze until 2026-03-29 02:30 Europe/Paris", now)).toContain("does not exist");
  });

  it.each([
    ["freeze until 2026-11-01 09:00", "in the past"],
    ["freeze until 2026-11-23 16:40", "in the past"],
    ["freeze until 2026-12-08 09:00", "more than 14 days ahead"],
    ["freeze until 25:00", "not a time of day"],
    ["freeze until 18:60", "not a time of day"],
    ["freeze until 18h", "not a time"],
    ["freeze until 6pm", "not a time"],
    ["freeze until 2026-02-30 09:00", "not a date"],
    ["freeze until 2026-12-01", "not a time"],
    ["freeze until 18:00 Mars/Olympus_Mons", "not a time zone"],
    ["freeze until 18:00 Europe/Paris extra", "not a time"],
  ])("refuses %s with examples", (text, why) => {
    const detail = refusal(text);
    expect(detail).toContain(why);
    expect(detail).toContain('"until 18:00"');
  });
});

describe("time zones", () => {
  it("knows IANA names in any case, and nothing else", () => {
    expect(canonicalZone("Europe/Paris")).toBe("Europe/Paris");
    expect(canonicalZone("utc")).toBe("UTC");
    expect(canonicalZone("Nowhere/Land")).toBeNull();
    expect(canonicalZone("<!channel>")).toBeNull();
  });
});
