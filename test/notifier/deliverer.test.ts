import { beforeEach, describe, expect, it } from "vitest";
import type { LogEvent } from "../../src/backends/mergify/index.js";
import { fromMergifyLog } from "../../src/backends/mergify/queue-events.js";
import type { QueueEvent } from "../../src/core/queue.js";
import { createLogger } from "../../src/logger.js";
import { createMetrics, type Metrics } from "../../src/metrics.js";
import { Backoffs } from "../../src/notifier/backoff.js";
import {
  type ChatCall,
  DeliveryError,
  DeliveryErrorCode,
  type PostedMessage,
} from "../../src/notifier/chat.js";
import {
  CLAIMED_ELSEWHERE_MS,
  DELIVER_KIND,
  DELIVERY_LEASE_MS,
  Deliverer,
} from "../../src/notifier/deliverer.js";
import { Repo } from "../../src/repo.js";
import { type PostPace, SLACK_POST_PACE, SlackHolds, SlackPace } from "../../src/slack/slack-holds.js";
import { SLACK_METHODS } from "../../src/slack/slack-poster.js";
import { openStore, type Store } from "../../src/store/index.js";
import { slackLaidOut } from "../helpers/slack-notices.js";
import { summaryRender } from "./summary-render.js";

/** A Slack channel in memory: messages with their event metadata, threads, and failures on demand. */
class FakeSlack {
  messages: { channel: string; ts: string; threadTs: string | null; text: string; eventId: number }[] = [];
  updates: { channel: string; ts: string; text: string }[] = [];
  /** Every call in order: method and channel. */
  calls: { method: string; channel: string }[] = [];
  failing = new Map<string, DeliveryError>();
  /** Each post's failure in turn (undefined: the post goes through), before `failing`. */
  postFailures: (DeliveryError | undefined)[] = [];
  updateFailures: DeliveryError[] = [];
  onPost: (channel: string) => void = () => {};
  private seq = 0;
  async post(m: {
    channel: string;
    text: string;
    threadTs?: string;
    eventId: number;
  }): Promise<PostedMessage> {
    this.calls.push({ method: "chat.postMessage", channel: m.channel });
    this.onPost(m.channel);
    const next = this.postFailures.shift();
    if (next) throw next;
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
    this.calls.push({ method: "chat.update", channel: m.channel });
    const failure = this.updateFailures.shift();
    if (failure) throw failure;
    this.updates.push(m);
  }
  async findPosted(channel: string, options: { threadTs?: string }) {
    this.calls.push({
      method: options.threadTs ? "conversations.replies" : "conversations.history",
      channel,
    });
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

const WIDGETS = Repo.of("acme", "widgets");
let store: Store;
let slack: FakeSlack;
let now: Date;
const logger = createLogger({ level: "silent" });

function deliverer(options: { owner?: string; metrics?: Metrics; pace?: PostPace } = {}) {
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
    owner: options.owner ?? "replica-1",
    logger,
    now: () => now,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.pace ? { pace: new SlackPace(store, options.pace) } : {}),
  });
}

/** `owner` claims the channel's delivery (asked for first, unless not `ask`), as its runner would: true if it got it. */
async function holdChannel(channel: string, owner: string, ask = true): Promise<boolean> {
  if (ask) await store.scheduleWork({ kind: DELIVER_KIND, key: channel, dueAt: now, when: "earlier" });
  const work = { kind: DELIVER_KIND, owner, now, leaseMs: DELIVERY_LEASE_MS, limit: 1 };
  return (await store.claimWork(work)).claimed.length > 0;
}

let nextId = 1;
function event(type: string, pull: number | null = 42): QueueEvent {
  return fromMergifyLog({
    id: nextId++,
    received_at: now.toISOString(),
    trigger: "merge queue",
    repository: "acme/widgets",
    pull_request: pull,
    base_ref: pull === null ? null : "main",
    type,
    metadata: {},
  } as LogEvent);
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
      state: { latestType: "checks-started" },
    });
    expect(slack.updates).toEqual([
      expect.objectContaining({ ts: parent?.ts, text: "parent #42: action.queue.checks_start" }),
    ]);
  });

  it("after a crash before posting, posts the message exactly once", async () => {
    const e = event("queue.pause.create", null);
    await deliverer().enqueue("C1", WIDGETS, e);
    const restarted = deliverer();
    now = new Date(now.getTime() + CLAIMED_ELSEWHERE_MS);
    await restarted.deliverPending();
    await restarted.deliverPending();
    expect(slack.in("C1").map((m) => m.eventId)).toEqual([e.id]);
  });

  it("backs off a channel the app left while others go on, then catches up", async () => {
    const d = deliverer();
    slack.failing.set("C1", new DeliveryError(DeliveryErrorCode.ChannelUnavailable, "not_in_channel"));
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
    const list = store.listPendingNotifications.bind(store);
    store.listPendingNotifications = async (olderThan, limit, channel) => {
      if (channel === "C1") throw new Error("database is locked");
      return list(olderThan, limit, channel);
    };
    const a = event("queue.pause.create", null);
    await d.enqueue("C1", WIDGETS, a);
    await d.enqueue("C2", WIDGETS, a);
    expect(await d.deliverPending()).toEqual({ sent: 1, failedChannels: 1 });
    expect(slack.in("C2")).toHaveLength(1);
  });
});

/** A 429 as Slack's poster says it (src/slack/slack-poster.ts): the call, and Slack's name of it. */
const rateLimited = (retryAfter: number, call: ChatCall = "post") =>
  new DeliveryError(DeliveryErrorCode.RateLimited, "Slack rate limit", retryAfter, call, SLACK_METHODS[call]);
const later = (ms: number) => new Date(now.getTime() + ms);

describe("Deliverer and Slack's rate limits", () => {
  it("holds only the channel a post's 429 names, for exactly its Retry-After, and not as a failure", async () => {
    const d = deliverer();
    const [a1, a2, b1] = [
      event("queue.pause.create", null),
      event("queue.pause.update", null),
      event("queue.pause.delete", null),
    ];
    await d.enqueue("C1", WIDGETS, a1);
    await d.enqueue("C1", WIDGETS, a2);
    await d.enqueue("C2", WIDGETS, b1);
    // C1's first post is refused (C2's may come first: the channels are posted at once).
    let limited = false;
    slack.onPost = (channel) => {
      if (channel !== "C1" || limited) return;
      limited = true;
      throw rateLimited(7);
    };
    const limitedAt = now;
    // C1 may go on when its hold ends: the poller delivers again then.
    expect(await d.deliverPending()).toEqual({ sent: 1, failedChannels: 0, nextAt: later(7_000) });
    expect(slack.in("C2").map((m) => m.eventId)).toEqual([b1.id]);
    expect(await store.getBackoff("slack-hold:channel:C1")).toMatchObject({
      failures: 0,
      nextAttemptAt: new Date(limitedAt.getTime() + 7_000),
    });
    expect(await store.getBackoff("slack-hold:channel:C2")).toBeNull();
    expect(await store.getBackoff("channel:C1")).toBeNull();

    now = later(6_999);
    expect((await d.deliverPending()).sent).toBe(0);
    expect(slack.calls.filter((c) => c.channel === "C1")).toHaveLength(1);
    now = new Date(limitedAt.getTime() + 7_000);
    expect((await d.deliverPending()).sent).toBe(2);
    expect(slack.in("C1").map((m) => m.eventId)).toEqual([a1.id, a2.id]);
    // Rows this process claimed and Slack refused are not in doubt: no history lookup.
    expect(slack.calls.map((c) => c.method)).not.toContain("conversations.history");

    // The next real failure starts the failure backoff at one.
    await d.enqueue("C1", WIDGETS, event("queue.pause.create", null));
    slack.failing.set("C1", new DeliveryError(DeliveryErrorCode.Failed, "internal_error"));
    expect(await d.deliverPending()).toEqual({ sent: 0, failedChannels: 1 });
    expect(await store.getBackoff("channel:C1")).toMatchObject({ failures: 1 });
  });

  it("holds parent edits on a chat.update 429, posts on, and edits the parent later once with the latest state", async () => {
    const d = deliverer();
    await d.enqueue("C1", WIDGETS, event("action.queue.enter"));
    await d.deliverPending();
    await d.enqueue("C1", WIDGETS, event("action.queue.checks_start"));
    slack.updateFailures = [rateLimited(20, "edit")];
    expect((await d.deliverPending()).sent).toBe(1);
    expect(await store.getBackoff("slack-hold:method:chat.update")).toMatchObject({
      nextAttemptAt: later(20_000),
    });
    expect(await store.getBackoff("slack-hold:channel:C1")).toBeNull();
    expect(await store.getThread("C1", WIDGETS, 42)).toMatchObject({ parentStale: true });

    // Posts go on while updates are held; no edit is tried.
    now = later(5_000);
    await d.enqueue("C1", WIDGETS, event("action.queue.checks_end"));
    expect((await d.deliverPending()).sent).toBe(1);
    expect(slack.calls.filter((c) => c.method === "chat.update")).toHaveLength(1);

    now = later(15_000);
    await d.deliverPending();
    expect(slack.updates.map((u) => u.text)).toEqual(["parent #42: action.queue.checks_end"]);
    expect(await store.getThread("C1", WIDGETS, 42)).toMatchObject({ parentStale: false });
    await d.deliverPending();
    expect(slack.updates).toHaveLength(1);
  });

  it("leaves a thread parent that is gone as it is, and edits one whose edit failed in a later pass", async () => {
    const d = deliverer();
    await d.enqueue("C1", WIDGETS, event("action.queue.enter"));
    await d.deliverPending();
    // A failure another try may mend: the parent stays stale, edited in a later pass.
    await d.enqueue("C1", WIDGETS, event("action.queue.checks_start"));
    slack.updateFailures = [new DeliveryError(DeliveryErrorCode.Failed, "internal_error", undefined, "edit")];
    await d.deliverPending();
    expect(await store.getThread("C1", WIDGETS, 42)).toMatchObject({ parentStale: true });
    // Gone (deleted, or past its edit window): left as it is, never tried again.
    now = later(60_000);
    slack.updateFailures = [
      new DeliveryError(DeliveryErrorCode.MessageGone, "message_not_found", undefined, "edit"),
    ];
    await d.deliverPending();
    expect(await store.getThread("C1", WIDGETS, 42)).toMatchObject({ parentStale: false });
    now = later(120_000);
    await d.deliverPending();
    expect(slack.calls.filter((c) => c.method === "chat.update")).toHaveLength(2);
    expect(slack.updates).toEqual([]);
  });

  it("edits a thread's parent once for several replies in one pass, after the last of them", async () => {
    const d = deliverer();
    await d.enqueue("C1", WIDGETS, event("action.queue.enter"));
    await d.deliverPending();
    for (const type of ["action.queue.checks_start", "action.queue.checks_end", "action.queue.merged"])
      await d.enqueue("C1", WIDGETS, event(type));
    slack.calls = [];
    expect((await d.deliverPending()).sent).toBe(3);
    expect(slack.calls.map((c) => c.method)).toEqual([
      "chat.postMessage",
      "chat.postMessage",
      "chat.postMessage",
      "chat.update",
    ]);
    expect(slack.updates.map((u) => u.text)).toEqual(["parent #42: action.queue.merged"]);
  });

  it("posts rows another replica claimed and nobody began, in order and without a lookup", async () => {
    const other = deliverer({ owner: "replica-2" });
    const mine = deliverer();
    const recent = event("queue.pause.create", null);
    const after = event("queue.pause.delete", null);
    now = later(-5_000);
    await other.enqueue("C1", WIDGETS, recent);
    now = later(5_000);
    await mine.enqueue("C1", WIDGETS, after);
    expect((await mine.deliverPending()).sent).toBe(2);
    expect(slack.calls.map((c) => c.method)).toEqual(["chat.postMessage", "chat.postMessage"]);
    expect(slack.in("C1").map((m) => m.eventId)).toEqual([recent.id, after.id]);
    // The other replica finds them sent: nothing twice.
    expect((await other.deliverPending()).sent).toBe(0);
    expect(slack.in("C1")).toHaveLength(2);
  });

  it("looks up a row another replica began posting, and recovers it instead of posting it twice", async () => {
    const other = deliverer({ owner: "replica-2" });
    const mine = deliverer();
    const begun = event("queue.pause.create", null);
    const next = event("queue.pause.delete", null);
    await other.enqueue("C1", WIDGETS, begun);
    await other.enqueue("C1", WIDGETS, next);
    // The other replica died after posting the first, before recording it.
    expect(await store.markNotificationBegun("C1", begun.id, "replica-2")).toBe(true);
    await slack.post({ channel: "C1", text: "x", eventId: begun.id });
    slack.calls = [];
    now = later(5_000);
    expect((await mine.deliverPending()).sent).toBe(1);
    expect(slack.calls.map((c) => c.method)).toEqual(["conversations.history", "chat.postMessage"]);
    expect(slack.in("C1").map((m) => m.eventId)).toEqual([begun.id, next.id]);
    expect(await store.listPendingNotifications(later(1), 10)).toEqual([]);
  });

  it("looks up an unmarked row another replica claimed long ago (a replica of an earlier version)", async () => {
    const other = deliverer({ owner: "replica-2" });
    const mine = deliverer();
    const old = event("queue.pause.create", null);
    await other.enqueue("C1", WIDGETS, old);
    await slack.post({ channel: "C1", text: "x", eventId: old.id });
    slack.calls = [];
    now = later(CLAIMED_ELSEWHERE_MS);
    expect((await mine.deliverPending()).sent).toBe(0);
    expect(slack.calls.map((c) => c.method)).toEqual(["conversations.history"]);
    expect(slack.in("C1").map((m) => m.eventId)).toEqual([old.id]);
    expect(await store.listPendingNotifications(later(1), 10)).toEqual([]);
  });

  it("takes over a dead replica's rows once its claim on the channel lapses, without waiting for the rows to age", async () => {
    const dead = deliverer({ owner: "dead-replica" });
    const events = [0, 1, 2].map(() => event("queue.pause.create", null));
    for (const e of events) await dead.enqueue("C1", WIDGETS, e);
    // It took the channel, began the first post and died before recording it.
    expect(await holdChannel("C1", "dead-replica")).toBe(true);
    await store.markNotificationBegun("C1", events[0]!.id, "dead-replica");
    await slack.post({ channel: "C1", text: "x", eventId: events[0]!.id });
    const mine = deliverer();
    expect((await mine.deliverPending()).sent).toBe(0);
    now = later(DELIVERY_LEASE_MS);
    expect((await mine.deliverPending()).sent).toBe(2);
    expect(slack.in("C1").map((m) => m.eventId)).toEqual(events.map((e) => e.id));
    expect(await store.listPendingNotifications(later(1), 10)).toEqual([]);
    // Back (a new process under the same name), it has nothing left to post.
    expect((await deliverer({ owner: "dead-replica" }).deliverPending()).sent).toBe(0);
    expect(slack.in("C1")).toHaveLength(3);
  });

  it("reads the channel's rows under its claim: one another replica posted meanwhile is not posted twice", async () => {
    const mine = deliverer();
    const other = deliverer({ owner: "replica-2" });
    const e = event("queue.pause.create", null);
    await mine.enqueue("C1", WIDGETS, e);
    now = later(CLAIMED_ELSEWHERE_MS);
    const claim = store.claimWork.bind(store);
    let interleaved = false;
    store.claimWork = async (work) => {
      if (work.owner === "replica-1" && !interleaved) {
        interleaved = true; // between replica-1's ask and its claim, replica-2 delivers the row
        expect((await other.deliverPending()).sent).toBe(1);
      }
      return claim(work);
    };
    expect((await mine.deliverPending()).sent).toBe(0);
    expect(interleaved).toBe(true);
    expect(slack.in("C1").map((m) => m.eventId)).toEqual([e.id]);
  });

  it("takes over the channel of a replica that died holding its claim, and renews its own in a long run", async () => {
    await holdChannel("C1", "dead-replica");
    const d = deliverer();
    for (let i = 0; i < 5; i++) await d.enqueue("C1", WIDGETS, event("queue.pause.create", null));
    expect((await d.deliverPending()).sent).toBe(0);
    now = later(DELIVERY_LEASE_MS);
    // Each post takes most of a lease (a Slack call with its retries gives up sooner than a lease): the
    // run outlasts the claim's length, yet nobody else can take the channel.
    const tries: Promise<boolean>[] = [];
    slack.onPost = () => {
      now = later(DELIVERY_LEASE_MS * 0.7);
      tries.push(holdChannel("C1", "replica-2", false));
    };
    expect((await d.deliverPending()).sent).toBe(5);
    const takenByOther = await Promise.all(tries);
    expect(takenByOther.length).toBeGreaterThan(0);
    expect(takenByOther.every((got) => !got)).toBe(true);
  });

  it("counts 429s by channel and method, and measures the outbox per channel", async () => {
    const metrics = createMetrics();
    const d = deliverer({ metrics });
    await d.enqueue("C1", WIDGETS, event("queue.pause.create", null));
    now = later(10_000);
    await d.enqueue("C1", WIDGETS, event("queue.pause.delete", null));
    await d.enqueue("C2", WIDGETS, event("queue.pause.create", null));
    let limited = false;
    slack.onPost = (channel) => {
      if (channel !== "C1" || limited) return;
      limited = true;
      throw rateLimited(3);
    };
    await d.deliverPending();
    let text = await metrics.registry.metrics();
    expect(text).toContain('yardmaster_slack_rate_limited_total{channel="C1",method="chat.postMessage"} 1\n');
    expect(text).toContain('yardmaster_outbox_pending{channel="C1"} 2\n');
    expect(text).not.toContain('yardmaster_outbox_pending{channel="C2"}');
    expect(text).toContain("yardmaster_outbox_oldest_pending_age_seconds 10\n");

    now = later(3_000);
    await d.deliverPending();
    text = await metrics.registry.metrics();
    expect(text).not.toContain("yardmaster_outbox_pending{");
    expect(text).toContain("yardmaster_outbox_oldest_pending_age_seconds 0\n");
  });
});

describe("Deliverer at Slack's pace", () => {
  const pulls = (n: number) => Array.from({ length: n }, (_, i) => 100 + i);

  it("posts a channel's backlog a burst then one a second, without 429s, while other channels go on", async () => {
    const d = deliverer({ pace: SLACK_POST_PACE });
    for (const pull of pulls(10)) await d.enqueue("C1", WIDGETS, event("action.queue.enter", pull));
    await d.enqueue("C2", WIDGETS, event("queue.pause.create", null));
    const start = now;
    // The burst, then the channel says when it may go on.
    expect(await d.deliverPending()).toEqual({ sent: 4, failedChannels: 0, nextAt: later(1_000) });
    expect(slack.in("C1")).toHaveLength(3);
    expect(slack.in("C2")).toHaveLength(1);
    // Too early: nothing.
    now = later(999);
    expect((await d.deliverPending()).sent).toBe(0);
    // Then one a second: 7 more in 7 seconds.
    for (let s = 1; s <= 7; s++) {
      now = new Date(start.getTime() + s * 1_000);
      expect(await d.deliverPending()).toMatchObject({ sent: 1 });
    }
    expect(slack.in("C1").map((m) => m.threadTs)).toEqual(Array(10).fill(null));
    expect(await d.deliverPending()).toEqual({ sent: 0, failedChannels: 0 });
  });

  it("does not hold a channel up behind another channel's long backlog", async () => {
    const d = deliverer({ pace: SLACK_POST_PACE });
    for (let i = 0; i < 600; i++) await d.enqueue("C1", WIDGETS, event("queue.pause.update", null));
    now = later(1);
    await d.enqueue("C2", WIDGETS, event("queue.pause.create", null));
    expect((await d.deliverPending()).sent).toBe(4);
    expect(slack.in("C1")).toHaveLength(3);
    expect(slack.in("C2")).toHaveLength(1);
  });

  it("keeps the pace whichever replica holds the channel", async () => {
    const a = deliverer({ owner: "a", pace: SLACK_POST_PACE });
    const b = deliverer({ owner: "b", pace: SLACK_POST_PACE });
    for (const pull of pulls(3)) await a.enqueue("C1", WIDGETS, event("action.queue.enter", pull));
    expect((await a.deliverPending()).sent).toBe(3);
    // Another replica's rows for the channel, at once: the burst is spent, for it too.
    for (const pull of pulls(2)) await b.enqueue("C1", WIDGETS, event("action.queue.leave", pull));
    expect(await b.deliverPending()).toEqual({ sent: 0, failedChannels: 0, nextAt: later(1_000) });
    now = later(1_000);
    expect((await b.deliverPending()).sent).toBe(1);
    expect(slack.in("C1")).toHaveLength(4);
  });

  it("edits a thread's parent once, after the last of its replies, however many passes they take", async () => {
    const d = deliverer({ pace: SLACK_POST_PACE });
    const types = [
      "action.queue.enter",
      "action.queue.checks_start",
      "action.queue.checks_end",
      "action.queue.merged",
      "action.queue.checks_start",
      "action.queue.checks_end",
    ];
    for (const type of types) await d.enqueue("C1", WIDGETS, event(type, 42));
    await d.enqueue("C1", WIDGETS, event("action.queue.enter", 43));
    await d.enqueue("C1", WIDGETS, event("action.queue.checks_start", 43));
    const start = now;
    for (let s = 0; s <= 6; s++) {
      now = new Date(start.getTime() + s * 1_000);
      await d.deliverPending();
      // #42's parent waits for its last reply; #43's was edited once it had no more to post.
      if (s < 3) expect(slack.updates).toEqual([]);
    }
    expect(slack.in("C1")).toHaveLength(8);
    expect(slack.updates.map((u) => u.text)).toEqual([
      "parent #42: action.queue.checks_end",
      "parent #43: action.queue.checks_start",
    ]);
  });
});
