import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Hub } from "../../../src/app/hub.js";
import { githubQueuePushes } from "../../../src/backends/github/pushed-events.js";
import {
  type FailedCheck,
  pushedEventId,
  type QueueHappening,
} from "../../../src/backends/github/queue-events.js";
import type { QueueEvent } from "../../../src/core/queue.js";
import { createLogger } from "../../../src/logger.js";
import { createMetrics } from "../../../src/metrics.js";
import { Backoffs } from "../../../src/notifier/backoff.js";
import { Deliverer } from "../../../src/notifier/deliverer.js";
import { PushedNotices } from "../../../src/notifier/pushed-notices.js";
import { notificationRenderer } from "../../../src/notifier/render-notification.js";
import { Repo } from "../../../src/repo.js";
import { SlackHolds } from "../../../src/slack/slack-holds.js";
import { type GitHubQueueMemory, openStore, type Store } from "../../../src/store/index.js";
import { memoryPoster } from "../../helpers/memory-poster.js";
import { slackNotices } from "../../helpers/slack-notices.js";

// GitHub's merge queue's webhooks as the GitHub backend pushes them (src/backends/github/pushed-events.ts),
// heard by the notifier's pushed notices as it is wired (src/notifier/wire.ts).

const ships = Repo.of("acme", "ships");
const T0 = new Date("2026-11-23T10:00:00Z");
const GROUP = "a".repeat(40);
const where = { repository: ships, number: 12, baseRef: "main" };

let store: Store;
let enqueued: { address: string; event: QueueEvent }[];
let checks: FailedCheck[] | Error;
let delivered: number;
let happenings: Hub<[happening: QueueHappening, deliveryId: string]>;
let pushed: QueueEvent[];
let metrics: ReturnType<typeof createMetrics>;

/** The pushes of the backend, as the notifier hears them. */
function pushes(memory: GitHubQueueMemory, now: () => Date, notices: PushedNotices) {
  happenings = new Hub();
  githubQueuePushes({
    happenings,
    announcements: new Hub(),
    memory,
    metrics,
    appBot: "yardmaster[bot]",
    askedOf: (repository, number) => store.getQueueRequest(repository, number),
    failedChecks: async () => {
      if (checks instanceof Error) throw checks;
      return checks;
    },
    logger: createLogger({ level: "silent" }),
    now,
  }).listen(async (repository, event) => {
    pushed.push(event);
    await notices.accept(repository, event);
  });
}

beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  await store.putSubscription({
    channelId: "C1",
    teamId: "T1",
    repository: ships,
    branchGlob: null,
    groups: ["queue", "checks"],
    createdBy: "alice",
    createdAt: new Date(T0.getTime() - 1000),
  });
  enqueued = [];
  pushed = [];
  delivered = 0;
  checks = [];
  metrics = createMetrics();
  const notices = new PushedNotices({
    deliverer: { enqueue: async (address, _repo, event) => void enqueued.push({ address, event }) },
    subscriptions: (repository) => store.listSubscriptions({ repository }),
    deliver: async () => {
      delivered += 1;
    },
    logger: createLogger({ level: "silent" }),
  });
  pushes(store, () => T0, notices);
});
afterEach(() => store.close());

/** Tells the backend a webhook; the queue event it pushed, or null when none. */
async function accept(h: QueueHappening, delivery = `d-${Math.random()}`): Promise<QueueEvent | null> {
  const before = pushed.length;
  await happenings.tell(h, delivery);
  return pushed.length > before ? pushed[pushed.length - 1]! : null;
}
/** What the channel's notice says, as Slack would show it. */
const shown = (event: QueueEvent) =>
  JSON.stringify(
    slackNotices.event(event, null, { repo: ships, githubWebUrl: "https://github.com", now: T0 }).blocks,
  );

describe("notices pushed by GitHub's merge queue", () => {
  it("an entry: a queue event of the pull request, routed to the channel and delivered at once", async () => {
    const event = await accept({ kind: "entered", ...where, by: "carol" }, "delivery-1");
    expect(event).toMatchObject({
      id: pushedEventId("delivery:delivery-1"),
      kind: "entered",
      queuedBy: "carol",
      pull: 12,
      branch: "main",
      at: T0.toISOString(),
    });
    expect(event!.id).toBeLessThan(0);
    expect(enqueued.map((e) => e.address)).toEqual(["C1"]);
    expect(delivered).toBe(1);
    expect(shown(event!)).toContain("Entered the merge queue `main`");
  });

  it("an entry by the app's bot is the person's who asked Yardmaster just before; anyone else's is the sender's", async () => {
    const entry = (by: string) => accept({ kind: "entered", ...where, by });
    expect(await entry("yardmaster[bot]")).toMatchObject({ queuedBy: "yardmaster[bot]" });
    await store.rememberQueueRequest(ships, 12, { login: "carol", at: new Date(T0.getTime() - 5_000) });
    expect(await entry("Yardmaster[bot]")).toMatchObject({ queuedBy: "carol" });
    expect(await entry("dave")).toMatchObject({ queuedBy: "dave" });
    // A request of long ago says nothing of this entry.
    await store.rememberQueueRequest(ships, 12, { login: "carol", at: new Date(T0.getTime() - 11 * 60_000) });
    expect(await entry("yardmaster[bot]")).toMatchObject({ queuedBy: "yardmaster[bot]" });
  });

  it("the same delivery twice (a redelivery, or another replica) is the same event", async () => {
    const first = await accept({ kind: "entered", ...where }, "delivery-2");
    await accept({ kind: "group-built", ...where, sha: GROUP });
    const again = await accept({ kind: "entered", ...where }, "delivery-2");
    expect(again?.id).toBe(first?.id);
    // The outbox got the same (address, event) twice: it keeps one row for it.
    const entries = enqueued.filter((e) => e.event.kind === "entered");
    expect(entries.map((e) => [e.address, e.event.id])).toEqual([
      ["C1", first?.id],
      ["C1", first?.id],
    ]);
    // What was remembered of the entry stands: its merge group is not forgotten.
    expect(await store.getQueuePull(ships, 12)).toMatchObject({ enteredAt: T0, groupSha: GROUP });
    const other = await accept({ kind: "entered", ...where }, "delivery-3");
    expect(other?.id).not.toBe(first?.id);
  });

  it("a removal for failed checks lists the merge group's failed checks with their links, and offers Requeue", async () => {
    await accept({ kind: "entered", ...where });
    await accept({ kind: "group-built", ...where, sha: GROUP });
    checks = [{ name: "ci / <build>", conclusion: "failure", url: "https://github.com/acme/ships/runs/9" }];
    const event = await accept({
      kind: "removed",
      ...where,
      reason: "CI_FAILURE",
      by: "github-merge-queue[bot]",
    });
    expect(event?.kind).toBe("left");
    const text = shown(event!);
    expect(text).toContain(
      "`main` without merging: its merge group's required checks failed (<https://github.com/acme/ships/runs/9|ci / &lt;build&gt;>)",
    );
    expect(text).not.toContain("CI_FAILURE");
    expect(text).toContain("Requeue");
  });

  it("a removal whose checks GitHub cannot list still goes, without them", async () => {
    await accept({ kind: "entered", ...where });
    await accept({ kind: "group-built", ...where, sha: GROUP });
    checks = new Error("Resource not accessible by integration");
    const event = await accept({
      kind: "removed",
      ...where,
      reason: "CI_TIMEOUT",
      by: "github-merge-queue[bot]",
    });
    expect(shown(event!)).toContain(
      "without merging: its merge group's required checks did not report in time",
    );
    expect(shown(event!)).not.toContain("CI_TIMEOUT");
  });

  it("a removal by hand says who: GitHub's sender, or who asked Yardmaster", async () => {
    const event = await accept({ kind: "removed", ...where, reason: "MANUAL", by: "bob" });
    expect(shown(event!)).toContain("without merging: removed by bob");

    await accept({ kind: "entered", ...where });
    const byApp = () => accept({ kind: "removed", ...where, reason: "MANUAL", by: "Yardmaster[bot]" });
    expect(shown((await byApp())!)).toContain("removed by Yardmaster[bot]");
    await store.rememberRemoval(ships, 12, { login: "alice", at: new Date(T0.getTime() - 60_000) });
    expect(shown((await byApp())!)).toContain("removed by alice (through Yardmaster)");
    // Asked long before: it says nothing of this removal.
    await store.rememberRemoval(ships, 12, { login: "alice", at: new Date(T0.getTime() - 3_600_000) });
    expect(shown((await byApp())!)).toContain("removed by Yardmaster[bot]");
  });

  it("a merge is told once whichever webhook says it, and only for a pull request that came through the queue", async () => {
    expect(await accept({ kind: "merged", ...where, mergeCommitSha: GROUP })).toBeNull();
    await accept({ kind: "entered", ...where });
    expect(
      await accept({ kind: "removed", ...where, reason: "MERGE", by: "github-merge-queue[bot]" }),
    ).toBeNull();
    const merged = await accept({ kind: "merged", ...where, mergeCommitSha: GROUP }, "d-merged");
    const again = await accept({ kind: "merged", ...where, mergeCommitSha: GROUP }, "d-other");
    expect(again?.id).toBe(merged?.id);
    const counted = await metrics.registry.getSingleMetricAsString("yardmaster_github_queue_webhooks_total");
    expect(counted).toContain('yardmaster_github_queue_webhooks_total{kind="merged",outcome="none"} 1');
    expect(counted).toContain('yardmaster_github_queue_webhooks_total{kind="merged",outcome="notice"} 2');
    expect(counted).toContain('yardmaster_github_queue_webhooks_total{kind="removed",outcome="none"} 1');
    expect(shown(merged!)).toContain("Merged into `main` as <https://github.com/acme/ships/commit/aaaaaaa");
  });

  it("a pull request the queue removed, then merged by someone (an admin's bypass), is no merge of the queue's; entering again is", async () => {
    const other = { ...where, number: 13 };
    await accept({ kind: "entered", ...other }, "d-13-in");
    await accept({ kind: "removed", ...other, reason: "CI_FAILURE", by: "github-merge-queue[bot]" });
    expect(await accept({ kind: "merged", ...other, mergeCommitSha: "b".repeat(40) })).toBeNull();
    await accept({ kind: "entered", ...other }, "d-13-again");
    expect(await accept({ kind: "merged", ...other, mergeCommitSha: GROUP })).toMatchObject({
      kind: "merged",
    });
  });

  it("merge groups: checks started, and how they ended (merged, failed, invalidated)", async () => {
    await accept({ kind: "entered", ...where });
    const started = await accept({ kind: "group-built", ...where, sha: GROUP });
    expect(shown(started!)).toContain("Checks started");
    expect(await store.getQueuePull(ships, 12)).toMatchObject({ groupSha: GROUP });

    const merged = await accept({ kind: "group-gone", ...where, sha: GROUP, reason: "merged" });
    expect(shown(merged!)).toContain("Checks ended: `success`");
    checks = [{ name: "lint", conclusion: "timed_out", url: "https://github.com/acme/ships/runs/3" }];
    const failed = await accept({ kind: "group-gone", ...where, sha: GROUP, reason: "dequeued" });
    expect(shown(failed!)).toContain("Checks ended: `failure`");
    expect(shown(failed!)).toContain("lint (timed_out)");
    const invalidated = await accept({ kind: "group-gone", ...where, sha: GROUP, reason: "invalidated" });
    expect(shown(invalidated!)).toContain("Checks aborted: a pull request ahead of it left the queue");
  });

  it("an event of a repository nobody subscribed to goes nowhere", async () => {
    await accept({ kind: "entered", ...where, repository: Repo.of("acme", "boats") });
    expect(enqueued).toEqual([]);
  });
});

describe("notices pushed by GitHub's merge queue, in GitHub's order", () => {
  const { posts, poster } = memoryPoster();

  it("a pull request's thread starts with its entry, even when its merge group's notice was claimed first", async () => {
    posts.length = 0;
    let clock = T0.getTime();
    const now = () => new Date(clock);
    const deliverer = new Deliverer({
      store,
      poster,
      holds: new SlackHolds(store),
      render: notificationRenderer,
      pullInfo: async () => null,
      backoffs: new Backoffs(store),
      githubWebUrl: "https://github.com",
      owner: "replica-a",
      logger: createLogger({ level: "silent" }),
      now,
    });
    // The entry's webhook comes first, but what it remembers waits (a slow store): the merge group's
    // webhook, a millisecond later, has its notice in the outbox first.
    let remembered: () => void = () => {};
    const slow = new Promise<void>((resolve) => (remembered = resolve));
    const memory: GitHubQueueMemory = {
      rememberQueueEntry: async (entry) => {
        await slow;
        await store.rememberQueueEntry(entry);
      },
      rememberRemoval: (...args) => store.rememberRemoval(...args),
      rememberQueueLeave: (...args) => store.rememberQueueLeave(...args),
      rememberMergeGroup: (...args) => store.rememberMergeGroup(...args),
      getQueuePull: (...args) => store.getQueuePull(...args),
    };
    const notices = new PushedNotices({
      deliverer,
      subscriptions: (repository) => store.listSubscriptions({ repository }),
      deliver: async () => {},
      logger: createLogger({ level: "silent" }),
    });
    pushes(memory, now, notices);
    const entered = accept({ kind: "entered", ...where }, "d-entry");
    clock += 1;
    const built = await accept({ kind: "group-built", ...where, sha: GROUP }, "d-group");
    clock += 1;
    remembered();
    await entered;
    const entry = pushed.find((e) => e.kind === "entered");
    clock += 1;
    await deliverer.deliverPending();
    expect(posts).toEqual([
      { eventId: entry!.id, reply: false },
      { eventId: built!.id, reply: true },
    ]);
  });
});
