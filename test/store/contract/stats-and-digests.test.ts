import { beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../../src/store/index.js";
import { at, DAY, HOUR, r, SECOND, storeContract, T0 } from "./harness.js";

storeContract("stats-and-digests", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  describe("stats days", () => {
    it("keeps each day's facts per repository, case-insensitively, and replaces them", async () => {
      expect(await store.getStatsDays(r("acme/widgets"), ["2026-11-20"])).toEqual(new Map());
      expect(await store.getStatsDays(r("acme/widgets"), [])).toEqual(new Map());
      const facts = { waits: [60, 120], leaves: [{ code: "CHECKS_FAILED", reason: "ci" }] };
      await store.putStatsDay(r("acme/widgets"), "2026-11-20", facts, at(SECOND));
      await store.putStatsDay(r("acme/widgets"), "2026-11-21", { waits: [] }, at(SECOND));
      await store.putStatsDay(r("acme/gadgets"), "2026-11-20", { waits: [1] }, at(SECOND));
      expect(await store.getStatsDays(r("ACME/Widgets"), ["2026-11-20", "2026-11-22"])).toEqual(
        new Map([["2026-11-20", facts]]),
      );
      await store.putStatsDay(r("Acme/Widgets"), "2026-11-20", { waits: [5] }, at(HOUR));
      expect(await store.getStatsDays(r("acme/widgets"), ["2026-11-20", "2026-11-21"])).toEqual(
        new Map<string, unknown>([
          ["2026-11-20", { waits: [5] }],
          ["2026-11-21", { waits: [] }],
        ]),
      );
    });
  });

  describe("stats days and digests, forgotten", () => {
    it("forgets a day's figures 100 days on, and a week's digest 90 days on", async () => {
      const widgets = r("acme/widgets");
      // T0 is 2025-03-01: 100 days later, the day before it is forgotten and it is not.
      await store.putStatsDay(widgets, "2025-02-28", { waits: [1] }, T0);
      await store.putStatsDay(widgets, "2025-03-01", { waits: [2] }, T0);
      await store.putStatsDay(widgets, "2025-06-09", { waits: [3] }, at(100 * DAY));
      expect([...(await store.getStatsDays(widgets, ["2025-02-28", "2025-03-01"])).keys()]).toEqual([
        "2025-03-01",
      ]);

      // A week's digest posted is a once-claim (scope `digest`), kept 90 days: 90 days after 2025-03-06,
      // the week before it is forgotten (claimed anew) and it is not (done); so is a digest posted on
      // demand (its key the time it was asked for, `now-…`).
      const asked = ["now-2025-03-05T10:00:00.000Z", "now-2025-03-06T10:00:00.000Z"];
      const claimAt = (week: string, day: number, owner: string) =>
        store.claimOnce("digest", `C1 acme/widgets@${week}`, {
          owner,
          now: at(day * DAY),
          until: at(day * DAY + HOUR),
          keepMs: 90 * DAY,
        });
      for (const [w, day] of [
        ["2025-03-05", 4],
        ["2025-03-06", 5],
        [asked[0] as string, 4],
        [asked[1] as string, 5],
      ] as const) {
        expect(await claimAt(w, day, "a")).toBe("claimed");
        await store.finishOnce("digest", `C1 acme/widgets@${w}`, "a", at(day * DAY), { messageTs: "1.1" });
      }
      await claimAt("2025-06-02", 94.5, "b");
      expect(await claimAt("2025-03-05", 94.5, "b")).toBe("claimed");
      expect(await claimAt("2025-03-06", 94.5, "b")).toBe("done");
      expect(await claimAt(asked[0] as string, 94.5, "b")).toBe("claimed");
      expect(await claimAt(asked[1] as string, 94.5, "b")).toBe("done");
      expect((await store.readOnce("digest", `C1 acme/widgets@${asked[1]}`))?.result).toEqual({
        messageTs: "1.1",
      });
    });
  });

  describe("weekly digests", () => {
    const MINUTE = 60 * SECOND;

    it("keeps a subscription's digest and when it was first asked for", async () => {
      const sub = {
        channelId: "C1",
        teamId: "T1",
        repository: r("acme/widgets"),
        branchGlob: null,
        groups: ["queue"],
        createdBy: "alice",
        createdAt: at(SECOND),
      };
      await store.putSubscription({ ...sub, digest: { cadence: "weekly" } });
      expect((await store.listSubscriptions({ channelId: "C1" }))[0]?.digest).toEqual({
        cadence: "weekly",
        since: at(SECOND),
      });
      // Asked for again later: it keeps its first time. Left out: off.
      await store.putSubscription({ ...sub, createdAt: at(HOUR), digest: { cadence: "weekly" } });
      expect((await store.listSubscriptions({ channelId: "C1" }))[0]?.digest?.since).toEqual(at(SECOND));
      await store.putSubscription({ ...sub, createdAt: at(HOUR) });
      expect((await store.listSubscriptions({ channelId: "C1" }))[0]?.digest).toBeUndefined();
      await store.putSubscription({ ...sub, createdAt: at(HOUR), digest: { cadence: "weekly" } });
      expect((await store.listSubscriptions({ channelId: "C1" }))[0]?.digest?.since).toEqual(at(HOUR));
    });

    it("gives a week's digest to one claimer, and shows a lapsed claim not released as in doubt", async () => {
      const scope = "digest";
      const key = "C1 acme/widgets@2026-11-23";
      const claim = (owner: string, now: Date) =>
        store.claimOnce(scope, key, {
          owner,
          now,
          until: new Date(now.getTime() + MINUTE),
          keepMs: 90 * DAY,
        });
      const inDoubt = async () => {
        const record = await store.readOnce(scope, key);
        return record !== null && record.doneAt === null && record.claimedUntil !== null;
      };
      const [a, b] = await Promise.all([claim("a", at(SECOND)), claim("b", at(SECOND))]);
      expect([a, b].sort()).toEqual(["claimed", "held"]);
      const winner = a === "claimed" ? "a" : "b";
      expect(await claim("c", at(30 * SECOND))).toBe("held");
      // The claim ran out without being marked done: in doubt (its post may have landed).
      expect(await inDoubt()).toBe(true);
      expect(await claim("c", at(2 * MINUTE))).toBe("claimed");
      // The first claimer can no longer mark it; the new one can.
      expect(await store.finishOnce(scope, key, winner, at(2 * MINUTE), { messageTs: "1.1" })).toBe(false);
      // Released (Slack refused it: nothing posted): claimed again at once, and not in doubt.
      await store.releaseOnce(scope, key, "c");
      expect(await inDoubt()).toBe(false);
      expect(await claim("d", at(3 * MINUTE))).toBe("claimed");
      expect(await store.finishOnce(scope, key, "d", at(3 * MINUTE), { messageTs: "1.2" })).toBe(true);
      expect(await claim("e", at(HOUR))).toBe("done");
      expect(await inDoubt()).toBe(false);
      expect((await store.readOnce(scope, key))?.result).toEqual({ messageTs: "1.2" });
      // Another week, or another channel, is another digest.
      const other = { owner: "e", now: at(HOUR), until: at(2 * HOUR), keepMs: 90 * DAY };
      expect(await store.claimOnce(scope, "C1 acme/widgets@2026-11-30", other)).toBe("claimed");
      expect(await store.claimOnce(scope, "C2 acme/widgets@2026-11-23", other)).toBe("claimed");
    });
  });
});
