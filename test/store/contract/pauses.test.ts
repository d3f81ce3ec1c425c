import { beforeEach, describe, expect, it } from "vitest";
import { type Store, scheduledUnpauseOf, UNPAUSE_KIND, type WorkItem } from "../../../src/store/index.js";
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
    const claim = async (owner: string, now: number, limit = 10) =>
      (await store.claimWork({ kind: UNPAUSE_KIND, owner, now: at(now), leaseMs: 30 * SECOND, limit }))
        .claimed;
    const names = (items: WorkItem[]) => items.map((item) => scheduledUnpauseOf(item).repository.fullName);

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

    it("is durable work of kind unpause, due at its time; a new pause drops the claim of the old", async () => {
      await store.putScheduledUnpause(unpause("acme/later", 2 * HOUR));
      await store.putScheduledUnpause(unpause("acme/widgets", HOUR));
      expect(names(await claim("a", HOUR - SECOND))).toEqual([]);
      expect(names(await claim("a", HOUR))).toEqual(["acme/widgets"]);
      await store.putScheduledUnpause(unpause("acme/widgets", 3 * HOUR, "incident"));
      expect(await store.renewWork(UNPAUSE_KIND, r("acme/widgets").key, "a", at(2 * HOUR))).toBe(false);
      expect(
        await store.completeWork("a", [{ kind: UNPAUSE_KIND, key: r("acme/widgets").key, next: null }]),
      ).toEqual([false]);
      expect(names(await claim("b", 3 * HOUR))).toEqual(["acme/later", "acme/widgets"]);
      expect(
        await store.completeWork("b", [{ kind: UNPAUSE_KIND, key: r("acme/widgets").key, next: null }]),
      ).toEqual([true]);
      expect(await store.getScheduledUnpause(r("acme/widgets"))).toBeNull();
    });
  });
});
