import { beforeEach, describe, expect, it } from "vitest";
import type { FreezeSchedule } from "../../../src/core/records.js";
import type { Store } from "../../../src/store/index.js";
import { at, HOUR, r, SECOND, storeContract, T0 } from "./harness.js";

storeContract("freezes", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  const weekend: FreezeSchedule = {
    kind: "weekly",
    start: { day: 5, hour: 18, minute: 0 },
    end: { day: 1, hour: 8, minute: 0 },
  };
  const freeze = (repository: string, name: string, id = "") => ({
    id,
    repository: r(repository),
    name,
    schedule: weekend,
    zone: "Europe/Paris",
    createdBy: "alice",
    surface: "slack" as const,
    createdAt: T0,
  });

  describe("freezes", () => {
    it("numbers each repository's freezes, refuses a name taken (case-insensitively), lists and removes them", async () => {
      const one = await store.addFreeze(freeze("acme/widgets", "weekend freeze", "f1"));
      expect(one).toEqual({ ...freeze("acme/widgets", "weekend freeze", "f1"), number: 1 });
      expect(await store.addFreeze(freeze("ACME/widgets", "Weekend Freeze", "f2"))).toBe("name-taken");
      const two = await store.addFreeze(freeze("acme/widgets", "nightly", "f3"));
      expect(two).toMatchObject({ number: 2, name: "nightly" });
      expect(await store.addFreeze(freeze("acme/gadgets", "nightly", "f4"))).toMatchObject({ number: 1 });

      expect((await store.listFreezes(r("Acme/Widgets"))).map((f) => f.name)).toEqual([
        "weekend freeze",
        "nightly",
      ]);
      expect(await store.listFreezes()).toHaveLength(3);
      expect((await store.listFreezes(r("acme/widgets")))[0]?.schedule).toEqual(weekend);

      expect(await store.deleteFreeze(r("acme/widgets"), { name: "NIGHTLY" })).toMatchObject({ id: "f3" });
      expect(await store.deleteFreeze(r("acme/widgets"), { name: "nightly" })).toBeNull();
      expect(await store.deleteFreeze(r("acme/widgets"), { number: 1 })).toMatchObject({ id: "f1" });
      expect(await store.listFreezes(r("acme/widgets"))).toEqual([]);
      expect(await store.listFreezes(r("acme/gadgets"))).toHaveLength(1);
    });

    it("keeps the labels a freeze's windows let through", async () => {
      await store.addFreeze({ ...freeze("acme/ships", "weekend", "f5"), except: ["hotfix", "release"] });
      expect((await store.listFreezes(r("acme/ships")))[0]).toMatchObject({ except: ["hotfix", "release"] });
      expect(await store.addFreeze(freeze("acme/ships", "nightly", "f6"))).not.toHaveProperty("except");
    });
  });

  describe("window steps", () => {
    const alice = { login: "alice", surface: "github" as const };
    const claim = (
      owner: string,
      now: number,
      step: "warn" | "start" | "end" = "start",
      by: { login: string; surface: "github" | "slack" } | null = alice,
    ) =>
      store.claimFreezeStep({
        freezeId: "f1",
        repository: r("acme/widgets"),
        step,
        startsAt: at(HOUR),
        endsAt: at(3 * HOUR),
        reason: "weekend freeze (scheduled by alice)",
        by,
        owner,
        now: at(now),
        leaseMs: 30 * SECOND,
      });

    it("gives a step to one replica; another takes it over once the claim lapses; once done, to nobody", async () => {
      expect(await claim("a", HOUR)).toBe(true);
      expect(await claim("b", HOUR + SECOND)).toBe(false);
      expect(await claim("b", HOUR + 31 * SECOND)).toBe(true);
      await store.finishFreezeStep("f1", at(HOUR), "start", "a"); // no longer a's: nothing
      expect(await claim("a", HOUR + 62 * SECOND)).toBe(true);
      await store.finishFreezeStep("f1", at(HOUR), "start", "a");
      expect(await claim("b", HOUR + 200 * SECOND)).toBe(false);
      // The same window's other steps are claimed on their own.
      expect(await claim("b", HOUR + 200 * SECOND, "warn")).toBe(true);
    });

    it("gives a step to exactly one of several replicas claiming it at once", async () => {
      const owners = ["a", "b", "c", "d", "e"];
      const won = await Promise.all(owners.map((owner) => claim(owner, HOUR)));
      expect(won.filter(Boolean)).toHaveLength(1);
    });

    it("lists the windows started whose end has come, until their end step is done", async () => {
      expect(await claim("a", HOUR)).toBe(true);
      expect(await store.listFreezeWindowsToEnd(at(4 * HOUR), 10)).toEqual([]); // not done yet
      await store.finishFreezeStep("f1", at(HOUR), "start", "a");
      expect(await store.listFreezeWindowsToEnd(at(2 * HOUR), 10)).toEqual([]); // not ended yet
      const due = {
        freezeId: "f1",
        repository: r("acme/widgets"),
        startsAt: at(HOUR),
        endsAt: at(3 * HOUR),
        reason: "weekend freeze (scheduled by alice)",
        by: { login: "alice", surface: "github" },
      };
      expect(await store.listFreezeWindowsToEnd(at(3 * HOUR), 10)).toEqual([due]);
      expect(await claim("b", 3 * HOUR, "end")).toBe(true);
      expect(await store.listFreezeWindowsToEnd(at(3 * HOUR), 10)).toEqual([due]); // claimed, not done
      await store.finishFreezeStep("f1", at(HOUR), "end", "b");
      expect(await store.listFreezeWindowsToEnd(at(4 * HOUR), 10)).toEqual([]);
    });

    it("lists a window whose start step keeps nobody (made before migration 34) with nobody", async () => {
      expect(await claim("a", HOUR, "start", null)).toBe(true);
      await store.finishFreezeStep("f1", at(HOUR), "start", "a");
      expect(await store.listFreezeWindowsToEnd(at(3 * HOUR), 10)).toEqual([
        expect.objectContaining({ freezeId: "f1", by: null }),
      ]);
    });
  });
});
