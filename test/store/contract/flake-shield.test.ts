import { beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../../src/store/index.js";
import { at, DAY, HOUR, MINUTE_MS, r, SECOND, storeContract, T0 } from "./harness.js";

storeContract("flake-shield", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  describe("the flake shield's setting", () => {
    const widgets = r("acme/Widgets");
    it("is off (none) until set, then one per repository, case-insensitively, returning the one it replaced", async () => {
      expect(await store.getFlakeShield(widgets)).toBeNull();
      const on = {
        repository: widgets,
        enabled: true,
        changedBy: "alice",
        surface: "slack" as const,
        changedAt: T0,
      };
      expect(await store.putFlakeShield(on)).toBeNull();
      expect(await store.getFlakeShield(r("ACME/widgets"))).toEqual(on);
      const off = {
        ...on,
        repository: r("acme/widgets"),
        enabled: false,
        changedBy: "bob",
        surface: "github" as const,
        changedAt: at(HOUR),
      };
      expect(await store.putFlakeShield(off)).toEqual(on);
      expect(await store.getFlakeShield(widgets)).toEqual(off);
      expect(await store.getFlakeShield(r("acme/other"))).toBeNull();
    });
  });

  describe("the shield's re-queues", () => {
    const widgets = r("acme/widgets");
    const claim = (over: Partial<Parameters<Store["recordShieldRetry"]>[0]> = {}) =>
      store.recordShieldRetry({
        repository: widgets,
        pull: 23,
        entryKey: "501",
        leftEventId: 510,
        leftAt: T0,
        check: "ci/test",
        owner: "replica-a",
        now: at(SECOND),
        ...over,
      });
    const first = {
      repository: widgets,
      pull: 23,
      entryKey: "501",
      leftEventId: 510,
      leftAt: T0,
      check: "ci/test",
      claimedBy: "replica-a",
      claimedAt: at(SECOND),
      outcome: "pending",
      detail: null,
      decidedAt: null,
    };

    it("records one removal per pull request's entry: another removal of it keeps the first", async () => {
      expect(await claim()).toEqual(first);
      expect(await claim({ owner: "replica-b", leftEventId: 520, now: at(2 * SECOND) })).toEqual(first);
      // Another entry of the same pull request, or another pull request, is recorded apart.
      expect(await claim({ entryKey: "600", owner: "replica-b" })).toMatchObject({ claimedBy: "replica-b" });
      expect(await claim({ pull: 24, owner: "replica-b" })).toMatchObject({ claimedBy: "replica-b" });
      expect(await claim({ repository: r("ACME/Widgets"), owner: "replica-c", leftEventId: 530 })).toEqual(
        first,
      );
    });

    it("gives a pending removal to the replica that took its claim over, a decided one to nobody", async () => {
      await claim();
      expect(await claim({ owner: "replica-b", now: at(2 * MINUTE_MS) })).toEqual({
        ...first,
        claimedBy: "replica-b",
      });
      const key = { repository: widgets, pull: 23, entryKey: "501" };
      expect(
        await store.decideShieldRetry(key, "replica-a", { outcome: "requeued", detail: null, at: at(HOUR) }),
      ).toBe(false);
      expect(
        await store.decideShieldRetry(key, "replica-b", { outcome: "requeued", detail: null, at: at(HOUR) }),
      ).toBe(true);
      expect(await claim({ owner: "replica-c" })).toMatchObject({
        claimedBy: "replica-b",
        outcome: "requeued",
      });
    });

    it("of two concurrent records, both see the same one", async () => {
      const results = await Promise.all([
        claim({ owner: "replica-a" }),
        claim({ owner: "replica-b", leftEventId: 520 }),
      ]);
      expect(results[0]).toEqual(results[1]);
      expect(results[0]).toMatchObject({ outcome: "pending" });
    });

    it("records what came of it once, by the replica that claimed it", async () => {
      await claim();
      const key = { repository: widgets, pull: 23, entryKey: "501" };
      expect(
        await store.decideShieldRetry(key, "replica-b", {
          outcome: "requeued",
          detail: null,
          at: at(3 * SECOND),
        }),
      ).toBe(false);
      expect(
        await store.decideShieldRetry(key, "replica-a", {
          outcome: "failed",
          detail: "GitHub answered 502",
          at: at(3 * SECOND),
        }),
      ).toBe(true);
      expect(
        await store.decideShieldRetry(key, "replica-a", {
          outcome: "requeued",
          detail: null,
          at: at(4 * SECOND),
        }),
      ).toBe(false);
      expect(await store.getShieldRetry(key)).toMatchObject({
        outcome: "failed",
        detail: "GitHub answered 502",
        decidedAt: at(3 * SECOND),
      });
      expect(await store.getShieldRetry({ ...key, entryKey: "nope" })).toBeNull();
    });

    it("lists a repository's claims of a stretch, oldest first, of one pull request when asked", async () => {
      await claim({ pull: 30, now: at(2 * HOUR) });
      await claim({ pull: 31, now: at(HOUR) });
      await claim({ pull: 30, entryKey: "700", now: at(3 * HOUR) });
      await claim({ pull: 32, now: at(5 * HOUR) });
      await store.recordShieldRetry({
        repository: r("acme/other"),
        pull: 30,
        entryKey: "1",
        leftEventId: 1,
        leftAt: T0,
        check: "ci/test",
        owner: "replica-a",
        now: at(2 * HOUR),
      });
      const range = { from: at(HOUR), to: at(5 * HOUR) };
      expect((await store.listShieldRetries(widgets, range)).map((x) => [x.pull, x.entryKey])).toEqual([
        [31, "501"],
        [30, "501"],
        [30, "700"],
      ]);
      expect((await store.listShieldRetries(widgets, { ...range, pull: 30 })).map((x) => x.entryKey)).toEqual(
        ["501", "700"],
      );
    });

    it("forgets claims older than 90 days, when a later one is made", async () => {
      await claim({ pull: 1, now: T0 });
      await claim({ pull: 2, now: at(DAY) });
      await claim({ pull: 3, now: at(90 * DAY + MINUTE_MS) });
      const all = await store.listShieldRetries(widgets, { from: T0, to: at(91 * DAY) });
      expect(all.map((x) => x.pull)).toEqual([2, 3]);
    });
  });
});
