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

      // 90 days after 2025-03-06, the week before it is forgotten (claimed anew) and it is not (sent); so is a
      // digest posted on demand (its key the time it was asked for, `now-…`).
      const week = { channelId: "C1", repository: widgets, owner: "a", now: T0, until: at(HOUR) };
      const asked = ["now-2025-03-05T10:00:00.000Z", "now-2025-03-06T10:00:00.000Z"];
      for (const w of ["2025-03-05", "2025-03-06", ...asked]) {
        expect(await store.claimDigest({ ...week, week: w })).toBe("new");
        await store.markDigestSent({ ...week, week: w, messageTs: "1.1", at: T0 });
      }
      const later = { ...week, now: at(95 * DAY), until: at(96 * DAY) };
      await store.claimDigest({ ...later, week: "2025-06-02" });
      expect(await store.claimDigest({ ...later, week: "2025-03-05" })).toBe("new");
      expect(await store.claimDigest({ ...later, week: "2025-03-06" })).toBeNull();
      expect(await store.claimDigest({ ...later, week: asked[0] as string })).toBe("new");
      expect(await store.claimDigest({ ...later, week: asked[1] as string })).toBeNull();
    });
  });

  describe("weekly digests", () => {
    const MINUTE = 60 * SECOND;
    const key = { channelId: "C1", repository: r("acme/widgets"), week: "2026-11-23" };
    const claim = (owner: string, now: Date) =>
      store.claimDigest({ ...key, owner, now, until: new Date(now.getTime() + MINUTE) });

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

    it("gives a week's digest to one claimer, and to another only once the claim ran out unsent", async () => {
      const [a, b] = await Promise.all([claim("a", at(SECOND)), claim("b", at(SECOND))]);
      expect([a, b].sort()).toEqual(["new", null].sort());
      const winner = a === "new" ? "a" : "b";
      expect(await claim("c", at(30 * SECOND))).toBeNull();
      // The claim ran out without being marked sent: in doubt.
      expect(await claim("c", at(2 * MINUTE))).toBe("in-doubt");
      // The first claimer can no longer mark it; the new one can.
      await store.markDigestSent({ ...key, owner: winner, messageTs: "1.1", at: at(2 * MINUTE) });
      expect(await claim("d", at(10 * MINUTE))).toBe("in-doubt");
      await store.markDigestSent({ ...key, owner: "d", messageTs: "1.2", at: at(10 * MINUTE) });
      expect(await claim("e", at(HOUR))).toBeNull();
      // Another week, or another channel, is another digest.
      expect(
        await store.claimDigest({
          ...key,
          week: "2026-11-30",
          owner: "e",
          now: at(HOUR),
          until: at(2 * HOUR),
        }),
      ).toBe("new");
    });

    it("tells when the first live claim of a digest not sent runs out", async () => {
      expect(await store.nextDigestClaimLapse(at(0))).toBeNull();
      await claim("a", at(SECOND));
      await store.claimDigest({ ...key, week: "2026-11-30", owner: "b", now: at(0), until: at(HOUR) });
      expect(await store.nextDigestClaimLapse(at(2 * SECOND))).toEqual(at(SECOND + MINUTE));
      // Sent, or run out: not waited for.
      await store.markDigestSent({ ...key, owner: "a", messageTs: "1.1", at: at(2 * SECOND) });
      expect(await store.nextDigestClaimLapse(at(2 * SECOND))).toEqual(at(HOUR));
      expect(await store.nextDigestClaimLapse(at(HOUR))).toBeNull();
    });

    it("lets a claim be given up, to be claimed again at once", async () => {
      expect(await claim("a", at(SECOND))).toBe("new");
      await store.releaseDigest({ ...key, owner: "b" });
      expect(await claim("b", at(2 * SECOND))).toBeNull();
      await store.releaseDigest({ ...key, owner: "a" });
      expect(await claim("b", at(2 * SECOND))).toBe("new");
    });
  });
});
