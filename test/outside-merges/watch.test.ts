import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mergeQueues, mergeWitness } from "../../src/backends/choose.js";
import { GitHubQueueClient } from "../../src/backends/github/client.js";
import { githubMergeWitness } from "../../src/backends/github/merge-witness.js";
import { GitHubQueueEvents, type QueueHappening } from "../../src/backends/github/queue-events.js";
import { LOG_LAG_MS, mergifyMergeWitness } from "../../src/backends/mergify/merge-witness.js";
import type { MergedPull, MergeWitness } from "../../src/core/merged-pulls.js";
import type { QueueEvent } from "../../src/core/queue.js";
import { createLogger } from "../../src/logger.js";
import { Backoffs } from "../../src/notifier/backoff.js";
import { Deliverer } from "../../src/notifier/deliverer.js";
import { PushedNotices } from "../../src/notifier/pushed-notices.js";
import { notificationRenderer } from "../../src/notifier/render-notification.js";
import { GIVE_UP_MS, OutsideMerges, RETRY_MS, SETTLE_MS } from "../../src/outside-merges/watch.js";
import { Repo } from "../../src/repo.js";
import { SlackHolds } from "../../src/slack/slack-holds.js";
import type { SlackNoticePoster } from "../../src/slack/slack-poster.js";
import { openStore, type Store } from "../../src/store/index.js";
import { WorkRunner } from "../../src/work/runner.js";
import { makeClient, ORIGIN } from "../backends/mergify/fixtures.js";
import { slackLaidOut } from "../helpers/slack-notices.js";

// Merges outside the queue (src/outside-merges), judged by each backend's witness as the product wires
// them (src/backends/wire.ts): the store, GitHub's merge-queue webhooks as its backend reads them, Mergify's
// API over HTTP (nock), and the notices to a Slack kept in memory: what a channel would show.

const T0 = new Date("2026-11-23T10:00:00Z");
const HEALTH = "C0HEALTH"; // queue, health
const QUIET = "C0QUIET"; // queue only
const ships = Repo.of("acme", "ships");
const widgets = Repo.of("acme", "widgets");

let store: Store;
let now: Date;
let slack: { channel: string; eventId: number; threadTs: string | null; text: string }[];
let told: QueueEvent[];

const later = (ms: number) => {
  now = new Date(now.getTime() + ms);
};

/** Slack in memory: each message with its channel. */
function memorySlack(): SlackNoticePoster {
  return {
    async post(m: { channel: string; eventId: number; threadTs?: string; text: string }) {
      slack.push({ channel: m.channel, eventId: m.eventId, threadTs: m.threadTs ?? null, text: m.text });
      return { ts: `1700000000.${String(slack.length).padStart(6, "0")}`, threadTs: m.threadTs ?? null };
    },
    async update() {},
    async findPosted() {
      return new Map();
    },
    async openDirect() {
      throw new Error("no direct messages here");
    },
  } as unknown as SlackNoticePoster;
}

/** The notifier's `tell`, as wired: the history, the outbox, the delivery. */
function notices(): (repository: Repo, event: QueueEvent) => Promise<void> {
  const deliverer = new Deliverer({
    store,
    poster: slackLaidOut(memorySlack()),
    holds: new SlackHolds(store),
    render: notificationRenderer,
    pullInfo: async (repository, n) => ({
      number: n,
      title: null,
      url: `https://github.com/${repository}/pull/${n}`,
    }),
    backoffs: new Backoffs(store),
    githubWebUrl: "https://github.com",
    owner: "replica-1",
    logger: createLogger({ level: "silent" }),
    now: () => now,
  });
  const pushed = new PushedNotices({
    deliverer,
    subscriptions: (repository) => store.listSubscriptions({ repository }),
    // Delivered below, once queued: one delivery at a time, as the poller's.
    deliver: async () => {},
    history: { record: (repository, events) => store.recordQueueEvents(repository, events, now) },
    logger: createLogger({ level: "silent" }),
  });
  return async (repository, event) => {
    told.push(event);
    await pushed.accept(repository, event);
    await deliverer.deliverPending();
  };
}

/** The watch of one replica; `after` runs once its notice is told (a replica that dies then: it never ends). */
function watch(witness: MergeWitness, owner = "replica-1", after?: () => Promise<void>) {
  const tell = notices();
  const logger = createLogger({ level: "silent" });
  return new OutsideMerges({
    store,
    work: new WorkRunner({ store, owner, now: () => now, logger }),
    witness,
    tell: async (repository, event) => {
      await tell(repository, event);
      await after?.();
    },
    logger,
    now: () => now,
  });
}

async function subscribe(repository: Repo) {
  for (const [channelId, groups] of [
    [HEALTH, ["queue", "health"]],
    [QUIET, ["queue"]],
  ] as const)
    await store.putSubscription({
      channelId,
      teamId: "T1",
      repository,
      branchGlob: null,
      groups: [...groups],
      createdBy: "alice",
      createdAt: new Date(T0.getTime() - 60_000),
    });
}

const merged = (repository: Repo, number: number, extra: Partial<MergedPull> = {}): MergedPull => ({
  repository,
  number,
  branch: "main",
  mergedAt: now,
  by: "dana",
  sha: "d".repeat(40),
  title: "Hot <fix>",
  ...extra,
});
const said = (channel: string) => slack.filter((m) => m.channel === channel);

beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  now = T0;
  slack = [];
  told = [];
  await subscribe(ships);
  await subscribe(widgets);
});
afterEach(async () => {
  await store.close();
  nock.cleanAll();
});

describe("on GitHub's merge queue", () => {
  /** GitHub's queue: `main` has one, `docs` none (GraphQL's `mergeQueue(branch:)`). */
  const client = new GitHubQueueClient(async () => async (_query, variables) => ({
    repository: {
      defaultBranchRef: { name: "main" },
      mergeQueue: variables.branch === "main" ? { id: "MQ_1" } : null,
    },
  }));
  const witness = () =>
    mergeWitness(mergeQueues("github", { mergify: null, github: client }), {
      github: githubMergeWitness({
        hasQueue: (repo, branch) => client.hasQueue(repo, branch),
        memory: store,
        merges: store,
      }),
      mergify: null,
    });
  /** GitHub's merge-queue webhooks, as its backend reads them (it notes the queue's merges). */
  const webhook = (h: QueueHappening) =>
    new GitHubQueueEvents({
      memory: store,
      merges: store,
      failedChecks: async () => [],
      logger: createLogger({ level: "silent" }),
      now: () => now,
    }).toEvent(h, `d-${Math.random()}`);
  const where = { repository: ships, number: 12, baseRef: "main" };
  const GROUP = "a".repeat(40);

  it("a pull request the queue merged says nothing, whatever order GitHub's webhooks come in", async () => {
    const merges = watch(witness());
    await webhook({ kind: "entered", ...where });
    await webhook({ kind: "group-built", ...where, sha: GROUP });
    // `closed` first, the queue's own word (dequeued MERGE) a moment after.
    await merges.heard(merged(ships, 12, { sha: GROUP, by: "github-merge-queue[bot]" }), "closed-12");
    later(1_000);
    await webhook({ kind: "removed", ...where, reason: "MERGE", by: "github-merge-queue[bot]" });
    later(SETTLE_MS);
    expect(await merges.runDue()).toBe(0);
    expect(await store.getMergedPullJudgement(ships, 12)).toMatchObject({ judgement: "queue" });
    // Its merge group's commit alone tells it too (the queue's other webhooks lost).
    await webhook({ kind: "entered", ...where, number: 13 });
    await webhook({ kind: "group-built", ...where, number: 13, sha: "b".repeat(40) });
    await merges.heard(merged(ships, 13, { sha: "B".repeat(40) }), "closed-13");
    later(SETTLE_MS);
    expect(await merges.runDue()).toBe(0);
    expect(await store.getMergedPullJudgement(ships, 13)).toMatchObject({ judgement: "queue" });
    expect(slack).toEqual([]);
    expect(told).toEqual([]);
  });

  it("a pull request merged directly (the queue had dropped it) is said once, in the health channel, at the top level", async () => {
    const merges = watch(witness());
    await webhook({ kind: "entered", ...where });
    await webhook({ kind: "group-built", ...where, sha: GROUP });
    await webhook({ kind: "removed", ...where, reason: "CI_FAILURE", by: "github-merge-queue[bot]" });
    const merge = merged(ships, 12);
    await merges.heard(merge, "closed-12");
    // GitHub's queue may still say it merged it: not judged before SETTLE_MS.
    later(SETTLE_MS - 1);
    expect(await merges.runDue()).toBe(0);
    later(1);
    expect(await merges.runDue()).toBe(1);
    expect(said(QUIET)).toEqual([]);
    expect(said(HEALTH)).toHaveLength(1);
    const [message] = said(HEALTH);
    expect(message?.threadTs).toBeNull();
    expect(message?.text).toBe(
      "acme/ships#12 was merged into main by @\u200bdana without going through the merge queue: it was not tested with the rest of the queue. Check that main still passes its checks.",
    );
    // Recorded once in the history, for stats and the digest.
    const history = await store.readQueueEvents(ships, { from: T0, to: new Date(now.getTime() + 1) });
    expect(history).toEqual([
      expect.objectContaining({ kind: "merged-outside-queue", pull: 12, by: "dana", branch: "main" }),
    ]);
    expect(await merges.runDue()).toBe(0);
    expect(said(HEALTH)).toHaveLength(1);
  });

  it("the same webhook redelivered, or heard by two replicas judging at once: said once", async () => {
    const [a, b] = [watch(witness(), "replica-1"), watch(witness(), "replica-2")];
    const merge = merged(ships, 21);
    await a.heard(merge, "closed-21");
    await b.heard(merge, "closed-21");
    later(5_000);
    await a.heard({ ...merge, by: "someone-else" }, "closed-21");
    later(SETTLE_MS);
    const counts = await Promise.all([a.runDue(), b.runDue()]);
    expect(counts.reduce((x, y) => x + y)).toBe(1);
    expect(await Promise.all([a.runDue(), b.runDue()])).toEqual([0, 0]);
    expect(said(HEALTH).map((m) => m.text)).toEqual([
      expect.stringContaining("acme/ships#21 was merged into main by @\u200bdana"),
    ]);
    // A replica that told it and died before recording its judgement (it never goes on): the next one,
    // once the claim lapsed, tells the same event again, which the outbox posts once.
    const merge22 = merged(ships, 22);
    await a.heard(merge22, "closed-22");
    later(SETTLE_MS);
    let died!: () => void;
    const dead = new Promise<void>((resolve) => {
      died = resolve;
    });
    const dying = watch(witness(), "replica-3", () => {
      died();
      return new Promise<void>(() => {});
    });
    void dying.runDue();
    await dead;
    expect(said(HEALTH).filter((m) => m.text.includes("#22"))).toHaveLength(1);
    expect(await b.runDue()).toBe(0);
    later(59_000);
    expect(await b.runDue()).toBe(0);
    later(1_000);
    expect(await b.runDue()).toBe(1);
    expect(said(HEALTH).filter((m) => m.text.includes("#22"))).toHaveLength(1);
    expect(told.filter((e) => e.pull === 22)).toHaveLength(2);
  });

  it("a branch without a merge queue, or a repository no channel hears `health` of: nothing", async () => {
    const merges = watch(witness());
    await merges.heard(merged(ships, 31, { branch: "docs" }), "closed-31");
    const unheard = Repo.of("acme", "unheard");
    await merges.heard(merged(unheard, 32), "closed-32");
    later(SETTLE_MS);
    expect(await merges.runDue()).toBe(0);
    expect(await store.getMergedPullJudgement(ships, 31)).toMatchObject({ judgement: "no-queue" });
    expect(await store.getMergedPullJudgement(unheard, 32)).toBeNull();
    expect(slack).toEqual([]);
  });

  it("while GitHub does not say whether the branch has a queue, it waits, then gives up saying nothing", async () => {
    const failing = new GitHubQueueClient(async () => async () => {
      throw Object.assign(new Error("Bad gateway"), { status: 502 });
    });
    const merges = watch(
      githubMergeWitness({ hasQueue: (r, b) => failing.hasQueue(r, b), memory: store, merges: store }),
    );
    await merges.heard(merged(ships, 41), "closed-41");
    later(SETTLE_MS);
    expect(await merges.runDue()).toBe(0);
    expect(await store.getMergedPullJudgement(ships, 41)).toBeNull();
    later(RETRY_MS);
    expect(await merges.runDue()).toBe(0);
    later(GIVE_UP_MS);
    expect(await merges.runDue()).toBe(0);
    expect(await store.getMergedPullJudgement(ships, 41)).toMatchObject({ judgement: "unknown" });
    expect(slack).toEqual([]);
  });
});

describe("on Mergify", () => {
  const witness = () =>
    mergeWitness(mergeQueues("mergify", { mergify: makeClient({ retry: { retries: 0 } }), github: null }), {
      github: null,
      mergify: mergifyMergeWitness({
        branches: (repo) => makeClient({ retry: { retries: 0 } }).listBranches(repo),
        logReadAt: async (repo) => (await store.getPollCursor(repo))?.updatedAt ?? null,
        history: store,
      }),
    });
  /** Mergify's answer to `times` reads of the branches of its queue. */
  const branches = (list: string[], times: number) =>
    nock(ORIGIN)
      .get("/v1/repos/acme/widgets/merge-queue/branches")
      .times(times)
      .reply(200, { branches: list });
  /** The poller read the log at `now` (its cursor), having recorded what it held. */
  const logRead = (events: QueueEvent[] = []) =>
    store
      .recordQueueEvents(widgets, events, now)
      .then(() =>
        store.putPollCursor({ repository: widgets, receivedFrom: T0, seenEventIds: [], updatedAt: now }),
      );
  const queueMerge = (number: number): QueueEvent => ({
    id: 9000 + number,
    at: now.toISOString(),
    repository: widgets.fullName,
    pull: number,
    branch: "main",
    queue: "default",
    origin: "action.queue.merged",
    kind: "merged",
    sha: "c".repeat(40),
    enteredAt: T0.toISOString(),
  });

  it("a pull request Mergify's log says it merged says nothing; one it has no merge of is said once, once the log was read after the merge", async () => {
    const merges = watch(witness());
    await merges.heard(merged(widgets, 7, { by: "mergify[bot]" }), "closed-7");
    await merges.heard(merged(widgets, 8), "closed-8");
    // Read before Mergify could have logged the merges: it cannot tell yet.
    later(LOG_LAG_MS - 1);
    await logRead();
    later(SETTLE_MS - LOG_LAG_MS + 1);
    branches(["main"], 2);
    expect(await merges.runDue()).toBe(0);
    expect(slack).toEqual([]);
    // The next read, LOG_LAG_MS after, brings Mergify's merge of #7 and nothing of #8.
    later(LOG_LAG_MS);
    await logRead([queueMerge(7)]);
    later(RETRY_MS);
    branches(["main"], 2);
    expect(await merges.runDue()).toBe(1);
    expect(await store.getMergedPullJudgement(widgets, 7)).toMatchObject({ judgement: "queue" });
    expect(said(QUIET)).toEqual([]);
    expect(said(HEALTH).map((m) => m.text)).toEqual([
      "acme/widgets#8 was merged into main by @\u200bdana without going through the merge queue: it was not tested with the rest of the queue. Check that main still passes its checks.",
    ]);
    expect(nock.isDone()).toBe(true);
  });

  it("a redelivered webhook is judged once; a branch Mergify has no queue for says nothing", async () => {
    const merges = watch(witness());
    await merges.heard(merged(widgets, 9), "closed-9");
    await merges.heard(merged(widgets, 9), "closed-9");
    await merges.heard(merged(widgets, 10, { branch: "gh-pages" }), "closed-10");
    later(SETTLE_MS + LOG_LAG_MS);
    await logRead();
    branches(["main", "release"], 2);
    expect(await merges.runDue()).toBe(1);
    expect(await store.getMergedPullJudgement(widgets, 10)).toMatchObject({ judgement: "no-queue" });
    expect(said(HEALTH)).toHaveLength(1);
    expect(said(HEALTH)[0]?.text).toContain("acme/widgets#9 was merged into main");
  });
});
