import { beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import type { LogEvent } from "../../src/merge-queue/index.js";
import { Backoffs } from "../../src/notifier/backoff.js";
import { Deliverer } from "../../src/notifier/deliverer.js";
import {
  type NotificationPoster,
  type PostedMessage,
  SlackDeliveryError,
  SlackDeliveryErrorCode,
} from "../../src/notifier/slack-poster.js";
import type { NotificationRenderer, ThreadState } from "../../src/notifier/types.js";
import { Repo } from "../../src/repo.js";
import { openStore, type Store } from "../../src/store/index.js";

/** A Slack channel in memory: messages with their event metadata, threads, and failures on demand. */
class FakeSlack implements NotificationPoster {
  messages: { channel: string; ts: string; threadTs: string | null; text: string; eventId: number }[] = [];
  updates: { channel: string; ts: string; text: string }[] = [];
  failing = new Map<string, SlackDeliveryError>();
  private seq = 0;
  async post(m: {
    channel: string;
    text: string;
    threadTs?: string;
    eventId: number;
  }): Promise<PostedMessage> {
    const failure = this.failing.get(m.channel);
    if (failure) throw failure;
    const ts = `1700000000.${String(++this.seq).padStart(6, "0")}`;
    this.messages.push({
      channel: m.channel,
      ts,
      threadTs: m.threadTs ?? null,
      text: m.text,
      eventId: m.eventId,
    });
    return { ts, threadTs: m.threadTs ?? null };
  }
  async update(m: { channel: string; ts: string; text: string }) {
    this.updates.push(m);
  }
  async findPosted(channel: string, options: { threadTs?: string }) {
    return new Map(
      this.messages
        .filter(
          (m) =>
            m.channel === channel &&
            (options.threadTs ? m.threadTs === options.threadTs : m.threadTs === null),
        )
        .map((m) => [m.eventId, { ts: m.ts, threadTs: m.threadTs }] as const),
    );
  }
  in(channel: string) {
    return this.messages.filter((m) => m.channel === channel);
  }
}

const render: NotificationRenderer = {
  event: (e) => ({ text: `event ${e.type} #${e.id}`, blocks: [] }),
  parent: (s) => ({ text: `parent #${s.pull.number}: ${s.latest}`, blocks: [] }),
  stateAfter: (_prev, e, pull): ThreadState => ({
    pull,
    latestType: e.type,
    latest: e.type,
    queueName: null,
    canRequeue: false,
    updatedAt: e.received_at,
  }),
};

const WIDGETS = Repo.of("acme", "widgets");
let store: Store;
let slack: FakeSlack;
let now: Date;
const logger = createLogger({ level: "silent" });

function deliverer() {
  return new Deliverer({
    store,
    poster: slack,
    render,
    pullInfo: async (_r, n) => ({
      number: n,
      title: `PR ${n}`,
      url: `https://github.com/acme/widgets/pull/${n}`,
    }),
    backoffs: new Backoffs(store, { baseMs: 1_000, maxMs: 10_000 }),
    githubWebUrl: "https://github.com",
    owner: "replica-1",
    logger,
    now: () => now,
  });
}

let nextId = 1;
function event(type: string, pull: number | null = 42): LogEvent {
  return {
    id: nextId++,
    received_at: now.toISOString(),
    trigger: "merge queue",
    repository: "acme/widgets",
    pull_request: pull,
    base_ref: pull === null ? null : "main",
    type,
    metadata: {},
  } as LogEvent;
}

beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  slack = new FakeSlack();
  now = new Date("2026-01-01T10:00:00Z");
});

describe("Deliverer", () => {
  it("threads a pull request's events under one parent, edits the parent, and posts pauses top level", async () => {
    const d = deliverer();
    const enter = event("action.queue.enter");
    const checks = event("action.queue.checks_start");
    const pause = event("queue.pause.create", null);
    for (const e of [enter, checks, pause]) await d.enqueue("C1", WIDGETS, e);
    expect((await d.deliverPending()).sent).toBe(3);
    const [parent, reply, top] = slack.in("C1");
    expect(parent).toMatchObject({
      threadTs: null,
      text: "parent #42: action.queue.enter",
      eventId: enter.id,
    });
    expect(reply).toMatchObject({ threadTs: parent?.ts, eventId: checks.id });
    expect(top).toMatchObject({ threadTs: null, eventId: pause.id });
    expect(slack.updates).toEqual([
      expect.objectContaining({ ts: parent?.ts, text: "parent #42: action.queue.checks_start" }),
    ]);
    expect((await d.deliverPending()).sent).toBe(0);
  });

  it("posts each event once per channel, however often it is enqueued", async () => {
    const d = deliverer();
    const e = event("action.queue.enter");
    await d.enqueue("C1", WIDGETS, e);
    await d.enqueue("C2", WIDGETS, e);
    await d.deliverPending();
    await d.enqueue("C1", WIDGETS, e);
    await d.deliverPending();
    expect(slack.messages.map((m) => m.channel).sort()).toEqual(["C1", "C2"]);
  });

  it("after a crash between posting and recording, finds the message instead of posting it again", async () => {
    const first = deliverer();
    const e = event("action.queue.enter");
    await first.enqueue("C1", WIDGETS, e);
    const markSent = store.markNotificationSent.bind(store);
    store.markNotificationSent = async () => {
      throw new Error("crash");
    };
    await first.deliverPending();
    expect(slack.messages).toHaveLength(1);
    store.markNotificationSent = markSent;

    const restarted = deliverer();
    now = new Date(now.getTime() + 60_000);
    await restarted.deliverPending();
    expect(slack.messages).toHaveLength(1);
    expect(await store.listPendingNotifications(new Date(now.getTime() + 1), 10)).toEqual([]);
    expect(await store.getThread("C1", WIDGETS, 42)).toMatchObject({
      parentTs: slack.messages[0]?.ts,
    });
  });

  it("after a crash between posting a reply and recording it, records the reply with its thread's state", async () => {
    const first = deliverer();
    await first.enqueue("C1", WIDGETS, event("action.queue.enter"));
    await first.deliverPending();
    const checks = event("action.queue.checks_start");
    await first.enqueue("C1", WIDGETS, checks);
    const markSent = store.markNotificationSent.bind(store);
    store.markNotificationSent = async () => {
      throw new Error("crash");
    };
    await first.deliverPending();
    store.markNotificationSent = markSent;
    const [parent, reply] = slack.in("C1");
    expect(reply).toMatchObject({ threadTs: parent?.ts, eventId: checks.id });
    slack.updates = [];

    const restarted = deliverer();
    now = new Date(now.getTime() + 60_000);
    await restarted.deliverPending();
    expect(slack.messages).toHaveLength(2);
    expect(await store.listPendingNotifications(new Date(now.getTime() + 1), 10)).toEqual([]);
    expect(await store.getThread("C1", WIDGETS, 42)).toMatchObject({
      parentTs: parent?.ts,
      state: { latestType: "action.queue.checks_start" },
    });
    expect(slack.updates).toEqual([
      expect.objectContaining({ ts: parent?.ts, text: "parent #42: action.queue.checks_start" }),
    ]);
  });

  it("after a crash before posting, posts the message exactly once", async () => {
    const e = event("queue.pause.create", null);
    await deliverer().enqueue("C1", WIDGETS, e);
    const restarted = deliverer();
    await restarted.deliverPending();
    await restarted.deliverPending();
    expect(slack.in("C1").map((m) => m.eventId)).toEqual([e.id]);
  });

  it("backs off a channel the app left while others go on, then catches up", async () => {
    const d = deliverer();
    slack.failing.set(
      "C1",
      new SlackDeliveryError(SlackDeliveryErrorCode.ChannelUnavailable, "not_in_channel"),
    );
    const a = event("queue.pause.create", null);
    await d.enqueue("C1", WIDGETS, a);
    await d.enqueue("C2", WIDGETS, a);
    expect(await d.deliverPending()).toEqual({ sent: 1, failedChannels: 1 });
    expect(await store.getBackoff("channel:C1")).toMatchObject({ failures: 1, lastError: "not_in_channel" });
    slack.failing.delete("C1");
    expect((await d.deliverPending()).sent).toBe(0);
    now = new Date(now.getTime() + 5_000);
    expect((await d.deliverPending()).sent).toBe(1);
    expect(slack.in("C1")).toHaveLength(1);
    expect(await store.getBackoff("channel:C1")).toBeNull();
  });

  it("goes on with the other channels when the store fails around one, counting it as failed", async () => {
    const d = deliverer();
    const acquire = store.tryAcquireLease.bind(store);
    store.tryAcquireLease = async (name, ...rest) => {
      if (name === "deliver:C1") throw new Error("database is locked");
      return acquire(name, ...rest);
    };
    const a = event("queue.pause.create", null);
    await d.enqueue("C1", WIDGETS, a);
    await d.enqueue("C2", WIDGETS, a);
    expect(await d.deliverPending()).toEqual({ sent: 1, failedChannels: 1 });
    expect(slack.in("C2")).toHaveLength(1);
  });

  it("waits out Slack's Retry-After on a rate limit", async () => {
    const d = deliverer();
    slack.failing.set("C1", new SlackDeliveryError(SlackDeliveryErrorCode.RateLimited, "rate limited", 30));
    await d.enqueue("C1", WIDGETS, event("queue.pause.create", null));
    await d.deliverPending();
    slack.failing.delete("C1");
    now = new Date(now.getTime() + 20_000);
    expect((await d.deliverPending()).sent).toBe(0);
    now = new Date(now.getTime() + 11_000);
    expect((await d.deliverPending()).sent).toBe(1);
  });
});
