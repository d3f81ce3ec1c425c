import { beforeEach, describe, expect, it } from "vitest";
import { RELAY_ANSWER_KIND, type Store } from "../../../src/store/index.js";
import { at, DAY, r, SECOND, storeContract } from "./harness.js";

storeContract("relays", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  describe("relays followed until the merge queue answers", () => {
    const widgets = r("acme/Widgets");
    const relay = (id: string, ms: number, commandName = "queue") => ({
      id,
      repository: widgets,
      pull: 42,
      commandName,
      surface: "github" as const,
      relayedAt: at(ms),
      deadline: at(ms + 10 * 60 * SECOND),
      relay: { relayed: commandName },
    });
    const answer = (
      commentId: number,
      createdMs: number,
      updatedMs: number,
      body: string,
      quoted: string | null,
    ) => ({
      repository: r("acme/widgets"),
      pull: 42,
      commentId,
      body,
      url: `https://github.example/acme/widgets/pull/42#issuecomment-${commentId}`,
      createdAt: at(createdMs),
      updatedAt: at(updatedMs),
      quotedCommand: quoted,
      now: at(updatedMs),
    });

    it("records the first answer after a relay, then only newer versions of that comment", async () => {
      await store.createRelay(relay("a", 0));
      expect(await store.recordRelayAnswer(answer(7, -SECOND, -SECOND, "before", null))).toBeNull();
      const first = await store.recordRelayAnswer(answer(7, SECOND, SECOND, "waiting", "queue"));
      expect(first).toMatchObject({
        id: "a",
        answerVersion: 1,
        appliedVersion: 0,
        answer: { commentId: 7, body: "waiting" },
      });
      expect(first?.answer?.at).toEqual(at(SECOND));
      expect(first?.repository.fullName).toBe("acme/Widgets");
      expect(await store.recordRelayAnswer(answer(7, SECOND, SECOND, "waiting", "queue"))).toBeNull();
      const edited = await store.recordRelayAnswer(answer(7, SECOND, 5 * SECOND, "queued", "queue"));
      expect(edited).toMatchObject({ answerVersion: 2, answer: { body: "queued" } });
      // A delivery of the older version arriving late changes nothing.
      expect(await store.recordRelayAnswer(answer(7, SECOND, 3 * SECOND, "waiting", "queue"))).toBeNull();
      expect((await store.getRelay("a"))?.answer?.body).toBe("queued");
      // After the relay's deadline, an edit is its relay's still, and is not followed.
      await store.createRelay(relay("b", 11 * 60 * SECOND));
      expect(
        await store.recordRelayAnswer(answer(7, SECOND, 12 * 60 * SECOND, "merged", "queue")),
      ).toBeNull();
      expect((await store.getRelay("b"))?.answer).toBeNull();
    });

    it("gives each answer to the earliest unanswered relay of the command it quotes, never after its deadline", async () => {
      await store.createRelay(relay("q", 0, "queue"));
      await store.createRelay(relay("d", SECOND, "dequeue"));
      expect(
        (await store.recordRelayAnswer(answer(8, 2 * SECOND, 2 * SECOND, "removed", "dequeue")))?.id,
      ).toBe("d");
      expect(
        (await store.recordRelayAnswer(answer(9, 3 * SECOND, 3 * SECOND, "not allowed", null)))?.id,
      ).toBe("q");
      expect(await store.recordRelayAnswer(answer(10, 4 * SECOND, 4 * SECOND, "another", null))).toBeNull();
      await store.createRelay(relay("late", 0));
      expect(
        await store.recordRelayAnswer({
          ...answer(11, SECOND, SECOND, "x", null),
          now: at(11 * 60 * SECOND),
        }),
      ).toBeNull();
    });

    /** The relays whose answer's showing is claimable at `now` (their work items, claimed by `owner`). */
    const claim = async (owner: string, now: Date) =>
      (
        await store.claimWork({ kind: RELAY_ANSWER_KIND, owner, now, leaseMs: 30 * SECOND, limit: 10 })
      ).claimed.map((item) => item.key);
    const done = (owner: string, id: string) =>
      store.completeWork(owner, [{ kind: RELAY_ANSWER_KIND, key: id, next: null }]);

    it("makes an answer's showing due once presented, and again for each new version or presentation", async () => {
      await store.createRelay(relay("a", 0));
      await store.recordRelayAnswer(answer(7, SECOND, SECOND, "refused", null));
      // Recorded before it was presented: its showing is due, and shows nothing yet.
      expect(await claim("one", at(2 * SECOND))).toEqual(["a"]);
      await done("one", "a");
      await store.presentRelay("a", { commentId: 5 });
      expect(await claim("one", at(2 * SECOND))).toEqual(["a"]);
      expect(await claim("two", at(3 * SECOND))).toEqual([]);
      await store.markRelayShown("a", 1);
      expect((await store.getRelay("a"))?.appliedVersion).toBe(1);
      // A version shown before a later one is marked changes nothing.
      await store.markRelayShown("a", 0);
      expect((await store.getRelay("a"))?.appliedVersion).toBe(1);
      await done("one", "a");
      expect(await claim("two", at(4 * SECOND))).toEqual([]);
      // A new version while nobody shows it: due at once.
      await store.recordRelayAnswer(answer(7, SECOND, 5 * SECOND, "edited", null));
      expect(await claim("two", at(5 * SECOND))).toEqual(["a"]);
      // Another while it is shown: due again once that run ends.
      await store.recordRelayAnswer(answer(7, SECOND, 6 * SECOND, "edited again", null));
      expect(await claim("one", at(6 * SECOND))).toEqual([]);
      await done("two", "a");
      expect(await claim("one", at(7 * SECOND))).toEqual(["a"]);
      await done("one", "a");
      await store.supersedeRelays(r("ACME/widgets"), 42, "github");
      expect((await store.getRelay("a"))?.superseded).toBe(true);
      // Presented again (its command taken over by another replica, which answered there): shown again.
      await store.presentRelay("a", { commentId: 5 });
      expect((await store.getRelay("a"))?.superseded).toBe(false);
      expect(await claim("two", at(8 * SECOND))).toEqual(["a"]);
    });

    it("presented with no answer yet, makes nothing due", async () => {
      await store.createRelay(relay("a", 0));
      await store.presentRelay("a", { commentId: 5 });
      expect(await claim("one", at(SECOND))).toEqual([]);
    });

    it("keeps the relay it has when one of the same id is created again (a command's run taken over)", async () => {
      await store.createRelay(relay("a", 0));
      await store.updateRelay("a", { relayed: "queue", relayCommentUrl: "https://github.example/c/1" });
      await store.createRelay({ ...relay("a", 5 * SECOND), relay: { relayed: "queue" } });
      const kept = await store.getRelay("a");
      expect(kept?.relay).toEqual({ relayed: "queue", relayCommentUrl: "https://github.example/c/1" });
      expect(kept?.relayedAt).toEqual(at(0));
    });

    it("lets a lapsed claim be taken over, and forgets a relay deleted", async () => {
      await store.createRelay(relay("a", 0));
      await store.presentRelay("a", {});
      await store.recordRelayAnswer(answer(7, SECOND, SECOND, "x", null));
      expect(await claim("one", at(SECOND))).toEqual(["a"]);
      expect(await claim("two", at(30 * SECOND))).toEqual([]);
      expect(await claim("two", at(31 * SECOND))).toEqual(["a"]);
      await store.deleteRelay("a");
      expect(await store.getRelay("a")).toBeNull();
    });

    it("forgets relays a day after their deadline", async () => {
      await store.createRelay(relay("old", 0));
      await store.createRelay(relay("new", 2 * DAY));
      expect(await store.getRelay("old")).toBeNull();
      expect(await store.getRelay("new")).not.toBeNull();
    });

    it("lets exactly one of two concurrent claims win", async () => {
      await store.createRelay(relay("a", 0));
      await store.presentRelay("a", {});
      await store.recordRelayAnswer(answer(7, SECOND, SECOND, "x", null));
      const claims = await Promise.all(["one", "two"].map((o) => claim(o, at(SECOND))));
      expect(claims.flat()).toEqual(["a"]);
    });
  });
});
