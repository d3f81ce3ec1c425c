import { beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../../src/store/index.js";
import { at, DAY, HOUR, r, storeContract, T0 } from "./harness.js";

storeContract("health episodes", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  const episode = (repository: string, key = "queue", openedBy = "replica-a") => ({
    repository: r(repository),
    kind: "stalled",
    key,
    since: T0,
    openedAt: at(HOUR),
    openedBy,
    facts: { waiting: [1, 2], holding: { kind: "checks", pull: 1 } },
  });

  describe("opening", () => {
    it("opens an episode once per repository, kind and key: of two replicas at once, one opens it", async () => {
      const opened = await Promise.all([
        store.openHealthEpisode(episode("acme/widgets", "queue", "replica-a")),
        store.openHealthEpisode(episode("ACME/Widgets", "queue", "replica-b")),
      ]);
      expect(opened.filter(Boolean)).toHaveLength(1);
      expect(await store.openHealthEpisode(episode("acme/widgets"))).toBe(false);
      // Another key, another repository: episodes of their own.
      expect(await store.openHealthEpisode(episode("acme/widgets", "ci/test"))).toBe(true);
      expect(await store.openHealthEpisode(episode("acme/gadgets"))).toBe(true);

      const listed = await store.listHealthEpisodes(r("Acme/Widgets"));
      expect(listed.map((e) => e.key).sort()).toEqual(["ci/test", "queue"]);
      expect(listed.find((e) => e.key === "queue")).toMatchObject({
        kind: "stalled",
        since: T0,
        openedAt: at(HOUR),
        facts: { waiting: [1, 2], holding: { kind: "checks", pull: 1 } },
        posts: [],
        lastPostedAt: at(HOUR),
      });
      expect(await store.listHealthEpisodes()).toHaveLength(3);
    });
  });

  describe("posts, reminders and closing", () => {
    it("keeps the posts, lets one replica remind, and closes once with the posts to edit", async () => {
      await store.openHealthEpisode(episode("acme/widgets"));
      const ref = { repository: r("acme/widgets"), kind: "stalled", key: "queue" };
      await store.addHealthEpisodePosts(ref, [{ channel: "C1", ts: "1.000100" }], at(HOUR));
      await store.addHealthEpisodePosts(ref, [{ channel: "C2", ts: "2.000200" }], at(HOUR));
      const [kept] = await store.listHealthEpisodes(r("acme/widgets"));
      expect(kept?.posts).toEqual([
        { channel: "C1", ts: "1.000100" },
        { channel: "C2", ts: "2.000200" },
      ]);
      expect(kept?.lastPostedAt).toEqual(at(HOUR));

      const reminded = await Promise.all([
        store.claimHealthReminder(ref, at(HOUR), at(DAY + HOUR)),
        store.claimHealthReminder(ref, at(HOUR), at(DAY + HOUR)),
      ]);
      expect(reminded.filter(Boolean)).toHaveLength(1);
      expect(await store.claimHealthReminder(ref, at(HOUR), at(DAY + 2 * HOUR))).toBe(false);

      const closed = await Promise.all([store.closeHealthEpisode(ref), store.closeHealthEpisode(ref)]);
      const winners = closed.filter((c) => c !== null);
      expect(winners).toHaveLength(1);
      expect(winners[0]?.posts).toHaveLength(2);
      expect(await store.listHealthEpisodes()).toEqual([]);
      // Once closed, it may open again (a new episode).
      expect(await store.openHealthEpisode(episode("acme/widgets"))).toBe(true);
    });
  });
});
