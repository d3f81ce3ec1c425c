import { beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../../src/store/index.js";
import { at, storeContract } from "./harness.js";

storeContract("leases", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  describe("leases", () => {
    const lease = "poll:acme/widgets";

    it("is taken when free, refused while another holds it, and renewed by its holder", async () => {
      expect(await store.tryAcquireLease(lease, "a", at(0), 1000)).toBe(true);
      expect(await store.tryAcquireLease(lease, "b", at(500), 1000)).toBe(false);
      expect(await store.tryAcquireLease(lease, "a", at(900), 1000)).toBe(true); // now until 1900
      expect(await store.tryAcquireLease(lease, "b", at(1500), 1000)).toBe(false);
      expect(await store.tryAcquireLease("poll:other/repo", "b", at(1500), 1000)).toBe(true);
    });

    it("says when it lapses unless renewed, and none once released", async () => {
      expect(await store.leaseExpiresAt(lease)).toBeNull();
      await store.tryAcquireLease(lease, "a", at(0), 1000);
      expect(await store.leaseExpiresAt(lease)).toEqual(at(1000));
      await store.tryAcquireLease(lease, "a", at(600), 1000);
      expect(await store.leaseExpiresAt(lease)).toEqual(at(1600));
      await store.releaseLease(lease, "a");
      expect(await store.leaseExpiresAt(lease)).toBeNull();
    });

    it("is taken over once expired", async () => {
      expect(await store.tryAcquireLease(lease, "a", at(0), 1000)).toBe(true);
      expect(await store.tryAcquireLease(lease, "b", at(1000), 1000)).toBe(true);
      expect(await store.tryAcquireLease(lease, "a", at(1500), 1000)).toBe(false);
    });

    it("is released only by its holder", async () => {
      expect(await store.tryAcquireLease(lease, "a", at(0), 60_000)).toBe(true);
      await store.releaseLease(lease, "b");
      expect(await store.tryAcquireLease(lease, "b", at(1), 60_000)).toBe(false);
      await store.releaseLease(lease, "a");
      expect(await store.tryAcquireLease(lease, "b", at(2), 60_000)).toBe(true);
      await store.releaseLease("never-taken", "a");
    });

    it("goes to exactly one of two concurrent owners", async () => {
      const results = await Promise.all([
        store.tryAcquireLease(lease, "a", at(0), 1000),
        store.tryAcquireLease(lease, "b", at(0), 1000),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
    });
  });
});
