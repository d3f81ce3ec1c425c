import { beforeEach, describe, expect, it } from "vitest";
import type { OAuthState } from "../../../src/core/records.js";
import type { IdentityLink, Store } from "../../../src/store/index.js";
import { at, DAY, HOUR, r, SECOND, storeContract } from "./harness.js";

storeContract("identities", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  describe("identity links", () => {
    const link: IdentityLink = {
      teamId: "T1",
      slackUserId: "U1",
      githubLogin: "octocat",
      githubId: 583231,
      linkedAt: at(0),
    };

    it("returns null for an unknown link", async () => {
      expect(await store.getLink("T1", "U1")).toBeNull();
    });

    it("stores and returns a link with a Date", async () => {
      await store.putLink(link);
      const got = await store.getLink("T1", "U1");
      expect(got).toEqual(link);
      expect(got?.linkedAt).toBeInstanceOf(Date);
    });

    it("upserts on (teamId, slackUserId) and keeps teams apart", async () => {
      await store.putLink(link);
      await store.putLink({ ...link, teamId: "T2", githubLogin: "other", githubId: 2 });
      const relinked = { ...link, githubLogin: "hubot", githubId: 9_007_199_254_740_991, linkedAt: at(DAY) };
      await store.putLink(relinked);
      expect(await store.getLink("T1", "U1")).toEqual(relinked);
      expect(await store.getLink("T2", "U1")).toMatchObject({ githubLogin: "other", githubId: 2 });
    });

    it("deletes a link once", async () => {
      await store.putLink(link);
      expect(await store.deleteLink("T1", "U1")).toBe(true);
      expect(await store.getLink("T1", "U1")).toBeNull();
      expect(await store.deleteLink("T1", "U1")).toBe(false);
    });
  });

  describe("identity links by GitHub login", () => {
    it("finds every Slack user linked to a login, case-insensitively, and nobody else", async () => {
      const base = { githubId: 1, linkedAt: at(0) };
      await store.putLink({ ...base, teamId: "T2", slackUserId: "U9", githubLogin: "OctoCat" });
      await store.putLink({ ...base, teamId: "T1", slackUserId: "U1", githubLogin: "octocat" });
      await store.putLink({ ...base, teamId: "T1", slackUserId: "U2", githubLogin: "octocats" });
      const found = await store.listLinksByGithubLogin("OCTOCAT");
      expect(found.map((l) => `${l.teamId}/${l.slackUserId}`)).toEqual(["T1/U1", "T2/U9"]);
      expect(await store.listLinksByGithubLogin("hubot")).toEqual([]);
    });
  });

  describe("notice preferences", () => {
    const prefs = {
      teamId: "T1",
      slackUserId: "U1",
      enabled: false,
      groups: ["queue", "pause"],
      mutedRepositories: [r("Acme/Widgets")],
      updatedAt: at(0),
    };

    it("returns null until set, then round-trips and upserts per user", async () => {
      expect(await store.getNoticePreferences("T1", "U1")).toBeNull();
      await store.putNoticePreferences(prefs);
      const got = await store.getNoticePreferences("T1", "U1");
      expect(got).toEqual(prefs);
      expect(got?.mutedRepositories[0]?.fullName).toBe("Acme/Widgets");
      const changed = {
        ...prefs,
        enabled: true,
        groups: ["checks"],
        mutedRepositories: [],
        updatedAt: at(DAY),
      };
      await store.putNoticePreferences(changed);
      await store.putNoticePreferences({ ...prefs, slackUserId: "U2" });
      expect(await store.getNoticePreferences("T1", "U1")).toEqual(changed);
      expect((await store.listNoticePreferences()).map((p) => p.slackUserId)).toEqual(["U1", "U2"]);
    });
  });

  describe("OAuth states", () => {
    const state: OAuthState = {
      state: "s-1",
      teamId: "T1",
      slackUserId: "U1",
      channelId: "C1",
      responseUrl: "https://hooks.slack.test/commands/1",
      expiresAt: at(10 * 60 * SECOND),
    };

    it("is consumed once, before it expires", async () => {
      await store.createOAuthState(state);
      const got = await store.consumeOAuthState("s-1", at(SECOND));
      expect(got).toEqual(state);
      expect(got?.expiresAt).toBeInstanceOf(Date);
      expect(await store.consumeOAuthState("s-1", at(2 * SECOND))).toBeNull();
    });

    it("keeps null channel and response URL", async () => {
      const bare = { ...state, state: "s-2", channelId: null, responseUrl: null };
      await store.createOAuthState(bare);
      expect(await store.consumeOAuthState("s-2", at(0))).toEqual(bare);
    });

    it("keeps who signed in on a confirmation's state, and it too is consumed once", async () => {
      const confirmation: OAuthState = {
        ...state,
        state: "confirm-1",
        signedIn: { githubLogin: "octocat", githubId: 9_007_199_254 },
      };
      await store.createOAuthState(confirmation);
      expect(await store.consumeOAuthState("confirm-1", at(SECOND))).toEqual(confirmation);
      expect(await store.consumeOAuthState("confirm-1", at(SECOND))).toBeNull();
      // A sign-in link's state has nobody signed in yet.
      await store.createOAuthState(state);
      expect((await store.consumeOAuthState("s-1", at(SECOND)))?.signedIn).toBeUndefined();
    });

    it("returns null for an unknown state", async () => {
      expect(await store.consumeOAuthState("nope", at(0))).toBeNull();
    });

    it("returns null once expired, and the state is gone", async () => {
      await store.createOAuthState(state);
      expect(await store.consumeOAuthState("s-1", state.expiresAt)).toBeNull();
      expect(await store.consumeOAuthState("s-1", at(0))).toBeNull();
    });

    it("sweeps other expired states", async () => {
      await store.createOAuthState({ ...state, state: "old", expiresAt: at(SECOND) });
      await store.createOAuthState({ ...state, state: "fresh", expiresAt: at(DAY) });
      expect(await store.consumeOAuthState("unrelated", at(HOUR))).toBeNull();
      expect(await store.consumeOAuthState("old", at(0))).toBeNull();
      expect(await store.consumeOAuthState("fresh", at(0))).not.toBeNull();
    });

    it("refuses a duplicate state value", async () => {
      await store.createOAuthState(state);
      await expect(store.createOAuthState(state)).rejects.toThrow();
    });

    it("lets exactly one of two concurrent consumes win", async () => {
      for (let i = 0; i < 10; i++) {
        await store.createOAuthState({ ...state, state: `race-${i}` });
      }
      for (let i = 0; i < 10; i++) {
        const results = await Promise.all([
          store.consumeOAuthState(`race-${i}`, at(SECOND)),
          store.consumeOAuthState(`race-${i}`, at(SECOND)),
        ]);
        expect(results.filter((r) => r !== null)).toHaveLength(1);
      }
    });
  });
});
