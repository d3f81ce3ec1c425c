import { beforeEach, describe, expect, it } from "vitest";
import type { Subscription } from "../../../src/core/records.js";
import type { Store } from "../../../src/store/index.js";
import { at, DAY, r, storeContract } from "./harness.js";

storeContract("subscriptions", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  describe("subscriptions", () => {
    const sub: Subscription = {
      channelId: "C1",
      teamId: "T1",
      repository: r("acme/widgets"),
      branchGlob: null,
      groups: ["queue", "pause"],
      createdBy: "U1",
      createdAt: at(0),
    };

    it("creates, then updates filters keeping createdAt and createdBy", async () => {
      expect(await store.putSubscription(sub)).toEqual({ created: true });
      const update = {
        ...sub,
        branchGlob: "release/*",
        groups: ["checks"],
        createdBy: "U2",
        createdAt: at(DAY),
      };
      expect(await store.putSubscription(update)).toEqual({ created: false });
      const list = await store.listSubscriptions();
      expect(list).toEqual([{ ...sub, branchGlob: "release/*", groups: ["checks"] }]);
      expect(list[0]?.createdAt).toBeInstanceOf(Date);
    });

    it("keeps an empty group list and a null team", async () => {
      await store.putSubscription({ ...sub, teamId: null, groups: [] });
      expect(await store.listSubscriptions()).toEqual([{ ...sub, teamId: null, groups: [] }]);
    });

    it("treats repository names case-insensitively", async () => {
      await store.putSubscription({ ...sub, repository: r("Acme/Widgets") });
      expect(
        await store.putSubscription({ ...sub, repository: r("acme/WIDGETS"), groups: ["queue"] }),
      ).toEqual({
        created: false,
      });
      const list = await store.listSubscriptions({ repository: r("ACME/widgets") });
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject({ repository: r("acme/WIDGETS"), groups: ["queue"] });
      expect(await store.deleteSubscription("C1", r("ACME/WIDGETS"))).toBe(true);
      expect(await store.listSubscriptions()).toEqual([]);
      expect(await store.deleteSubscription("C1", r("acme/widgets"))).toBe(false);
    });

    it("lists by channel and repository filters, ordered by repository then channel", async () => {
      await store.putSubscription({ ...sub, channelId: "C2", repository: r("acme/widgets") });
      await store.putSubscription({ ...sub, channelId: "C1", repository: r("zeta/app") });
      await store.putSubscription({ ...sub, channelId: "C1", repository: r("Acme/Widgets") });
      await store.putSubscription({ ...sub, channelId: "C3", repository: r("acme/gadgets") });

      const pairs = (subs: Subscription[]) => subs.map((s) => `${s.repository}@${s.channelId}`);
      expect(pairs(await store.listSubscriptions())).toEqual([
        "acme/gadgets@C3",
        "Acme/Widgets@C1",
        "acme/widgets@C2",
        "zeta/app@C1",
      ]);
      expect(pairs(await store.listSubscriptions({ channelId: "C1" }))).toEqual([
        "Acme/Widgets@C1",
        "zeta/app@C1",
      ]);
      expect(pairs(await store.listSubscriptions({ repository: r("ACME/WIDGETS") }))).toEqual([
        "Acme/Widgets@C1",
        "acme/widgets@C2",
      ]);
      expect(
        pairs(await store.listSubscriptions({ channelId: "C2", repository: r("acme/widgets") })),
      ).toEqual(["acme/widgets@C2"]);
      expect(await store.listSubscriptions({ channelId: "C9" })).toEqual([]);
      // A batch of repositories (the poller's claim), in one query.
      expect(
        pairs(
          await store.listSubscriptions({
            repositories: [r("zeta/app"), r("ACME/widgets"), r("acme/widgets"), r("nobody/here")],
          }),
        ),
      ).toEqual(["Acme/Widgets@C1", "acme/widgets@C2", "zeta/app@C1"]);
      expect(await store.listSubscriptions({ repositories: [] })).toEqual([]);
      expect(
        pairs(
          await store.listSubscriptions({
            channelId: "C1",
            repositories: [r("acme/gadgets"), r("zeta/app")],
          }),
        ),
      ).toEqual(["zeta/app@C1"]);
    });

    it("lists distinct subscribed repositories, sorted", async () => {
      expect(await store.listSubscribedRepositories()).toEqual([]);
      await store.putSubscription({ ...sub, channelId: "C1", repository: r("zeta/app") });
      await store.putSubscription({ ...sub, channelId: "C1", repository: r("acme/widgets") });
      await store.putSubscription({ ...sub, channelId: "C2", repository: r("acme/widgets") });
      await store.putSubscription({ ...sub, channelId: "C3", repository: r("Acme/Widgets") });
      await store.putSubscription({ ...sub, channelId: "C3", repository: r("acme/gadgets") });
      const repos = await store.listSubscribedRepositories();
      expect(repos).toHaveLength(3);
      expect(repos.map((repo) => repo.key)).toEqual(["acme/gadgets", "acme/widgets", "zeta/app"]);
      await store.deleteSubscription("C1", r("zeta/app"));
      expect(await store.listSubscribedRepositories()).toHaveLength(2);
    });
  });
});
