import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { askPace, EMPTY_PACE, type WritePaceState } from "../../src/github/write-pace.js";
import { Repo } from "../../src/repo.js";
import {
  type IdentityLink,
  MIGRATIONS,
  type NotificationClaim,
  type OAuthState,
  openStore,
  openStoreAsIs,
  type Store,
  type Subscription,
  type ThreadRecord,
} from "../../src/store/index.js";
import { PG_URL } from "../helpers/postgres.js";

// The same contract, run against every implementation. Each PostgreSQL test gets its own fresh schema.

interface Harness {
  /** A fresh, empty, migrated store. */
  open(): Promise<Store>;
  /** A fresh database opened as it is, never migrated. */
  openAsIs(): Promise<Store>;
  /** Closes what `open` made and removes its data. */
  cleanup(): Promise<void>;
}

function sqliteHarness(): Harness {
  const stores: Store[] = [];
  return {
    async open() {
      const store = await openStore({ kind: "sqlite", path: ":memory:" });
      stores.push(store);
      return store;
    },
    async openAsIs() {
      const store = openStoreAsIs({ kind: "sqlite", path: ":memory:" });
      stores.push(store);
      return store;
    },
    async cleanup() {
      for (const store of stores.splice(0)) await store.close();
    },
  };
}

/** Connects an admin client, failing (not skipping) with a clear message when PostgreSQL is unreachable. */
async function connectPostgres(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    const e = error as { code?: string; message?: string };
    throw new Error(
      `PostgreSQL is not reachable at ${PG_URL.replace(/:[^:@/]*@/, ":***@")} (${e.code ?? e.message}). ` +
        "The PostgreSQL store tests need it (CI provides one): start PostgreSQL or set TEST_DATABASE_URL.",
    );
  }
  return client;
}

function postgresHarness(): Harness {
  let admin: pg.Client | undefined;
  let unreachable: Error | undefined;
  const stores: Store[] = [];
  const schemas: string[] = [];
  beforeAll(async () => {
    // Kept and thrown from each test's setup, so that every PostgreSQL test fails (none is skipped).
    admin = await connectPostgres().catch((error: Error) => {
      unreachable = error;
      return undefined;
    });
  });
  afterAll(async () => {
    await admin?.end();
  });
  return {
    async open() {
      if (!admin) throw unreachable ?? new Error("PostgreSQL is not connected");
      const schema = `ym_test_${randomBytes(6).toString("hex")}`;
      schemas.push(schema);
      const store = await openStore({ kind: "postgres", url: PG_URL, schema });
      stores.push(store);
      return store;
    },
    async openAsIs() {
      if (!admin) throw unreachable ?? new Error("PostgreSQL is not connected");
      const schema = `ym_test_${randomBytes(6).toString("hex")}`;
      const store = openStoreAsIs({ kind: "postgres", url: PG_URL, schema });
      stores.push(store);
      return store;
    },
    async cleanup() {
      for (const store of stores.splice(0)) await store.close();
      for (const schema of schemas.splice(0)) await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    },
  };
}

const T0 = new Date("2025-03-01T12:00:00.000Z");
const r = (fullName: string): Repo => Repo.from(fullName);
const at = (ms: number): Date => new Date(T0.getTime() + ms);
const SECOND = 1000;
const HOUR = 60 * 60 * SECOND;
const DAY = 24 * HOUR;
const MINUTE_MS = 60 * SECOND;

describe.each([
  { kind: "sqlite" as const, harness: sqliteHarness },
  { kind: "postgres" as const, harness: postgresHarness },
])("Store contract ($kind)", ({ kind, harness }) => {
  const h = harness();
  let store: Store;

  beforeEach(async () => {
    store = await h.open();
  });
  afterEach(async () => {
    await h.cleanup();
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

  describe("webhook deliveries", () => {
    it("claims a delivery id the first time only", async () => {
      expect(await store.claimDelivery("d-1", at(0))).toBe(true);
      expect(await store.claimDelivery("d-1", at(SECOND))).toBe(false);
      expect(await store.claimDelivery("d-2", at(SECOND))).toBe(true);
    });

    it("lets exactly one of two concurrent claims win", async () => {
      const results = await Promise.all([
        store.claimDelivery("d-race", at(0)),
        store.claimDelivery("d-race", at(0)),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it("forgets deliveries older than 7 days", async () => {
      expect(await store.claimDelivery("old", at(0))).toBe(true);
      expect(await store.claimDelivery("recent", at(2 * DAY))).toBe(true);
      expect(await store.claimDelivery("new", at(8 * DAY))).toBe(true); // prunes
      expect(await store.claimDelivery("old", at(8 * DAY))).toBe(true);
      expect(await store.claimDelivery("recent", at(8 * DAY))).toBe(false);
    });
  });

  describe("webhook jobs", () => {
    const job = (deliveryId: string, receivedAt = at(0)) => ({
      deliveryId,
      kind: "comment",
      installationId: 2_000_000_001,
      payload: { comment: { id: 7, body: "@yardmaster status" }, tags: ["é", 1] },
      receivedAt,
    });
    const A = { owner: "replica-a", until: at(30 * SECOND) };

    it("records a delivery's job once: a redelivery records nothing, and counts as a claimed delivery", async () => {
      expect(await store.recordWebhookJob(job("d-1"), A)).toBe(true);
      expect(await store.recordWebhookJob(job("d-1"), { owner: "replica-b", until: at(HOUR) })).toBe(false);
      expect(await store.claimDelivery("d-1", at(SECOND))).toBe(false);
      // A delivery claimed the old way is not recorded as a job either.
      expect(await store.claimDelivery("d-2", at(0))).toBe(true);
      expect(await store.recordWebhookJob(job("d-2"), A)).toBe(false);
      // Nobody else may take d-1 while its claim holds; once it lapsed, one replica may.
      expect(
        await store.claimLapsedWebhookJobs({ owner: "b", now: at(29 * SECOND), until: at(HOUR), limit: 10 }),
      ).toEqual([]);
      expect(
        await store.claimLapsedWebhookJobs({ owner: "b", now: at(30 * SECOND), until: at(HOUR), limit: 10 }),
      ).toEqual([job("d-1")]);
    });

    it("lets exactly one of two concurrent records of a delivery win", async () => {
      const results = await Promise.all([
        store.recordWebhookJob(job("d-race"), A),
        store.recordWebhookJob(job("d-race"), { owner: "replica-b", until: at(30 * SECOND) }),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it("renews and finishes a job only for the replica that holds it; a job done is never claimed again", async () => {
      await store.recordWebhookJob(job("d-1"), A);
      expect(await store.renewWebhookJob("d-1", "replica-b", at(HOUR))).toBe(false);
      expect(await store.renewWebhookJob("d-1", "replica-a", at(MINUTE_MS))).toBe(true);
      expect(
        await store.claimLapsedWebhookJobs({
          owner: "b",
          now: at(MINUTE_MS - 1),
          until: at(HOUR),
          limit: 10,
        }),
      ).toEqual([]);
      expect(await store.finishWebhookJob("d-1", "replica-b", at(SECOND))).toBe(false);
      expect(await store.finishWebhookJob("d-1", "replica-a", at(SECOND))).toBe(true);
      expect(await store.finishWebhookJob("d-1", "replica-a", at(SECOND))).toBe(false);
      expect(await store.renewWebhookJob("d-1", "replica-a", at(HOUR))).toBe(false);
      expect(
        await store.claimLapsedWebhookJobs({ owner: "b", now: at(DAY), until: at(2 * DAY), limit: 10 }),
      ).toEqual([]);
    });

    it("hands a lapsed job to one replica of two claiming at once, oldest first, up to the limit", async () => {
      await store.recordWebhookJob(job("d-late", at(2 * SECOND)), A);
      await store.recordWebhookJob(job("d-early", at(SECOND)), A);
      await store.recordWebhookJob(job("d-last", at(3 * SECOND)), A);
      expect(
        (
          await store.claimLapsedWebhookJobs({ owner: "b", now: at(MINUTE_MS), until: at(HOUR), limit: 2 })
        ).map((j) => j.deliveryId),
      ).toEqual(["d-early", "d-late"]);
      const [b, c] = await Promise.all([
        store.claimLapsedWebhookJobs({ owner: "b", now: at(2 * HOUR), until: at(3 * HOUR), limit: 10 }),
        store.claimLapsedWebhookJobs({ owner: "c", now: at(2 * HOUR), until: at(3 * HOUR), limit: 10 }),
      ]);
      expect([...b, ...c].map((j) => j.deliveryId).sort()).toEqual(["d-early", "d-last", "d-late"]);
      // The replica that took it over holds it now: the first one's renewal and finish fail.
      expect(await store.renewWebhookJob("d-early", "replica-a", at(4 * HOUR))).toBe(false);
      expect(await store.finishWebhookJob("d-early", "replica-a", at(2 * HOUR))).toBe(false);
    });

    it("forgets a delivery after 7 days: it is recorded again, as a job to run", async () => {
      await store.recordWebhookJob(job("d-1"), A);
      await store.finishWebhookJob("d-1", "replica-a", at(SECOND));
      await store.finishWebhookJob("d-2", "replica-a", at(2 * DAY)); // prunes the jobs done
      expect(await store.recordWebhookJob(job("d-1", at(2 * DAY)), A)).toBe(false);
      expect(await store.recordWebhookJob(job("d-1", at(8 * DAY)), A)).toBe(true);
      const lapsed = { owner: "b", now: at(9 * DAY), until: at(10 * DAY), limit: 10 };
      expect(await store.claimLapsedWebhookJobs(lapsed)).toEqual([job("d-1", at(8 * DAY))]);
    });
  });

  describe("Slack request signatures", () => {
    const MINUTE = 60 * SECOND;

    it("claims a signature the first time only", async () => {
      expect(await store.claimSlackSignature("v0=aa", at(0))).toBe(true);
      expect(await store.claimSlackSignature("v0=aa", at(SECOND))).toBe(false);
      expect(await store.claimSlackSignature("v0=bb", at(SECOND))).toBe(true);
      expect(await store.claimSlackSignature("v0=aa", at(2 * SECOND))).toBe(false);
    });

    it("lets exactly one of two concurrent claims win", async () => {
      const results = await Promise.all([
        store.claimSlackSignature("v0=race", at(0)),
        store.claimSlackSignature("v0=race", at(0)),
      ]);
      expect(results.sort()).toEqual([false, true]);
    });

    it("remembers a signature for 15 minutes, then takes a new claim of it", async () => {
      expect(await store.claimSlackSignature("v0=aa", at(0))).toBe(true);
      expect(await store.claimSlackSignature("v0=aa", at(10 * MINUTE))).toBe(false);
      expect(await store.claimSlackSignature("v0=aa", at(15 * MINUTE - 1))).toBe(false);
      expect(await store.claimSlackSignature("v0=aa", at(15 * MINUTE))).toBe(true);
      // The new claim starts a new 15 minutes.
      expect(await store.claimSlackSignature("v0=aa", at(20 * MINUTE))).toBe(false);
    });

    it("forgets signatures older than 15 minutes when it prunes", async () => {
      expect(await store.claimSlackSignature("v0=old", at(0))).toBe(true);
      expect(await store.claimSlackSignature("v0=recent", at(10 * MINUTE))).toBe(true);
      expect(await store.claimSlackSignature("v0=new", at(20 * MINUTE))).toBe(true); // prunes
      expect(await store.claimSlackSignature("v0=old", at(20 * MINUTE))).toBe(true);
      expect(await store.claimSlackSignature("v0=recent", at(20 * MINUTE))).toBe(false);
    });

    it("keeps signatures apart from webhook deliveries", async () => {
      expect(await store.claimDelivery("same", at(0))).toBe(true);
      expect(await store.claimSlackSignature("same", at(0))).toBe(true);
    });
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

  describe("poll schedule", () => {
    const subscribe = (repo: string, channelId = "C1") =>
      store.putSubscription({
        channelId,
        teamId: "T1",
        repository: r(repo),
        branchGlob: null,
        groups: ["queue"],
        createdBy: "U1",
        createdAt: at(0),
      });
    const claim = (owner: string, ms: number, limit = 10, leaseMs = 10 * SECOND) =>
      store.claimPolls({ owner, now: at(ms), leaseMs, limit });
    const names = (polls: { repository: Repo }[]) => polls.map((p) => p.repository.fullName).sort();
    const finish = (repo: string, owner: string, nextMs: number, extra: { activeUntil?: Date } = {}) =>
      store.finishPoll(r(repo), owner, {
        nextPollAt: at(nextMs),
        cadence: "interval",
        failures: 0,
        lastError: null,
        ...extra,
      });

    it("makes a newly subscribed repository due at once, and forgets it with its last subscription", async () => {
      expect(await claim("a", 0)).toEqual([]);
      await subscribe("Acme/Widgets");
      await subscribe("acme/widgets", "C2");
      const [poll, ...others] = await claim("a", 0);
      expect(others).toEqual([]);
      expect(poll).toMatchObject({
        repository: r("Acme/Widgets"),
        reason: "new",
        cadence: "new",
        claimedBy: "a",
        claimedUntil: at(10 * SECOND),
        failures: 0,
      });
      await store.deleteSubscription("C1", r("acme/widgets"));
      expect(await store.getPollSchedule(r("acme/widgets"))).not.toBeNull();
      await store.deleteSubscription("C2", r("ACME/widgets"));
      expect(await store.getPollSchedule(r("acme/widgets"))).toBeNull();
      expect(
        await store.ringDoorbell(r("acme/widgets"), { pollAt: at(1), recheckAt: at(2), activeUntil: at(3) }),
      ).toBeNull();
    });

    it("gives each due repository to one owner, until its claim ends or lapses", async () => {
      for (const repo of ["acme/a", "acme/b", "acme/c"]) await subscribe(repo);
      expect(names(await claim("a", 0, 2))).toHaveLength(2);
      expect(names(await claim("b", 0, 2))).toHaveLength(1);
      expect(await claim("b", 1)).toEqual([]);
      const held = await store.getPollSchedule(r("acme/a"));
      const owner = held?.claimedBy as string;
      // Another owner cannot finish or renew it.
      await finish("acme/a", owner === "a" ? "b" : "a", 0);
      expect(await store.renewPollClaim(r("acme/a"), owner === "a" ? "b" : "a", at(HOUR))).toBe(false);
      expect((await store.getPollSchedule(r("acme/a")))?.claimedBy).toBe(owner);
      // Its owner renews it; a lapsed claim (a killed replica) goes to whoever claims after it.
      expect(await store.renewPollClaim(r("acme/a"), owner, at(20 * SECOND))).toBe(true);
      expect(names(await claim("c", 15 * SECOND))).toEqual(["acme/b", "acme/c"]);
      expect(names(await claim("c", 20 * SECOND))).toEqual(["acme/a"]);
    });

    it("schedules the next read when the claim ends, and not before", async () => {
      await subscribe("acme/widgets");
      await claim("a", 0);
      await finish("acme/widgets", "a", 15 * SECOND);
      expect(await store.getPollSchedule(r("acme/widgets"))).toMatchObject({
        nextPollAt: at(15 * SECOND),
        cadence: "interval",
        claimedBy: null,
        claimedUntil: null,
      });
      expect(await claim("b", 15 * SECOND - 1)).toEqual([]);
      expect(await claim("b", 15 * SECOND)).toEqual([
        expect.objectContaining({ reason: "interval", claimedBy: "b" }),
      ]);
      await store.finishPoll(r("acme/widgets"), "b", {
        nextPollAt: at(HOUR),
        cadence: "retry",
        failures: 3,
        lastError: "merge queue answered 503",
      });
      expect(await store.getPollSchedule(r("acme/widgets"))).toMatchObject({
        cadence: "retry",
        failures: 3,
        lastError: "merge queue answered 503",
      });
    });

    it("reads a rung repository early, debounced, then once more, and puts it first", async () => {
      for (const repo of ["acme/a", "acme/b", "acme/widgets"]) await subscribe(repo);
      await claim("a", 0);
      for (const repo of ["acme/a", "acme/b", "acme/widgets"]) await finish(repo, "a", 5 * SECOND);
      const ring = (ms: number) =>
        store.ringDoorbell(r("ACME/widgets"), {
          pollAt: at(ms + 300),
          recheckAt: at(ms + 5 * SECOND),
          activeUntil: at(ms + 10 * 60 * SECOND),
        });
      expect(await ring(1000)).toMatchObject({ doorbellAt: at(1300), lastReadAt: at(0) });
      // A second event in the same burst: the first read still stands.
      expect(await ring(1100)).toMatchObject({ doorbellAt: at(1300), recheckAt: at(6100) });
      expect(await store.getPollSchedule(r("acme/widgets"))).toMatchObject({
        doorbellAt: at(1300),
        recheckAt: at(6100),
        activeUntil: at(1100 + 10 * 60 * SECOND),
      });
      expect(await claim("a", 1299)).toEqual([]);
      expect(await claim("a", 1300)).toEqual([expect.objectContaining({ reason: "doorbell" })]);
      await finish("acme/widgets", "a", 20 * SECOND);
      // At 6.1 s both the others' cadence and the recheck are due: the rung one comes first.
      const [first, ...rest] = await claim("a", 6100, 1);
      expect(first).toMatchObject({ repository: r("acme/widgets"), reason: "doorbell" });
      expect(rest).toEqual([]);
      await finish("acme/widgets", "a", 20 * SECOND);
      expect(await store.getPollSchedule(r("acme/widgets"))).toMatchObject({
        doorbellAt: null,
        recheckAt: null,
        nextPollAt: at(20 * SECOND),
      });
    });

    it("reads a rung repository at most once per minimum gap after its last read, across owners", async () => {
      await subscribe("acme/widgets");
      const gapClaim = (owner: string, ms: number) =>
        store.claimPolls({ owner, now: at(ms), leaseMs: 10 * SECOND, limit: 10, minGapMs: 2 * SECOND });
      expect(await gapClaim("a", 0)).toEqual([expect.objectContaining({ lastReadAt: at(0) })]);
      await finish("acme/widgets", "a", 15 * SECOND);
      const ring = (ms: number) =>
        store.ringDoorbell(r("acme/widgets"), {
          pollAt: at(ms + 300),
          recheckAt: at(ms + 5 * SECOND),
          activeUntil: at(ms + HOUR),
        });
      expect(await ring(200)).toMatchObject({ doorbellAt: at(500), lastReadAt: at(0) });
      // Its doorbell time has come, but the last read began less than the gap ago: not due, for anyone.
      expect(await gapClaim("b", 500)).toEqual([]);
      expect(await gapClaim("b", 1999)).toEqual([]);
      expect(await gapClaim("b", 2000)).toEqual([
        expect.objectContaining({ reason: "doorbell", claimedBy: "b", lastReadAt: at(2000) }),
      ]);
      await finish("acme/widgets", "b", 17 * SECOND);
      // The recheck (5.2 s) waits for the gap after the read at 2 s only if it comes sooner; here it does not.
      expect(await gapClaim("a", 5199)).toEqual([]);
      expect(await gapClaim("a", 5200)).toEqual([expect.objectContaining({ reason: "doorbell" })]);
      await finish("acme/widgets", "a", 20 * SECOND);
      // The cadence is not held back by the gap: it comes an interval after a read anyway.
      await ring(5300);
      expect(await gapClaim("b", 5600)).toEqual([]);
      expect(await gapClaim("b", 7200)).toEqual([expect.objectContaining({ reason: "doorbell" })]);
    });

    it("keeps a doorbell rung during a read for after it, and the latest activity", async () => {
      await subscribe("acme/widgets");
      await claim("a", 0);
      await store.ringDoorbell(r("acme/widgets"), {
        pollAt: at(300),
        recheckAt: at(5000),
        activeUntil: at(HOUR),
      });
      expect(await claim("b", 300)).toEqual([]); // still a's
      await finish("acme/widgets", "a", 15 * SECOND, { activeUntil: at(30 * 60 * SECOND) });
      expect(await store.getPollSchedule(r("acme/widgets"))).toMatchObject({ activeUntil: at(HOUR) });
      expect(await claim("b", 400)).toEqual([expect.objectContaining({ reason: "doorbell" })]);
      await finish("acme/widgets", "b", 15 * SECOND, { activeUntil: at(2 * HOUR) });
      expect(await store.getPollSchedule(r("acme/widgets"))).toMatchObject({ activeUntil: at(2 * HOUR) });
    });

    it("gives each repository to exactly one of several concurrent claims", async () => {
      for (let i = 0; i < 20; i++) await subscribe(`acme/repo-${i}`);
      const claims = await Promise.all(["a", "b", "c", "d"].map((owner) => claim(owner, 0, 8)));
      const all = claims.flatMap(names);
      expect(all).toHaveLength(20);
      expect(new Set(all).size).toBe(20);
    });
  });

  describe("poll cursors", () => {
    it("round-trips Dates and event ids, case-insensitively, and upserts", async () => {
      expect(await store.getPollCursor(r("acme/widgets"))).toBeNull();
      const cursor = {
        repository: r("Acme/Widgets"),
        receivedFrom: at(-DAY),
        seenEventIds: [101, 102, 9_007_199_254_740_991],
        updatedAt: at(0),
      };
      await store.putPollCursor(cursor);
      const got = await store.getPollCursor(r("acme/widgets"));
      expect(got).toEqual(cursor);
      expect(got?.receivedFrom).toBeInstanceOf(Date);
      expect(got?.updatedAt).toBeInstanceOf(Date);

      const next = {
        repository: r("acme/widgets"),
        receivedFrom: at(5 * SECOND),
        seenEventIds: [],
        updatedAt: at(HOUR),
      };
      await store.putPollCursor(next);
      expect(await store.getPollCursor(r("ACME/WIDGETS"))).toEqual(next);
      expect(await store.getPollCursor(r("acme/gadgets"))).toBeNull();
    });
  });

  describe("notification outbox", () => {
    const claim: NotificationClaim = {
      channelId: "C1",
      eventId: 4242,
      repository: r("acme/widgets"),
      pullRequest: 42,
      eventType: "action.queue.enter",
      payload: {
        event: { id: 4242, type: "action.queue.enter" },
        title: 'Fix <it> & "quote"',
        tags: [1, "two"],
      },
      claimedAt: at(0),
    };

    it("goes claimed -> pending -> sent", async () => {
      expect(await store.claimNotification(claim)).toBe("claimed");
      expect(await store.claimNotification({ ...claim, claimedAt: at(SECOND) })).toBe("pending");
      const pending = await store.listPendingNotifications(at(HOUR), 10);
      expect(pending).toEqual([{ ...claim, attempts: 2 }]);
      expect(pending[0]?.claimedAt).toBeInstanceOf(Date);

      await store.markNotificationSent({
        channelId: "C1",
        eventId: 4242,
        message: { ts: "1700000000.000100", threadTs: null },
        at: at(2 * SECOND),
      });
      expect(await store.claimNotification(claim)).toBe("sent");
      expect(await store.listPendingNotifications(at(HOUR), 10)).toEqual([]);
    });

    it("lists a channel's rows in their own order when they have one (GitHub's), else by their claim", async () => {
      const row = (eventId: number, claimedAt: Date, order?: { at: Date; seq: number }) => ({
        ...claim,
        eventId,
        claimedAt,
        ...(order ? { order } : {}),
      });
      // A pull request's checks were claimed before its entry, whose webhook came first; within one
      // millisecond, the receiving replica's count decides. Event ids (hashes) would say otherwise.
      const entered = row(-900, at(3 * SECOND), { at: at(SECOND), seq: 8 });
      const checks = row(-100, at(2 * SECOND), { at: at(SECOND), seq: 9 });
      const polledBefore = row(50, at(500));
      const polledAfter = row(40, at(2500));
      for (const n of [checks, polledAfter, entered, polledBefore]) await store.claimNotification(n);
      const listed = await store.listPendingNotifications(at(HOUR), 10, "C1");
      expect(listed.map((n) => n.eventId)).toEqual([50, -900, -100, 40]);
      expect(listed[1]).toEqual({ ...entered, attempts: 1 });
    });

    it("counts attempts on each claim of a pending row", async () => {
      await store.claimNotification(claim);
      expect((await store.listPendingNotifications(at(HOUR), 10))[0]?.attempts).toBe(1);
      await store.claimNotification(claim);
      await store.claimNotification(claim);
      expect((await store.listPendingNotifications(at(HOUR), 10))[0]?.attempts).toBe(3);
    });

    it("keeps channels apart for one event", async () => {
      expect(await store.claimNotification(claim)).toBe("claimed");
      expect(await store.claimNotification({ ...claim, channelId: "C2" })).toBe("claimed");
      await store.markNotificationSent({
        channelId: "C2",
        eventId: 4242,
        message: { ts: "1.2", threadTs: "1.1" },
        at: at(SECOND),
      });
      expect(await store.claimNotification(claim)).toBe("pending");
      expect(await store.claimNotification({ ...claim, channelId: "C2" })).toBe("sent");
    });

    it("releases a pending row so it is claimed again, but never a sent one", async () => {
      await store.claimNotification(claim);
      await store.releaseNotification("C1", 4242);
      expect(await store.listPendingNotifications(at(HOUR), 10)).toEqual([]);
      expect(await store.claimNotification(claim)).toBe("claimed");
      await store.markNotificationSent({
        channelId: "C1",
        eventId: 4242,
        message: { ts: "1.1", threadTs: null },
        at: at(SECOND),
      });
      await store.releaseNotification("C1", 4242);
      expect(await store.claimNotification(claim)).toBe("sent");
      await store.releaseNotification("C9", 1); // unknown: nothing happens
    });

    it("ignores marking an unknown notification sent", async () => {
      await store.markNotificationSent({
        channelId: "C1",
        eventId: 1,
        message: { ts: "1.1", threadTs: null },
        at: at(0),
      });
      expect(await store.claimNotification({ ...claim, eventId: 1 })).toBe("claimed");
    });

    it("lists pending rows claimed before `olderThan`, oldest first, up to `limit`, of all channels or one", async () => {
      const pause = {
        ...claim,
        eventId: 7,
        pullRequest: null,
        eventType: "queue.pause.create",
        payload: null,
      };
      await store.claimNotification({ ...claim, eventId: 3, claimedAt: at(2 * SECOND) });
      await store.claimNotification({ ...pause, channelId: "C2", claimedAt: at(SECOND) });
      await store.claimNotification({ ...claim, eventId: 5, claimedAt: at(3 * SECOND) });
      await store.claimNotification({ ...claim, eventId: 6, claimedAt: at(0) });
      await store.markNotificationSent({
        channelId: "C1",
        eventId: 6,
        message: { ts: "1.1", threadTs: null },
        at: at(SECOND),
      });

      const ids = (rows: { eventId: number }[]) => rows.map((r) => r.eventId);
      expect(ids(await store.listPendingNotifications(at(3 * SECOND), 10))).toEqual([7, 3]);
      expect(ids(await store.listPendingNotifications(at(4 * SECOND), 10))).toEqual([7, 3, 5]);
      expect(ids(await store.listPendingNotifications(at(4 * SECOND), 2))).toEqual([7, 3]);
      expect(ids(await store.listPendingNotifications(at(4 * SECOND), 10, "C1"))).toEqual([3, 5]);
      expect(ids(await store.listPendingNotifications(at(4 * SECOND), 10, "C2"))).toEqual([7]);
      expect(await store.listPendingNotifications(at(SECOND), 10)).toEqual([]);
      const [first] = await store.listPendingNotifications(at(2 * SECOND), 10);
      expect(first).toEqual({ ...pause, channelId: "C2", claimedAt: at(SECOND), attempts: 1 });
    });

    it("counts pending rows per channel with their oldest claim", async () => {
      expect(await store.pendingNotificationStats()).toEqual([]);
      await store.claimNotification({ ...claim, eventId: 1, claimedAt: at(2 * SECOND) });
      await store.claimNotification({ ...claim, eventId: 2, claimedAt: at(SECOND) });
      await store.claimNotification({ ...claim, eventId: 3, channelId: "C2", claimedAt: at(5 * SECOND) });
      await store.claimNotification({ ...claim, eventId: 4, channelId: "C2", claimedAt: at(0) });
      await store.markNotificationSent({
        channelId: "C2",
        eventId: 4,
        message: { ts: "1.0", threadTs: null },
        at: at(6 * SECOND),
      });
      expect(await store.pendingNotificationStats()).toEqual([
        { channelId: "C1", pending: 2, oldestClaimedAt: at(SECOND) },
        { channelId: "C2", pending: 1, oldestClaimedAt: at(5 * SECOND) },
      ]);
    });

    it("lets exactly one of two concurrent claims win", async () => {
      const results = await Promise.all([store.claimNotification(claim), store.claimNotification(claim)]);
      expect(results.sort()).toEqual(["claimed", "pending"]);
    });
  });

  describe("threads, recorded with the notification that started or changed them", () => {
    const thread: ThreadRecord = {
      channelId: "C1",
      repository: r("Acme/Widgets"),
      pullRequest: 42,
      parentTs: "1700000000.000100",
      state: { status: "queued", queue: "default", checks: [{ name: "ci", ok: true }] },
      parentStale: false,
      updatedAt: at(0),
    };
    let nextEventId = 1;

    /** Claims a notification of the thread's pull request and marks it sent with the thread. */
    async function recordThread(t: ThreadRecord): Promise<void> {
      const eventId = nextEventId++;
      await store.claimNotification({
        channelId: t.channelId,
        eventId,
        repository: t.repository,
        pullRequest: t.pullRequest,
        eventType: "action.queue.enter",
        payload: {},
        claimedAt: t.updatedAt,
      });
      await store.markNotificationSent({
        channelId: t.channelId,
        eventId,
        message: { ts: `${eventId}.0`, threadTs: null },
        thread: { parentTs: t.parentTs, state: t.state, parentStale: t.parentStale },
        at: t.updatedAt,
      });
    }

    it("round-trips and upserts, case-insensitively", async () => {
      expect(await store.getThread("C1", r("acme/widgets"), 42)).toBeNull();
      await recordThread(thread);
      const got = await store.getThread("C1", r("acme/widgets"), 42);
      expect(got).toEqual(thread);
      expect(got?.updatedAt).toBeInstanceOf(Date);

      const next = {
        ...thread,
        repository: r("acme/widgets"),
        state: { status: "merged" },
        updatedAt: at(HOUR),
      };
      await recordThread(next);
      expect(await store.getThread("C1", r("ACME/WIDGETS"), 42)).toEqual(next);
    });

    it("lists a repository's threads in channels with a prefix", async () => {
      await recordThread(thread);
      await recordThread({ ...thread, channelId: "dm:T1:U1", pullRequest: 7 });
      await recordThread({ ...thread, channelId: "dm:T1:U1", repository: r("acme/gadgets") });
      await recordThread({ ...thread, channelId: "dm:T1:U0", repository: r("ACME/widgets") });
      const listed = await store.listThreadsOfRepository(r("acme/WIDGETS"), "dm:");
      expect(listed.map((t) => `${t.channelId}#${t.pullRequest}`)).toEqual(["dm:T1:U0#42", "dm:T1:U1#7"]);
    });

    it("keeps pull requests and channels apart", async () => {
      await recordThread(thread);
      await recordThread({ ...thread, pullRequest: 43, parentTs: "2.0" });
      await recordThread({ ...thread, channelId: "C2", parentTs: "3.0" });
      expect((await store.getThread("C1", r("acme/widgets"), 42))?.parentTs).toBe(thread.parentTs);
      expect((await store.getThread("C1", r("acme/widgets"), 43))?.parentTs).toBe("2.0");
      expect((await store.getThread("C2", r("acme/widgets"), 42))?.parentTs).toBe("3.0");
      expect(await store.getThread("C2", r("acme/widgets"), 43)).toBeNull();
    });

    it("is keyed by the notification's own repository and pull request", async () => {
      await store.claimNotification({
        channelId: "C1",
        eventId: 7,
        repository: r("acme/widgets"),
        pullRequest: 42,
        eventType: "action.queue.checks_start",
        payload: {},
        claimedAt: at(0),
      });
      await store.markNotificationSent({
        channelId: "C1",
        eventId: 7,
        message: { ts: "2.0", threadTs: "1.0" },
        thread: { parentTs: "1.0", state: { status: "checks" } },
        at: at(SECOND),
      });
      expect(await store.getThread("C1", r("acme/widgets"), 42)).toEqual({
        channelId: "C1",
        repository: r("acme/widgets"),
        pullRequest: 42,
        parentTs: "1.0",
        state: { status: "checks" },
        parentStale: false,
        updatedAt: at(SECOND),
      });
    });

    it("lists stale parents, per channel or all, and clears one only for the state it was edited to", async () => {
      await recordThread({ ...thread, parentStale: true, updatedAt: at(2 * SECOND) });
      await recordThread({ ...thread, pullRequest: 43, parentStale: false });
      await recordThread({ ...thread, channelId: "C2", parentStale: true, updatedAt: at(SECOND) });
      expect((await store.listStaleThreads()).map((t) => [t.channelId, t.pullRequest])).toEqual([
        ["C2", 42],
        ["C1", 42],
      ]);
      const [stale] = await store.listStaleThreads("C1");
      expect(stale).toMatchObject({ channelId: "C1", pullRequest: 42, parentStale: true });

      // Recorded again (a newer reply) before the edit of the older state is marked: still stale.
      await recordThread({ ...thread, parentStale: true, state: { status: "merged" }, updatedAt: at(HOUR) });
      await store.markThreadParentEdited({ ...thread, updatedAt: at(2 * SECOND) });
      expect(await store.listStaleThreads("C1")).toHaveLength(1);
      await store.markThreadParentEdited({ ...thread, repository: r("ACME/widgets"), updatedAt: at(HOUR) });
      expect(await store.listStaleThreads("C1")).toEqual([]);
      expect(await store.getThread("C1", r("acme/widgets"), 42)).toMatchObject({
        parentStale: false,
        state: { status: "merged" },
      });
      expect((await store.listStaleThreads()).map((t) => t.channelId)).toEqual(["C2"]);
    });

    it("records no thread for an unknown notification, nor for one without a pull request", async () => {
      const thread = { parentTs: "1.0", state: {} };
      await store.markNotificationSent({
        channelId: "C1",
        eventId: 1,
        message: { ts: "1.0", threadTs: null },
        thread,
        at: at(0),
      });
      await store.claimNotification({
        channelId: "C1",
        eventId: 2,
        repository: r("acme/widgets"),
        pullRequest: null,
        eventType: "queue.pause.create",
        payload: {},
        claimedAt: at(0),
      });
      await store.markNotificationSent({
        channelId: "C1",
        eventId: 2,
        message: { ts: "2.0", threadTs: null },
        thread,
        at: at(0),
      });
      expect(await store.claimNotification({ ...claimOf(2), pullRequest: null })).toBe("sent");
      expect(await store.claimNotification(claimOf(1))).toBe("claimed");
      expect(await store.getThread("C1", r("acme/widgets"), 42)).toBeNull();
    });

    it("leaves the notification pending when its thread cannot be recorded", async () => {
      await store.claimNotification(claimOf(3));
      const unwritable = { parentTs: "1.0", state: { n: 1n } }; // JSON cannot hold a BigInt
      await expect(
        store.markNotificationSent({
          channelId: "C1",
          eventId: 3,
          message: { ts: "1.0", threadTs: null },
          thread: unwritable,
          at: at(SECOND),
        }),
      ).rejects.toThrow(/BigInt/);
      expect((await store.listPendingNotifications(at(HOUR), 10)).map((n) => n.eventId)).toEqual([3]);
      expect(await store.getThread("C1", r("acme/widgets"), 42)).toBeNull();
    });

    function claimOf(eventId: number): NotificationClaim {
      return {
        channelId: "C1",
        eventId,
        repository: r("acme/widgets"),
        pullRequest: 42,
        eventType: "action.queue.enter",
        payload: {},
        claimedAt: at(0),
      };
    }
  });

  describe("backoff", () => {
    it("round-trips, replaces and clears", async () => {
      expect(await store.getBackoff("repo:acme/widgets")).toBeNull();
      const backoff = {
        key: "repo:acme/widgets",
        failures: 1,
        nextAttemptAt: at(30 * SECOND),
        lastError: "403",
      };
      await store.putBackoff(backoff);
      const got = await store.getBackoff("repo:acme/widgets");
      expect(got).toEqual(backoff);
      expect(got?.nextAttemptAt).toBeInstanceOf(Date);

      const worse = { ...backoff, failures: 2, nextAttemptAt: at(HOUR), lastError: "channel_not_found" };
      await store.putBackoff(worse);
      expect(await store.getBackoff("repo:acme/widgets")).toEqual(worse);

      await store.clearBackoff("repo:acme/widgets");
      expect(await store.getBackoff("repo:acme/widgets")).toBeNull();
      await store.clearBackoff("channel:C1");
    });
  });

  describe("pause attributions", () => {
    it("keeps the latest pause or unpause per repository, case-insensitively", async () => {
      expect(await store.getPauseAttribution(r("acme/widgets"))).toBeNull();
      const paused = {
        repository: r("acme/widgets"),
        action: "pause" as const,
        reason: "release freeze",
        actor: "alice",
        surface: "slack" as const,
        at: at(SECOND),
      };
      await store.putPauseAttribution(paused);
      const got = await store.getPauseAttribution(r("ACME/Widgets"));
      expect(got).toEqual({ ...paused, resumesAt: null, scheduled: false });
      expect(got?.at).toBeInstanceOf(Date);
      const resumed = {
        ...paused,
        repository: r("Acme/Widgets"),
        action: "unpause" as const,
        reason: null,
        actor: "bob",
        surface: "github" as const,
        at: at(HOUR),
      };
      await store.putPauseAttribution(resumed);
      expect(await store.getPauseAttribution(r("acme/widgets"))).toEqual({
        ...resumed,
        resumesAt: null,
        scheduled: false,
      });
      expect(await store.getPauseAttribution(r("acme/gadgets"))).toBeNull();
    });

    it("keeps when a timed pause ends, and whether an unpause was its scheduled one", async () => {
      const timed = {
        repository: r("acme/widgets"),
        action: "pause" as const,
        reason: "release freeze",
        actor: "alice",
        surface: "github" as const,
        at: at(SECOND),
        resumesAt: at(2 * HOUR),
        scheduled: false,
      };
      await store.putPauseAttribution(timed);
      expect(await store.getPauseAttribution(r("acme/widgets"))).toEqual(timed);
      const resumed = { ...timed, action: "unpause" as const, at: at(2 * HOUR), scheduled: true };
      await store.putPauseAttribution(resumed);
      expect(await store.getPauseAttribution(r("acme/widgets"))).toEqual(resumed);
    });
  });

  describe("scheduled unpauses", () => {
    const unpause = (name: string, resumesIn: number, reason = "release freeze") => ({
      repository: r(name),
      reason,
      resumesAt: at(resumesIn),
      scheduledBy: "alice",
      surface: "slack" as const,
      createdAt: T0,
    });
    const claim = (owner: string, now: number, limit = 10) =>
      store.claimScheduledUnpauses({ owner, now: at(now), leaseMs: 30 * SECOND, limit });
    const names = (rows: { repository: Repo }[]) => rows.map((u) => u.repository.fullName);

    it("keeps one per repository, case-insensitively: a new pause replaces it, an unpause removes it", async () => {
      expect(await store.getScheduledUnpause(r("acme/widgets"))).toBeNull();
      await store.putScheduledUnpause(unpause("acme/widgets", HOUR));
      expect(await store.getScheduledUnpause(r("ACME/widgets"))).toEqual(unpause("acme/widgets", HOUR));
      await store.putScheduledUnpause(unpause("Acme/Widgets", 2 * HOUR, "incident"));
      expect(await store.getScheduledUnpause(r("acme/widgets"))).toEqual(
        unpause("Acme/Widgets", 2 * HOUR, "incident"),
      );
      expect(await store.deleteScheduledUnpause(r("acme/widgets"))).toBe(true);
      expect(await store.deleteScheduledUnpause(r("acme/widgets"))).toBe(false);
      expect(await store.getScheduledUnpause(r("acme/widgets"))).toBeNull();
    });

    it("is claimed once its time has come, soonest first, by one owner until done or lapsed", async () => {
      await store.putScheduledUnpause(unpause("acme/later", 2 * HOUR));
      await store.putScheduledUnpause(unpause("acme/widgets", HOUR));
      await store.putScheduledUnpause(unpause("acme/gadgets", HOUR - SECOND));
      expect(await claim("a", HOUR - 2 * SECOND)).toEqual([]);
      expect(names(await claim("a", HOUR))).toEqual(["acme/gadgets", "acme/widgets"]);
      // Claimed: nobody else gets them while the claim lasts.
      expect(await claim("b", HOUR + SECOND)).toEqual([]);
      expect(await store.renewScheduledUnpauseClaim(r("acme/widgets"), "b", at(HOUR + HOUR))).toBe(false);
      expect(await store.renewScheduledUnpauseClaim(r("acme/widgets"), "a", at(HOUR + 40 * SECOND))).toBe(
        true,
      );
      expect(await store.finishScheduledUnpause(r("acme/gadgets"), "b")).toBe(false);
      expect(await store.finishScheduledUnpause(r("acme/gadgets"), "a")).toBe(true);
      expect(await store.getScheduledUnpause(r("acme/gadgets"))).toBeNull();
      // a's claim of widgets (renewed to HOUR + 40 s) lapses: b takes it over.
      expect(await claim("b", HOUR + 39 * SECOND)).toEqual([]);
      expect(names(await claim("b", HOUR + 40 * SECOND))).toEqual(["acme/widgets"]);
      expect(await store.finishScheduledUnpause(r("acme/widgets"), "a")).toBe(false);
      expect(await store.getScheduledUnpause(r("acme/widgets"))).not.toBeNull();
    });

    it("forgets a claim when the pause is replaced, so the old claimer cannot finish the new one", async () => {
      await store.putScheduledUnpause(unpause("acme/widgets", HOUR));
      expect(names(await claim("a", HOUR))).toEqual(["acme/widgets"]);
      await store.putScheduledUnpause(unpause("acme/widgets", 3 * HOUR, "incident"));
      expect(await store.renewScheduledUnpauseClaim(r("acme/widgets"), "a", at(2 * HOUR))).toBe(false);
      expect(await store.finishScheduledUnpause(r("acme/widgets"), "a")).toBe(false);
      expect(await claim("a", HOUR + SECOND)).toEqual([]);
      expect(names(await claim("b", 3 * HOUR))).toEqual(["acme/widgets"]);
    });

    it("gives each scheduled unpause to exactly one of two racing claimers", async () => {
      for (let i = 0; i < 20; i++) await store.putScheduledUnpause(unpause(`acme/repo-${i}`, i * SECOND));
      for (let round = 0; round < 5; round++) {
        const claims = await Promise.all(["a", "b"].map((owner) => claim(owner, HOUR, 20)));
        const all = claims.flatMap(names);
        expect(new Set(all).size).toBe(all.length);
        if (round === 0) expect(all).toHaveLength(20);
        else expect(all).toEqual([]);
      }
    });
  });

  describe("stats days", () => {
    it("keeps each day's facts per repository, case-insensitively, and replaces them", async () => {
      expect(await store.getStatsDays(r("acme/widgets"), ["2026-11-20"])).toEqual(new Map());
      expect(await store.getStatsDays(r("acme/widgets"), [])).toEqual(new Map());
      const facts = { waits: [60, 120], leaves: [{ code: "CHECKS_FAILED", reason: "ci" }] };
      await store.putStatsDay(r("acme/widgets"), "2026-11-20", facts, at(SECOND));
      await store.putStatsDay(r("acme/widgets"), "2026-11-21", { waits: [] }, at(SECOND));
      await store.putStatsDay(r("acme/gadgets"), "2026-11-20", { waits: [1] }, at(SECOND));
      expect(await store.getStatsDays(r("ACME/Widgets"), ["2026-11-20", "2026-11-22"])).toEqual(
        new Map([["2026-11-20", facts]]),
      );
      await store.putStatsDay(r("Acme/Widgets"), "2026-11-20", { waits: [5] }, at(HOUR));
      expect(await store.getStatsDays(r("acme/widgets"), ["2026-11-20", "2026-11-21"])).toEqual(
        new Map<string, unknown>([
          ["2026-11-20", { waits: [5] }],
          ["2026-11-21", { waits: [] }],
        ]),
      );
    });
  });

  describe("stats days and digests, forgotten", () => {
    it("forgets a day's figures 100 days on, and a week's digest 90 days on", async () => {
      const widgets = r("acme/widgets");
      // T0 is 2025-03-01: 100 days later, the day before it is forgotten and it is not.
      await store.putStatsDay(widgets, "2025-02-28", { waits: [1] }, T0);
      await store.putStatsDay(widgets, "2025-03-01", { waits: [2] }, T0);
      await store.putStatsDay(widgets, "2025-06-09", { waits: [3] }, at(100 * DAY));
      expect([...(await store.getStatsDays(widgets, ["2025-02-28", "2025-03-01"])).keys()]).toEqual([
        "2025-03-01",
      ]);

      // 90 days after 2025-03-06, the week before it is forgotten (claimed anew) and it is not (sent).
      const week = { channelId: "C1", repository: widgets, owner: "a", now: T0, until: at(HOUR) };
      for (const w of ["2025-03-05", "2025-03-06"]) {
        expect(await store.claimDigest({ ...week, week: w })).toBe("new");
        await store.markDigestSent({ ...week, week: w, messageTs: "1.1", at: T0 });
      }
      const later = { ...week, now: at(95 * DAY), until: at(96 * DAY) };
      await store.claimDigest({ ...later, week: "2025-06-02" });
      expect(await store.claimDigest({ ...later, week: "2025-03-05" })).toBe("new");
      expect(await store.claimDigest({ ...later, week: "2025-03-06" })).toBeNull();
    });
  });

  describe("weekly digests", () => {
    const MINUTE = 60 * SECOND;
    const key = { channelId: "C1", repository: r("acme/widgets"), week: "2026-11-23" };
    const claim = (owner: string, now: Date) =>
      store.claimDigest({ ...key, owner, now, until: new Date(now.getTime() + MINUTE) });

    it("keeps a subscription's digest and when it was first asked for", async () => {
      const sub = {
        channelId: "C1",
        teamId: "T1",
        repository: r("acme/widgets"),
        branchGlob: null,
        groups: ["queue"],
        createdBy: "alice",
        createdAt: at(SECOND),
      };
      await store.putSubscription({ ...sub, digest: { cadence: "weekly" } });
      expect((await store.listSubscriptions({ channelId: "C1" }))[0]?.digest).toEqual({
        cadence: "weekly",
        since: at(SECOND),
      });
      // Asked for again later: it keeps its first time. Left out: off.
      await store.putSubscription({ ...sub, createdAt: at(HOUR), digest: { cadence: "weekly" } });
      expect((await store.listSubscriptions({ channelId: "C1" }))[0]?.digest?.since).toEqual(at(SECOND));
      await store.putSubscription({ ...sub, createdAt: at(HOUR) });
      expect((await store.listSubscriptions({ channelId: "C1" }))[0]?.digest).toBeUndefined();
      await store.putSubscription({ ...sub, createdAt: at(HOUR), digest: { cadence: "weekly" } });
      expect((await store.listSubscriptions({ channelId: "C1" }))[0]?.digest?.since).toEqual(at(HOUR));
    });

    it("gives a week's digest to one claimer, and to another only once the claim ran out unsent", async () => {
      const [a, b] = await Promise.all([claim("a", at(SECOND)), claim("b", at(SECOND))]);
      expect([a, b].sort()).toEqual(["new", null].sort());
      const winner = a === "new" ? "a" : "b";
      expect(await claim("c", at(30 * SECOND))).toBeNull();
      // The claim ran out without being marked sent: in doubt.
      expect(await claim("c", at(2 * MINUTE))).toBe("in-doubt");
      // The first claimer can no longer mark it; the new one can.
      await store.markDigestSent({ ...key, owner: winner, messageTs: "1.1", at: at(2 * MINUTE) });
      expect(await claim("d", at(10 * MINUTE))).toBe("in-doubt");
      await store.markDigestSent({ ...key, owner: "d", messageTs: "1.2", at: at(10 * MINUTE) });
      expect(await claim("e", at(HOUR))).toBeNull();
      // Another week, or another channel, is another digest.
      expect(
        await store.claimDigest({
          ...key,
          week: "2026-11-30",
          owner: "e",
          now: at(HOUR),
          until: at(2 * HOUR),
        }),
      ).toBe("new");
    });

    it("lets a claim be given up, to be claimed again at once", async () => {
      expect(await claim("a", at(SECOND))).toBe("new");
      await store.releaseDigest({ ...key, owner: "b" });
      expect(await claim("b", at(2 * SECOND))).toBeNull();
      await store.releaseDigest({ ...key, owner: "a" });
      expect(await claim("b", at(2 * SECOND))).toBe("new");
    });
  });

  describe("pull requests in GitHub's merge queue", () => {
    const ships = r("acme/Ships");
    it("remembers an entry and its latest merge group, per pull request, case-insensitively", async () => {
      expect(await store.getQueuePull(ships, 7)).toBeNull();
      // A merge group of a pull request never seen entering is not remembered.
      await store.rememberMergeGroup(ships, 7, "a".repeat(40));
      expect(await store.getQueuePull(ships, 7)).toBeNull();
      const entry = { repository: ships, number: 7, baseRef: "main", enteredAt: T0, deliveryId: "d1" };
      await store.rememberQueueEntry(entry);
      expect(await store.getQueuePull(r("ACME/ships"), 7)).toEqual({
        repository: ships,
        number: 7,
        baseRef: "main",
        enteredAt: T0,
        groupSha: null,
        removedBy: null,
      });
      await store.rememberMergeGroup(r("acme/ships"), 7, "b".repeat(40));
      expect((await store.getQueuePull(ships, 7))?.groupSha).toBe("b".repeat(40));
      expect(await store.getQueuePull(ships, 8)).toBeNull();
      // Who asked Yardmaster to dequeue it, when.
      await store.rememberRemoval(ships, 7, { login: "alice", at: at(SECOND) });
      await store.rememberRemoval(ships, 8, { login: "alice", at: at(SECOND) });
      expect((await store.getQueuePull(ships, 7))?.removedBy).toEqual({ login: "alice", at: at(SECOND) });
      expect(await store.getQueuePull(ships, 8)).toBeNull();
      // The same entry redelivered (later) changes nothing.
      await store.rememberQueueEntry({ ...entry, enteredAt: at(HOUR) });
      expect(await store.getQueuePull(ships, 7)).toMatchObject({ enteredAt: T0, groupSha: "b".repeat(40) });
      // Entering again starts over: the old group says nothing of the new entry.
      await store.rememberQueueEntry({ ...entry, baseRef: "release", enteredAt: at(HOUR), deliveryId: "d2" });
      expect(await store.getQueuePull(ships, 7)).toMatchObject({
        baseRef: "release",
        groupSha: null,
        removedBy: null,
      });
    });

    it("forgets entries older than 30 days, when a later one is remembered", async () => {
      const entry = { repository: ships, baseRef: "main" };
      await store.rememberQueueEntry({ ...entry, number: 1, enteredAt: at(DAY - 1), deliveryId: "d1" });
      await store.rememberQueueEntry({ ...entry, number: 2, enteredAt: at(DAY), deliveryId: "d2" });
      await store.rememberQueueEntry({ ...entry, number: 3, enteredAt: at(31 * DAY), deliveryId: "d3" });
      expect(await store.getQueuePull(ships, 1)).toBeNull();
      expect(await store.getQueuePull(ships, 2)).not.toBeNull();
    });
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

    it("shows an answer once presented, one owner at a time, until a later command supersedes it", async () => {
      await store.createRelay(relay("a", 0));
      await store.recordRelayAnswer(answer(7, SECOND, SECOND, "refused", null));
      expect(await store.claimRelayAnswer("a", "one", at(2 * SECOND), 30 * SECOND)).toBeNull();
      expect(await store.listUnappliedRelays(at(2 * SECOND), 10)).toEqual([]);
      await store.presentRelay("a", { commentId: 5 });
      expect((await store.listUnappliedRelays(at(2 * SECOND), 10)).map((x) => x.id)).toEqual(["a"]);
      const claimed = await store.claimRelayAnswer("a", "one", at(2 * SECOND), 30 * SECOND);
      expect(claimed).toMatchObject({ id: "a", presentation: { commentId: 5 }, answerVersion: 1 });
      expect(await store.claimRelayAnswer("a", "two", at(3 * SECOND), 30 * SECOND)).toBeNull();
      expect(await store.listUnappliedRelays(at(3 * SECOND), 10)).toEqual([]);
      await store.releaseRelayAnswer("a", "two", 1);
      expect((await store.getRelay("a"))?.appliedVersion).toBe(0);
      await store.releaseRelayAnswer("a", "one", 1);
      expect((await store.getRelay("a"))?.appliedVersion).toBe(1);
      expect(await store.claimRelayAnswer("a", "two", at(4 * SECOND), 30 * SECOND)).toBeNull();
      await store.recordRelayAnswer(answer(7, SECOND, 5 * SECOND, "edited", null));
      await store.supersedeRelays(r("ACME/widgets"), 42, "github");
      expect((await store.getRelay("a"))?.superseded).toBe(true);
      expect(await store.claimRelayAnswer("a", "two", at(6 * SECOND), 30 * SECOND)).toBeNull();
    });

    it("lets a lapsed lease be taken over, and forgets a relay deleted", async () => {
      await store.createRelay(relay("a", 0));
      await store.presentRelay("a", {});
      await store.recordRelayAnswer(answer(7, SECOND, SECOND, "x", null));
      expect(await store.claimRelayAnswer("a", "one", at(SECOND), 30 * SECOND)).not.toBeNull();
      expect(await store.claimRelayAnswer("a", "two", at(32 * SECOND), 30 * SECOND)).not.toBeNull();
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
      const claims = await Promise.all(
        ["one", "two"].map((o) => store.claimRelayAnswer("a", o, at(SECOND), 30 * SECOND)),
      );
      expect(claims.filter((c) => c !== null)).toHaveLength(1);
    });
  });

  describe("the GitHub App's write pace, shared by replicas", () => {
    const LIMITS = { intervalMs: SECOND, content: [{ limit: 80, windowMs: 60 * SECOND }] };
    const edit = { rank: 0, content: false, count: 1 };
    const ask = (replica: string, ms: number, app = "1") =>
      store.updateGitHubWritePace(app, (state) =>
        askPace(state, { replica, now: at(ms).getTime(), kinds: [edit] }, LIMITS),
      );

    it("starts from nothing, and keeps what each change leaves for the next, per app", async () => {
      const seen = await store.updateGitHubWritePace("1", (state) => ({ state, result: state }));
      expect(seen).toEqual(EMPTY_PACE);
      const kept: WritePaceState = {
        lastStartAt: at(0).getTime(),
        blockedUntil: at(30 * SECOND).getTime(),
        contentStarts: [at(-SECOND).getTime(), at(0).getTime()],
        waiting: { b: { kinds: [{ rank: 2, content: true, count: 3 }], until: at(5 * SECOND).getTime() } },
      };
      await store.updateGitHubWritePace("1", () => ({ state: kept, result: undefined }));
      expect(await store.updateGitHubWritePace("1", (state) => ({ state, result: state }))).toEqual(kept);
      expect(await store.updateGitHubWritePace("2", (state) => ({ state, result: state }))).toEqual(
        EMPTY_PACE,
      );
    });

    it("gives one start to one of several replicas asking at the same instant", async () => {
      const answers = await Promise.all(["a", "b", "c", "d", "e", "f"].map((replica) => ask(replica, 0)));
      expect(answers.filter((a) => "go" in a)).toHaveLength(1);
      expect(answers.filter((a) => "askAt" in a)).toEqual(Array(5).fill({ askAt: at(SECOND).getTime() }));
    });

    it("never gives two replicas asking over and over starts closer than the interval", async () => {
      const starts: number[] = [];
      for (let round = 0; round < 20; round++) {
        const ms = round * 250;
        const answers = await Promise.all(["a", "b"].map((replica) => ask(replica, ms)));
        for (const answer of answers) if ("go" in answer) starts.push(ms);
      }
      expect(starts).toEqual([0, 1_000, 2_000, 3_000, 4_000]);
    });
  });

  describe("summary comments, one per issue across replicas", () => {
    const widgets = r("acme/widgets");
    const claim = (owner: string, ms: number, issueNumber = 7, repository = widgets) =>
      store.claimSummaryComment({ repository, issueNumber, owner, now: at(ms), until: at(ms + 30 * SECOND) });

    it("is claimed by one replica, held for the others, and known to all once recorded", async () => {
      expect(await store.getSummaryComment(widgets, 7)).toBeNull();
      expect(await claim("a", 0)).toBe("claimed");
      expect(await claim("b", SECOND)).toBe("held");
      expect(await claim("a", 2 * SECOND)).toBe("claimed"); // renewed by its holder
      expect(await claim("a", 0, 8)).toBe("claimed"); // another issue
      await store.recordSummaryComment(r("ACME/Widgets"), 7, 4_000_000_001, at(3 * SECOND));
      expect(await store.getSummaryComment(widgets, 7)).toBe(4_000_000_001);
      expect(await claim("b", 4 * SECOND)).toEqual({ commentId: 4_000_000_001 });
      expect(await claim("a", 4 * SECOND)).toEqual({ commentId: 4_000_000_001 });
    });

    it("is taken over once a claim runs out, and released only by its holder", async () => {
      expect(await claim("a", 0)).toBe("claimed");
      expect(await claim("b", 30 * SECOND)).toBe("claimed");
      await store.releaseSummaryClaim(widgets, 7, "a");
      expect(await claim("a", 31 * SECOND)).toBe("held");
      await store.releaseSummaryClaim(widgets, 7, "b");
      expect(await claim("a", 32 * SECOND)).toBe("claimed");
    });

    it("forgets a recorded comment only if it is still the one recorded", async () => {
      await store.recordSummaryComment(widgets, 7, 11, at(0));
      await store.forgetSummaryComment(widgets, 7, 10);
      expect(await store.getSummaryComment(widgets, 7)).toBe(11);
      await store.releaseSummaryClaim(widgets, 7, "a");
      expect(await store.getSummaryComment(widgets, 7)).toBe(11);
      await store.forgetSummaryComment(widgets, 7, 11);
      expect(await store.getSummaryComment(widgets, 7)).toBeNull();
      expect(await claim("b", SECOND)).toBe("claimed");
    });

    it("goes to exactly one of several concurrent claims", async () => {
      const claims = await Promise.all(["a", "b", "c", "d"].map((owner) => claim(owner, 0)));
      expect(claims.filter((c) => c === "claimed")).toHaveLength(1);
      expect(claims.filter((c) => c === "held")).toHaveLength(3);
    });
  });
});
