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

  describe("revising", () => {
    it("replaces an open episode's facts once of two replicas at once, and never a closed one's", async () => {
      await store.openHealthEpisode(episode("acme/widgets"));
      const ref = { repository: r("acme/widgets"), kind: "stalled", key: "queue" };
      await store.addHealthEpisodePosts(ref, [{ channel: "C1", ts: "1.000100" }], at(HOUR));
      const facts = { waiting: [1, 2, 3], holding: null };
      const revised = await Promise.all([
        store.reviseHealthEpisode(ref, facts, at(HOUR), at(2 * HOUR)),
        store.reviseHealthEpisode(ref, { waiting: [9] }, at(HOUR), at(2 * HOUR)),
      ]);
      const won = revised.filter((e) => e !== null);
      expect(won).toHaveLength(1);
      expect(won[0]).toMatchObject({
        posts: [{ channel: "C1", ts: "1.000100" }],
        lastPostedAt: at(2 * HOUR),
      });
      const [kept] = await store.listHealthEpisodes(r("acme/widgets"));
      expect(kept?.facts).toEqual(won[0]?.facts);
      // Stale: another replica revised it since.
      expect(await store.reviseHealthEpisode(ref, facts, at(HOUR), at(3 * HOUR))).toBeNull();
      await store.closeHealthEpisode(ref, "it ended", at(3 * HOUR));
      expect(await store.reviseHealthEpisode(ref, facts, at(2 * HOUR), at(4 * HOUR))).toBeNull();
    });
  });

  describe("posts, reminders and closing", () => {
    it("keeps the posts, and closes once with the posts to edit", async () => {
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

      const closed = await Promise.all([
        store.closeHealthEpisode(ref, "it ended: #1 merged.", at(2 * DAY)),
        store.closeHealthEpisode(ref, "it ended: #1 merged.", at(2 * DAY)),
      ]);
      const winners = closed.filter((c) => c !== null);
      expect(winners).toHaveLength(1);
      expect(winners[0]?.posts).toHaveLength(2);
      expect(await store.listHealthEpisodes()).toEqual([]);
    });

    it("does not open the same episode (same start) again within the hour after it closed; another start opens at once", async () => {
      await store.openHealthEpisode(episode("acme/widgets"));
      const ref = { repository: r("acme/widgets"), kind: "stalled", key: "queue" };
      await store.closeHealthEpisode(ref, "it ended.", at(2 * HOUR));
      expect(await store.openHealthEpisode({ ...episode("acme/widgets"), openedAt: at(2 * HOUR + 1) })).toBe(
        false,
      );
      expect(await store.listHealthEpisodes()).toEqual([]);
      expect(await store.openHealthEpisode({ ...episode("acme/widgets"), openedAt: at(3 * HOUR + 1) })).toBe(
        true,
      );
      await store.closeHealthEpisode(ref, "it ended.", at(4 * HOUR));
      const later = { ...episode("acme/widgets"), since: at(4 * HOUR), openedAt: at(4 * HOUR + 1) };
      expect(await store.openHealthEpisode(later)).toBe(true);
      expect(await store.listHealthEpisodes()).toMatchObject([{ since: at(4 * HOUR), posts: [] }]);
    });

    it("keeps both of two appends at once, and hands back a post recorded after the closing with how it ended", async () => {
      await store.openHealthEpisode(episode("acme/widgets"));
      const ref = { repository: r("acme/widgets"), kind: "stalled", key: "queue" };
      const recorded = await Promise.all([
        store.addHealthEpisodePosts(ref, [{ channel: "C1", ts: "1.000100" }], at(HOUR)),
        store.addHealthEpisodePosts(ref, [{ channel: "C2", ts: "2.000200" }], at(HOUR)),
      ]);
      expect(recorded).toEqual([{ recorded: true }, { recorded: true }]);
      const closed = await store.closeHealthEpisode(ref, "it ended: #1 merged.", at(2 * HOUR));
      expect(closed?.posts.map((p) => p.channel).sort()).toEqual(["C1", "C2"]);
      expect(
        await store.addHealthEpisodePosts(ref, [{ channel: "C3", ts: "3.000300" }], at(2 * HOUR)),
      ).toEqual({
        recorded: false,
        ending: "it ended: #1 merged.",
      });
      const gone = { repository: r("acme/gadgets"), kind: "stalled", key: "queue" };
      expect(await store.addHealthEpisodePosts(gone, [{ channel: "C1", ts: "4.0" }], at(HOUR))).toEqual({
        recorded: false,
        ending: null,
      });
    });

    it("lists a closed episode whose edit was taken on long enough ago and not done, until recorded as edited", async () => {
      await store.openHealthEpisode(episode("acme/widgets"));
      await store.openHealthEpisode(episode("acme/gadgets"));
      const ref = { repository: r("acme/widgets"), kind: "stalled", key: "queue" };
      const done = { repository: r("acme/gadgets"), kind: "stalled", key: "queue" };
      await store.addHealthEpisodePosts(ref, [{ channel: "C1", ts: "1.000100" }], at(HOUR));
      const closed = await store.closeHealthEpisode(ref, "it ended.", at(2 * HOUR));
      expect(closed).toMatchObject({
        closedAt: at(2 * HOUR),
        ending: "it ended.",
        lastPostedAt: at(2 * HOUR),
      });
      const other = await store.closeHealthEpisode(done, "it ended.", at(2 * HOUR));
      await store.recordHealthEndingEdited(other as never);

      expect(await store.listUneditedHealthEpisodes(at(HOUR))).toEqual([]);
      const [unedited, ...rest] = await store.listUneditedHealthEpisodes(at(2 * HOUR));
      expect(rest).toEqual([]);
      expect(unedited).toMatchObject({
        key: "queue",
        ending: "it ended.",
        posts: [{ channel: "C1", ts: "1.000100" }],
      });
      expect(unedited?.repository.key).toBe(r("acme/widgets").key);
      // Listed until recorded as done (a replica takes it over by a once-claim).
      expect(await store.listUneditedHealthEpisodes(at(3 * HOUR))).toHaveLength(1);
      await store.recordHealthEndingEdited(unedited as never);
      expect(await store.listUneditedHealthEpisodes(at(DAY))).toEqual([]);
      // Open episodes are never listed.
      await store.openHealthEpisode(episode("acme/other"));
      expect(await store.listUneditedHealthEpisodes(at(DAY))).toEqual([]);
    });
  });
});
