import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { LogEvent } from "../../src/backends/mergify/index.js";
import { fromMergifyLog } from "../../src/backends/mergify/queue-events.js";
import type { QueueEvent } from "../../src/core/queue.js";
import { createLogger } from "../../src/logger.js";
import { Backoffs } from "../../src/notifier/backoff.js";
import { DELIVER_KIND, DELIVERY_LEASE_MS } from "../../src/notifier/channel-lease.js";
import { DeliveryError, DeliveryErrorCode, type PostedMessage } from "../../src/notifier/chat.js";
import { Deliverer } from "../../src/notifier/deliverer.js";
import { Poller } from "../../src/notifier/poller.js";
import { Repo } from "../../src/repo.js";
import { SLACK_POST_PACE, SlackHolds, SlackPace } from "../../src/slack/slack-holds.js";
import { openStore, type Store } from "../../src/store/index.js";
import { DEFAULT_POST_MESSAGE_LIMIT, TokenBucket } from "../../tools/stand-ins/slack/rate-limits.js";
import { slackLaidOut } from "../helpers/slack-notices.js";
import { summaryRender } from "./summary-render.js";

/**
 * Issue 32's takeover, on a simulated clock (the timers' and the store's, moved by hand): a replica
 * dies holding a channel's delivery (its work item's claim) with 24 notices added, one of them posted and not recorded; the
 * survivor's own loop, with no new event, posts every other one once, at Slack's pace (a Slack that
 * answers 429 past one post a second per channel, bursts of 3), and all 24 are in the channel within
 * 30 s of the death. test/e2e/replica-takeover.e2e.test.ts kills a real replica (`kill -9`);
 * `npm run bench` measures the figure in real time.
 */
const CHANNEL = "C0TAKEOVER";
const WIDGETS = Repo.of("acme", "widgets");
const T0 = new Date("2026-01-01T10:00:00Z");
const logger = createLogger({ level: "silent" });

/** A channel in memory behind Slack's post limit, counting the posts it refused. */
class PacedSlack {
  readonly messages: { ts: string; threadTs: string | null; eventId: number; at: number }[] = [];
  refused = 0;
  private readonly bucket = new TokenBucket(DEFAULT_POST_MESSAGE_LIMIT, Date.now());
  private seq = 0;
  async post(m: { threadTs?: string; eventId: number }): Promise<PostedMessage> {
    const wait = this.bucket.take(Date.now());
    if (wait !== null) {
      this.refused += 1;
      throw new DeliveryError(DeliveryErrorCode.RateLimited, "ratelimited", wait, "post");
    }
    const ts = `1767261600.${String(++this.seq).padStart(6, "0")}`;
    this.messages.push({ ts, threadTs: m.threadTs ?? null, eventId: m.eventId, at: Date.now() });
    return { ts, threadTs: m.threadTs ?? null };
  }
  async update(): Promise<void> {}
  async findPosted(_channel: string, options: { threadTs?: string }) {
    const shown = this.messages.filter((m) =>
      options.threadTs ? m.threadTs === options.threadTs : m.threadTs === null,
    );
    return new Map(shown.map((m) => [m.eventId, { ts: m.ts, threadTs: m.threadTs }] as const));
  }
}

let store: Store;
let slack: PacedSlack;
let nextId = 1;

function event(type: string, pull: number): QueueEvent {
  return fromMergifyLog({
    id: nextId++,
    received_at: new Date().toISOString(),
    trigger: "merge queue",
    repository: "acme/widgets",
    pull_request: pull,
    base_ref: "main",
    type,
    metadata: {},
  } as LogEvent);
}

function deliverer(owner: string): Deliverer {
  return new Deliverer({
    store,
    poster: slackLaidOut(slack),
    holds: new SlackHolds(store),
    render: summaryRender,
    pullInfo: async (_r, n) => ({
      number: n,
      title: `PR ${n}`,
      url: `https://github.com/acme/widgets/pull/${n}`,
    }),
    backoffs: new Backoffs(store, { baseMs: 1_000, maxMs: 10_000 }),
    githubWebUrl: "https://github.com",
    owner,
    logger,
    now: () => new Date(),
    pace: new SlackPace(store, SLACK_POST_PACE),
  });
}

beforeEach(async () => {
  vi.useFakeTimers({
    now: T0,
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
  });
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  slack = new PacedSlack();
});

afterEach(async () => {
  vi.useRealTimers();
  await store.close();
});

describe("a replica killed holding a channel's burst", () => {
  it("is replaced by the survivor's loop: all 24 notices within 30 s of the death, once each, at Slack's pace", async () => {
    // Twelve pull requests queued in a burst: each one's notice, then one in its thread.
    const dead = deliverer("dead-replica");
    const events = Array.from({ length: 12 }, (_, i) => [
      event("action.queue.enter", 100 + i),
      event("action.queue.checks_start", 100 + i),
    ]).flat();
    for (const e of events) await dead.enqueue(CHANNEL, WIDGETS, e);
    // Its runner claimed the channel, it began the first post, Slack took it, and it died before hearing
    // the answer.
    const first = events[0] as QueueEvent;
    const work = { kind: DELIVER_KIND, owner: "dead-replica", now: new Date(), leaseMs: DELIVERY_LEASE_MS };
    expect((await store.claimWork({ ...work, limit: 1 })).claimed).toHaveLength(1);
    await store.markNotificationBegun(CHANNEL, first.id, "dead-replica");
    await slack.post({ eventId: first.id });
    const diedAt = Date.now();

    const survivor = new Poller({
      store,
      eventLog: null,
      deliverer: deliverer("survivor"),
      intervalMs: 1_000,
      owner: "survivor",
      logger,
      now: () => new Date(),
    });
    survivor.start();
    try {
      for (let waited = 0; slack.messages.length < events.length && waited < 120_000; waited += 100)
        await vi.advanceTimersByTimeAsync(100);
    } finally {
      await survivor.stop();
    }

    const posted = slack.messages.map((m) => m.eventId);
    expect([...posted].sort((a, b) => a - b)).toEqual(events.map((e) => e.id));
    expect(new Set(posted).size).toBe(posted.length);
    // Every reply in its pull request's thread.
    const parents = new Map(slack.messages.filter((m) => m.threadTs === null).map((m) => [m.eventId, m.ts]));
    for (const [i, e] of events.entries()) {
      if (i % 2 === 1)
        expect(slack.messages.find((m) => m.eventId === e.id)?.threadTs).toBe(parents.get(events[i - 1]!.id));
    }
    // Within 30 s of the death on the simulated clock, with 5 s to spare: Slack's pace takes 20 of them
    // (the 23 left, 3 at once then one a second), the claim's lapse the rest. Slack refused no post.
    const last = Math.max(...slack.messages.map((m) => m.at));
    expect(last - diedAt).toBeLessThanOrEqual(25_000);
    expect(slack.refused).toBe(0);
  });
});
