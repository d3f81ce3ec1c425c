import { beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../../src/store/index.js";
import { at, DAY, HOUR, SECOND, storeContract } from "./harness.js";

storeContract("slack-events", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });
  const lease = (owner: string, now: number) => ({ owner, now: at(now), until: at(now + 30 * SECOND) });

  describe("Slack events handled once by event_id", () => {
    it("claims an event once; handled, it is done for every later delivery", async () => {
      expect(await store.claimSlackEvent("Ev1", lease("a", 0))).toBe("claimed");
      expect(await store.claimSlackEvent("Ev1", lease("b", SECOND))).toBe("held");
      expect(await store.finishSlackEvent("Ev1", "a", at(2 * SECOND))).toBe(true);
      expect(await store.finishSlackEvent("Ev1", "a", at(2 * SECOND))).toBe(false);
      expect(await store.claimSlackEvent("Ev1", lease("b", 3 * SECOND))).toBe("done");
      // Long after its lease would have lapsed, still done.
      expect(await store.claimSlackEvent("Ev1", lease("b", HOUR))).toBe("done");
      expect(await store.claimSlackEvent("Ev2", lease("b", HOUR))).toBe("claimed");
    });

    it("lets a retry take an event whose handling failed (released) at once", async () => {
      expect(await store.claimSlackEvent("Ev1", lease("a", 0))).toBe("claimed");
      // Not a's to release any more once released; b's release of a's event changes nothing.
      await store.releaseSlackEvent("Ev1", "b");
      expect(await store.claimSlackEvent("Ev1", lease("b", SECOND))).toBe("held");
      await store.releaseSlackEvent("Ev1", "a");
      expect(await store.claimSlackEvent("Ev1", lease("b", SECOND))).toBe("claimed");
      // a no longer holds it: it can neither renew nor finish it.
      expect(await store.renewSlackEvent("Ev1", "a", at(HOUR))).toBe(false);
      expect(await store.finishSlackEvent("Ev1", "a", at(2 * SECOND))).toBe(false);
      expect(await store.finishSlackEvent("Ev1", "b", at(2 * SECOND))).toBe(true);
      expect(await store.claimSlackEvent("Ev1", lease("c", 3 * SECOND))).toBe("done");
    });

    it("lets a retry take an event whose holder died once its lease lapsed, unless it was renewed", async () => {
      expect(await store.claimSlackEvent("Ev1", lease("a", 0))).toBe("claimed");
      expect(await store.renewSlackEvent("Ev1", "a", at(60 * SECOND))).toBe(true);
      expect(await store.claimSlackEvent("Ev1", lease("b", 59 * SECOND))).toBe("held");
      expect(await store.claimSlackEvent("Ev1", lease("b", 60 * SECOND))).toBe("claimed");
      expect(await store.renewSlackEvent("Ev1", "a", at(HOUR))).toBe(false);
    });

    it("gives an event to exactly one of two concurrent claims", async () => {
      const results = await Promise.all([
        store.claimSlackEvent("Ev-race", lease("a", 0)),
        store.claimSlackEvent("Ev-race", lease("b", 0)),
      ]);
      expect(results.sort()).toEqual(["claimed", "held"]);
    });

    it("forgets events first seen more than a day before", async () => {
      expect(await store.claimSlackEvent("old", lease("a", 0))).toBe("claimed");
      expect(await store.finishSlackEvent("old", "a", at(SECOND))).toBe(true);
      expect(await store.claimSlackEvent("new", lease("a", DAY + HOUR))).toBe("claimed"); // prunes
      expect(await store.claimSlackEvent("old", lease("a", DAY + HOUR))).toBe("claimed");
    });
  });
});
