import { beforeEach, describe, expect, it } from "vitest";
import type { Repo } from "../../../src/repo.js";
import type { Store } from "../../../src/store/index.js";
import { at, HOUR, r, SECOND, storeContract, T0 } from "./harness.js";

storeContract("pauses", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  describe("pause attributions", () => {
    it("keeps the latest pause or unpause per repository, case-insensitively", async () => {
      expect(await store.getPauseAttribution(r("acme/widgets"))).toBeNull();
      const paused = {
        repository: r("acme/widgets"),
        action: "pause" as const,
        reason: "release freeze",
        actor: "alice",
        surface: "slack" as const,
        at: at(SECOND),
      };
      await store.putPauseAttribution(paused);
      const got = await store.getPauseAttribution(r("ACME/Widgets"));
      expect(got).toEqual({ ...paused, resumesAt: null, scheduled: false });
      expect(got?.at).toBeInstanceOf(Date);
      const resumed = {
        ...paused,
        repository: r("Acme/Widgets"),
        action: "unpause" as const,
        reason: null,
        actor: "bob",
        surface: "github" as const,
        at: at(HOUR),
      };
      await store.putPauseAttribution(resumed);
      expect(await store.getPauseAttribution(r("acme/widgets"))).toEqual({
        ...resumed,
        resumesAt: null,
        scheduled: false,
      });
      expect(await store.getPauseAttribution(r("acme/gadgets"))).toBeNull();
    });

    it("keeps when a timed pause ends, and whether an unpause was its scheduled one", async () => {
      const timed = {
        repository: r("acme/widgets"),
        action: "pause" as const,
        reason: "release freeze",
        actor: "alice",
        surface: "github" as const,
        at: at(SECOND),
        resumesAt: at(2 * HOUR),
        scheduled: false,
      };
      await store.putPauseAttribution(timed);
      expect(await store.getPauseAttribution(r("acme/widgets"))).toEqual(timed);
      const resumed = { ...timed, action: "unpause" as const, at: at(2 * HOUR), scheduled: true };
      await store.putPauseAttribution(resumed);
      expect(await store.getPauseAttribution(r("acme/widgets"))).toEqual(resumed);
    });
  });

  describe("scheduled unpauses", () => {
    const unpause = (name: string, resumesIn: number, reason = "release freeze") => ({
      repository: r(name),
      reason,
      resumesAt: at(resumesIn),
      scheduledBy: "alice",
      surface: "slack" as const,
      createdAt: T0,
    });
    const claim = (owner: string, now: number, limit = 10) =>
      store.claimScheduledUnpauses({ owner, now: at(now), leaseMs: 30 * SECOND, limit });
    const names = (rows: { repository: Repo }[]) => rows.map((u) => u.repository.fullName);

    it("keeps one per repository, case-insensitively: a new pause replaces it, an unpause removes it", async () => {
      expect(await store.getScheduledUnpause(r("acme/widgets"))).toBeNull();
      await store.putScheduledUnpause(unpause("acme/widgets", HOUR));
      expect(await store.getScheduledUnpause(r("ACME/widgets"))).toEqual(unpause("acme/widgets", HOUR));
      await store.putScheduledUnpause(unpause("Acme/Widgets", 2 * HOUR, "incident"));
      expect(await store.getScheduledUnpause(r("acme/widgets"))).toEqual(
        unpause("Acme/Widgets", 2 * HOUR, "incident"),
      );
      expect(await store.deleteScheduledUnpause(r("acme/widgets"))).toBe(true);
      expect(await store.deleteScheduledUnpause(r("acme/widgets"))).toBe(false);
      expect(await store.getScheduledUnpause(r("acme/widgets"))).toBeNull();
    });

    it("is claimed once its time has come, soonest first, by one owner until done or lapsed", async () => {
      await store.putScheduledUnpause(unpause("acme/later", 2 * HOUR));
      await store.putScheduledUnpause(unpause("acme/widgets", HOUR));
      await store.putScheduledUnpause(unpause("acme/gadgets", HOUR - SECOND));
      expect(await claim("a", HOUR - 2 * SECOND)).toEqual([]);
      expect(names(await claim("a", HOUR))).toEqual(["acme/gadgets", "acme/widgets"]);
      // Claimed: nobody else gets them while the claim lasts.
      expect(await claim("b", HOUR + SECOND)).toEqual([]);
      expect(await store.renewScheduledUnpauseClaim(r("acme/widgets"), "b", at(HOUR + HOUR))).toBe(false);
      expect(await store.renewScheduledUnpauseClaim(r("acme/widgets"), "a", at(HOUR + 40 * SECOND))).toBe(
        true,
      );
      expect(await store.finishScheduledUnpause(r("acme/gadgets"), "b")).toBe(false);
      expect(await store.finishScheduledUnpause(r("acme/gadgets"), "a")).toBe(true);
      expect(await store.getScheduledUnpause(r("acme/gadgets"))).toBeNull();
      // a's claim of widgets (renewed to HOUR + 40 s) lapses: b takes it over.
      expect(await claim("b", HOUR + 39 * SECOND)).toEqual([]);
      expect(names(await claim("b", HOUR + 40 * SECOND))).toEqual(["acme/widgets"]);
      expect(await store.finishScheduledUnpause(r("acme/widgets"), "a")).toBe(false);
      expect(await store.getScheduledUnpause(r("acme/widgets"))).not.toBeNull();
    });

    it("forgets a claim when the pause is replaced, so the old claimer cannot finish the new one", async () => {
      await store.putScheduledUnpause(unpause("acme/widgets", HOUR));
      expect(names(await claim("a", HOUR))).toEqual(["acme/widgets"]);
      await store.putScheduledUnpause(unpause("acme/widgets", 3 * HOUR, "incident"));
      expect(await store.renewScheduledUnpauseClaim(r("acme/widgets"), "a", at(2 * HOUR))).toBe(false);
      expect(await store.finishScheduledUnpause(r("acme/widgets"), "a")).toBe(false);
      expect(await claim("a", HOUR + SECOND)).toEqual([]);
      expect(names(await claim("b", 3 * HOUR))).toEqual(["acme/widgets"]);
    });

    it("gives each scheduled unpause to exactly one of two racing claimers", async () => {
      for (let i = 0; i < 20; i++) await store.putScheduledUnpause(unpause(`acme/repo-${i}`, i * SECOND));
      for (let round = 0; round < 5; round++) {
        const claims = await Promise.all(["a", "b"].map((owner) => claim(owner, HOUR, 20)));
        const all = claims.flatMap(names);
        expect(new Set(all).size).toBe(all.length);
        if (round === 0) expect(all).toHaveLength(20);
        else expect(all).toEqual([]);
      }
    });
  });
});
