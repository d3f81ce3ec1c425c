import { describe, expect, it } from "vitest";
import { latestDigestTime } from "../../src/digests/schedule.js";

const at = (iso: string) => new Date(iso);

describe("when weekly digests are due", () => {
  it("is the latest Monday at 09:00 in UTC", () => {
    // 2026-11-23 is a Monday.
    expect(latestDigestTime(at("2026-11-23T09:00:00Z"), "UTC")).toEqual({
      at: at("2026-11-23T09:00:00Z"),
      week: "2026-11-23",
    });
    expect(latestDigestTime(at("2026-11-23T08:59:59Z"), "UTC")).toEqual({
      at: at("2026-11-16T09:00:00Z"),
      week: "2026-11-16",
    });
    expect(latestDigestTime(at("2026-11-29T23:00:00Z"), "UTC").week).toBe("2026-11-23");
  });

  it("follows the workspace's time zone and its daylight saving time", () => {
    // Paris is UTC+1 in November, UTC+2 in summer.
    expect(latestDigestTime(at("2026-11-23T08:30:00Z"), "Europe/Paris").at).toEqual(
      at("2026-11-23T08:00:00Z"),
    );
    expect(latestDigestTime(at("2026-06-15T07:30:00Z"), "Europe/Paris").at).toEqual(
      at("2026-06-15T07:00:00Z"),
    );
    // Monday 09:00 in Tokyo (UTC+9) is 00:00 UTC.
    expect(latestDigestTime(at("2026-11-23T00:30:00Z"), "Asia/Tokyo")).toEqual({
      at: at("2026-11-23T00:00:00Z"),
      week: "2026-11-23",
    });
    // Sunday 22:30 in UTC is already Monday 09:30 in Sydney (UTC+11 in November): this week's digest.
    expect(latestDigestTime(at("2026-11-22T22:30:00Z"), "Australia/Sydney")).toEqual({
      at: at("2026-11-22T22:00:00Z"),
      week: "2026-11-23",
    });
    // New York on the Monday after DST ended (2026-11-01): UTC-5.
    expect(latestDigestTime(at("2026-11-02T15:00:00Z"), "America/New_York").at).toEqual(
      at("2026-11-02T14:00:00Z"),
    );
  });
});
