import { beforeEach, describe, expect, it } from "vitest";
import type { FreezeSchedule } from "../../../src/core/records.js";
import { FREEZE_END_KIND, FREEZE_KIND, type Store } from "../../../src/store/index.js";
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

  describe("each freeze's steps, as durable work", () => {
    const item = (id: string) =>
      store.claimWork({ kind: FREEZE_KIND, owner: "a", now: at(HOUR), leaseMs: SECOND, limit: 10, key: id });

    it("are due from the freeze's making, with its repository, and go with it (a window's end stays)", async () => {
      await store.addFreeze(freeze("Acme/Widgets", "weekend", "f1"));
      expect(await store.addFreeze(freeze("acme/widgets", "WEEKEND", "f2"))).toBe("name-taken");
      const end = { kind: FREEZE_END_KIND, key: `f1@${at(HOUR).toISOString()}`, dueAt: at(0), payload: {} };
      await store.scheduleWork(end);
      const { claimed } = await item("f1");
      expect(claimed.map((w) => [w.key, w.payload])).toEqual([["f1", { repository: "Acme/Widgets" }]]);
      expect((await item("f2")).claimed).toEqual([]);
      await store.deleteFreeze(r("acme/widgets"), { name: "weekend" });
      await store.addFreeze(freeze("acme/widgets", "weekend", "f3"));
      expect((await item("f1")).claimed).toEqual([]);
      const ends = await store.claimWork({
        kind: FREEZE_END_KIND,
        owner: "a",
        now: at(HOUR),
        leaseMs: SECOND,
        limit: 10,
      });
      expect(ends.claimed.map((w) => w.key)).toEqual([end.key]);
    });
  });
});
