import { beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../../src/store/index.js";
import { at, DAY, HOUR, SECOND, storeContract } from "./harness.js";

storeContract("once-claims", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });
  const lease = (owner: string, now: number) => ({
    owner,
    now: at(now),
    until: at(now + 30 * SECOND),
    keepMs: DAY,
  });
  const S = "slack-event";

  describe("once-claims: a scope's keys done once, each held by a lease", () => {
    it("claims an event once; handled, it is done for every later delivery", async () => {
      expect(await store.claimOnce(S, "Ev1", lease("a", 0))).toBe("claimed");
      expect(await store.claimOnce(S, "Ev1", lease("b", SECOND))).toBe("held");
      expect(await store.finishOnce(S, "Ev1", "a", at(2 * SECOND))).toBe(true);
      expect(await store.finishOnce(S, "Ev1", "a", at(2 * SECOND))).toBe(false);
      expect(await store.claimOnce(S, "Ev1", lease("b", 3 * SECOND))).toBe("done");
      // Long after its lease would have lapsed, still done.
      expect(await store.claimOnce(S, "Ev1", lease("b", HOUR))).toBe("done");
      expect(await store.claimOnce(S, "Ev2", lease("b", HOUR))).toBe("claimed");
    });

    it("lets a retry take an event whose handling failed (released) at once", async () => {
      expect(await store.claimOnce(S, "Ev1", lease("a", 0))).toBe("claimed");
      // Not a's to release any more once released; b's release of a's event changes nothing.
      await store.releaseOnce(S, "Ev1", "b");
      expect(await store.claimOnce(S, "Ev1", lease("b", SECOND))).toBe("held");
      await store.releaseOnce(S, "Ev1", "a");
      expect(await store.claimOnce(S, "Ev1", lease("b", SECOND))).toBe("claimed");
      // a no longer holds it: it can neither renew nor finish it.
      expect(await store.renewOnce(S, "Ev1", "a", at(HOUR))).toBe(false);
      expect(await store.finishOnce(S, "Ev1", "a", at(2 * SECOND))).toBe(false);
      expect(await store.finishOnce(S, "Ev1", "b", at(2 * SECOND))).toBe(true);
      expect(await store.claimOnce(S, "Ev1", lease("c", 3 * SECOND))).toBe("done");
    });

    it("lets a retry take an event whose holder died once its lease lapsed, unless it was renewed", async () => {
      expect(await store.claimOnce(S, "Ev1", lease("a", 0))).toBe("claimed");
      expect(await store.renewOnce(S, "Ev1", "a", at(60 * SECOND))).toBe(true);
      expect(await store.claimOnce(S, "Ev1", lease("b", 59 * SECOND))).toBe("held");
      expect(await store.claimOnce(S, "Ev1", lease("b", 60 * SECOND))).toBe("claimed");
      expect(await store.renewOnce(S, "Ev1", "a", at(HOUR))).toBe(false);
    });

    it("gives an event to exactly one of two concurrent claims", async () => {
      const results = await Promise.all([
        store.claimOnce(S, "Ev-race", lease("a", 0)),
        store.claimOnce(S, "Ev-race", lease("b", 0)),
      ]);
      expect(results.sort()).toEqual(["claimed", "held"]);
    });

    it("keeps what the holder recorded when done, and says who holds a key until when", async () => {
      expect(await store.readOnce(S, "Ev1")).toBeNull();
      expect(await store.claimOnce(S, "Ev1", lease("a", 0))).toBe("claimed");
      expect(await store.readOnce(S, "Ev1")).toEqual({
        firstAt: at(0),
        claimedBy: "a",
        claimedUntil: at(30 * SECOND),
        doneAt: null,
        result: null,
      });
      expect(await store.finishOnce(S, "Ev1", "a", at(SECOND), { ts: "1.2", n: [1, 2] })).toBe(true);
      expect(await store.readOnce(S, "Ev1")).toMatchObject({
        claimedUntil: null,
        doneAt: at(SECOND),
        result: { ts: "1.2", n: [1, 2] },
      });
    });

    it("keeps scopes apart: the same key in two scopes is two claims, each forgotten on its own", async () => {
      expect(await store.claimOnce(S, "k", lease("a", 0))).toBe("claimed");
      expect(await store.claimOnce("other", "k", { ...lease("b", 0), keepMs: 7 * DAY })).toBe("claimed");
      expect(await store.finishOnce(S, "k", "a", at(SECOND))).toBe(true);
      expect(await store.finishOnce("other", "k", "b", at(SECOND))).toBe(true);
      // Two days on, S (kept a day) forgets its key; "other" (kept a week) does not.
      expect(await store.claimOnce(S, "k2", lease("a", 2 * DAY))).toBe("claimed");
      expect(await store.claimOnce("other", "k2", { ...lease("a", 2 * DAY), keepMs: 7 * DAY })).toBe(
        "claimed",
      );
      expect(await store.claimOnce(S, "k", lease("c", 2 * DAY))).toBe("claimed");
      expect(await store.claimOnce("other", "k", { ...lease("c", 2 * DAY), keepMs: 7 * DAY })).toBe("done");
    });

    it("forgets events first seen more than a day before", async () => {
      expect(await store.claimOnce(S, "old", lease("a", 0))).toBe("claimed");
      expect(await store.finishOnce(S, "old", "a", at(SECOND))).toBe(true);
      expect(await store.claimOnce(S, "new", lease("a", DAY + HOUR))).toBe("claimed"); // prunes
      expect(await store.claimOnce(S, "old", lease("a", DAY + HOUR))).toBe("claimed");
    });
  });
});
