import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { LogEvent } from "../../src/backends/mergify/index.js";
import { fromMergifyLog } from "../../src/backends/mergify/queue-events.js";
import type { QueueEvent } from "../../src/core/queue.js";
import { createLogger } from "../../src/logger.js";
import { Backoffs } from "../../src/notifier/backoff.js";
import {
  ChannelClaim,
  CLAIM_RENEW_MS,
  DELIVER_KIND,
  DELIVERY_LEASE_MS,
} from "../../src/notifier/channel-lease.js";
import type { NotificationPoster, PostedMessage } from "../../src/notifier/chat.js";
import { Deliverer, SWEEP_MS } from "../../src/notifier/deliverer.js";
import { Repo } from "../../src/repo.js";
import { SlackHolds } from "../../src/slack/slack-holds.js";
import { openStore, type Store } from "../../src/store/index.js";
import { summaryRender } from "./summary-render.js";

// A channel's delivery as durable work (channel-lease.ts): one item per channel, asked for when rows are
// added, claimed by one replica's runner, renewed while it posts, taken over once its claim lapses. On a
// fake clock (timers and Date), over an in-memory SQLite store shared by the replicas.

const T0 = new Date("2026-01-01T10:00:00Z");
const WIDGETS = Repo.of("acme", "widgets");
const logger = createLogger({ level: "silent" });

/** A channel in memory whose posts wait, when asked, until let go (a slow Slack call). */
class SlowSlack implements NotificationPoster {
  readonly posts: { eventId: number; by: string }[] = [];
  private gate: Promise<void> | undefined;
  private open: () => void = () => {};
  private seq = 0;
  hold(): void {
    this.gate = new Promise((resolve) => {
      this.open = resolve;
    });
  }
  release(): void {
    this.gate = undefined;
    this.open();
  }
  poster(by: string): NotificationPoster {
    return {
      post: async (m) => {
        await this.gate;
        this.posts.push({ eventId: m.eventId, by });
        const ts = `1767261600.${String(++this.seq).padStart(6, "0")}`;
        return { ts, threadTs: m.threadTs ?? null } as PostedMessage;
      },
      update: async () => {},
      findPosted: async () => new Map(),
    };
  }
  async post(): Promise<PostedMessage> {
    throw new Error("use poster(by)");
  }
  async update(): Promise<void> {}
  async findPosted() {
    return new Map();
  }
}

let store: Store;
let slack: SlowSlack;
let nextId = 1;
const started: Deliverer[] = [];

function pause(): QueueEvent {
  return fromMergifyLog({
    id: nextId++,
    received_at: new Date().toISOString(),
    trigger: "merge queue",
    repository: "acme/widgets",
    pull_request: null,
    base_ref: null,
    type: "queue.pause.create",
    metadata: {},
  } as LogEvent);
}

function replica(owner: string): Deliverer {
  return new Deliverer({
    store,
    poster: slack.poster(owner),
    holds: new SlackHolds(store),
    render: summaryRender,
    pullInfo: async () => null,
    backoffs: new Backoffs(store),
    githubWebUrl: "https://github.com",
    owner,
    logger,
    now: () => new Date(),
  });
}

async function start(owner: string): Promise<Deliverer> {
  const d = replica(owner);
  await d.start();
  started.push(d);
  return d;
}

/**
 * The clock moves on by `ms`, in steps of 10 ms, with the event loop's own turns (a run yields to it
 * through setImmediate, which the fake timers leave real) run between them.
 */
async function pass(ms: number, step = 10): Promise<void> {
  for (let left = ms; left > 0; left -= step) {
    await vi.advanceTimersByTimeAsync(Math.min(step, left));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** When a `deliver` item is next due (the tests' one channel), or undefined once none is left. */
async function nextDelivery() {
  const claim = { kind: DELIVER_KIND, owner: "probe", now: new Date(0), leaseMs: 1, limit: 1 };
  // A claim at the epoch takes nothing: it reads when the item is next due.
  return (await store.claimWork(claim)).nextDueAt ?? undefined;
}

beforeEach(async () => {
  vi.useFakeTimers({
    now: T0,
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
  });
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  slack = new SlowSlack();
});

afterEach(async () => {
  slack.release();
  for (const d of started.splice(0)) await d.stop();
  await store.close();
  vi.useRealTimers();
});

describe("a channel's delivery as durable work", () => {
  it("is asked for when rows are added and posted by one replica at a time, its claim renewed while a post waits", async () => {
    const a = await start("replica-a");
    const b = await start("replica-b");
    slack.hold();
    const first = pause();
    await a.enqueue("C1", WIDGETS, first);
    await pass(100);
    // A Slack call that takes three claims' time: the runner's renewals keep the channel its own.
    await b.enqueue("C1", WIDGETS, pause());
    await pass(3 * DELIVERY_LEASE_MS);
    expect(slack.posts).toEqual([]);
    slack.release();
    // The row the other replica added is posted once the channel is free, by whichever claims it next.
    await pass(DELIVERY_LEASE_MS + 100);
    expect(slack.posts).toHaveLength(2);
    expect(slack.posts[0]).toEqual({ eventId: first.id, by: "replica-a" });
    expect(new Set(slack.posts.map((p) => p.eventId)).size).toBe(2);
    expect(await store.listPendingNotifications(new Date(Date.now() + 1), 10)).toEqual([]);
    // Done: the channel's item is gone until rows are added again.
    expect(await nextDelivery()).toBeUndefined();
  });

  it("is taken over by a live replica's runner at its claim's lapse, with no new event", async () => {
    const dead = replica("dead-replica");
    const events = [pause(), pause(), pause()];
    for (const e of events) await dead.enqueue("C1", WIDGETS, e);
    // The dead replica's runner claimed the channel, then it died (no renewal any more).
    const work = { kind: DELIVER_KIND, owner: "dead-replica", now: new Date(), leaseMs: DELIVERY_LEASE_MS };
    expect((await store.claimWork({ ...work, limit: 1 })).claimed).toHaveLength(1);
    await start("survivor");
    await pass(DELIVERY_LEASE_MS - 20);
    expect(slack.posts).toEqual([]);
    await pass(100);
    expect(slack.posts.map((p) => p.eventId)).toEqual(events.map((e) => e.id));
    expect(slack.posts.every((p) => p.by === "survivor")).toBe(true);
  });

  it("is asked for at start for every channel with rows left, whoever added them", async () => {
    const stopped = replica("stopped");
    await stopped.enqueue("C1", WIDGETS, pause());
    await stopped.enqueue("C2", WIDGETS, pause());
    // Their items lost (an older version added the rows): the start asks for each channel again.
    const work = { kind: DELIVER_KIND, owner: "x", now: new Date(), leaseMs: 1, limit: 10 };
    for (const claimed of (await store.claimWork(work)).claimed)
      await store.completeWork("x", [{ kind: DELIVER_KIND, key: claimed.key, next: null }]);
    await start("replica-a");
    await pass(100);
    expect(slack.posts).toHaveLength(2);
  });

  it("is asked for by a replica's sweep, within SWEEP_MS, for rows nobody asked for (an older version's)", async () => {
    await start("replica-a");
    const e = pause();
    const row = { channelId: "C1", eventId: e.id, repository: WIDGETS, pullRequest: null, eventType: e.kind };
    expect(await store.addNotification({ ...row, payload: e, claimedAt: new Date() })).toBe("added");
    await pass(SWEEP_MS - 1_000, 500);
    expect(slack.posts).toEqual([]);
    await pass(1_100);
    expect(slack.posts.map((p) => p.eventId)).toEqual([e.id]);
  });
});

describe("a run's hold on its channel (ChannelClaim)", () => {
  it("renews the claim before a row once CLAIM_RENEW_MS has passed, and is lost once the item is not this replica's", async () => {
    const signal = new AbortController();
    const renewals: number[] = [];
    let mine = true;
    const claim = new ChannelClaim(
      {
        signal: signal.signal,
        yieldTurn: () => {},
        renew: async () => {
          renewals.push(Date.now() - T0.getTime());
          return mine;
        },
      },
      () => new Date(),
    );
    expect(await claim.held()).toBe(true);
    await vi.advanceTimersByTimeAsync(CLAIM_RENEW_MS - 1);
    expect(await claim.held()).toBe(true);
    expect(renewals).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(await claim.held()).toBe(true);
    expect(renewals).toEqual([CLAIM_RENEW_MS]);
    mine = false;
    await vi.advanceTimersByTimeAsync(CLAIM_RENEW_MS);
    expect(await claim.held()).toBe(false);
    signal.abort();
    expect(await claim.held()).toBe(false);
  });
});
