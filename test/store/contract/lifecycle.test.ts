import { beforeEach, describe, expect, it } from "vitest";
import { MIGRATIONS, type Store } from "../../../src/store/index.js";
import { storeContract } from "./harness.js";

storeContract("lifecycle", ({ h, kind }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  describe("lifecycle", () => {
    it("reports its kind and answers ping until closed", async () => {
      expect(store.kind).toBe(kind);
      expect(await store.ping()).toBe(true);
      await store.close();
      expect(await store.ping()).toBe(false);
      await store.close(); // idempotent
    });

    it("says which migrations are applied: all of this build's once migrated, none before", async () => {
      expect(await store.appliedMigrations()).toEqual(MIGRATIONS.map((m) => m.version));
      const fresh = await h.openAsIs();
      expect(await fresh.appliedMigrations()).toEqual([]);
    });
  });
});
