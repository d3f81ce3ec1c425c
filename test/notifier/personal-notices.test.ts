import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LogEvent } from "../../src/backends/mergify/index.js";
import { fromMergifyLog, mergifyStoredEvents } from "../../src/backends/mergify/queue-events.js";
import type { QueueEvent } from "../../src/core/queue.js";
import { createLogger } from "../../src/logger.js";
import { PersonalNotices } from "../../src/notifier/personal-notices.js";
import { Repo } from "../../src/repo.js";
import { openStore, type Store } from "../../src/store/index.js";

const widgets = Repo.of("acme", "widgets");
const T0 = Date.parse("2026-01-01T00:00:00Z");
const event = (type: string, pull: number | null, at = T0): QueueEvent =>
  fromMergifyLog({
    id: at,
    type,
    trigger: "test",
    repository: "acme/widgets",
    pull_request: pull,
    base_ref: pull === null ? null : "main",
    received_at: new Date(at).toISOString(),
    metadata: {},
  } as LogEvent);

let store: Store;
let levels: Record<string, string>;
let changed: string[];
const notices = () =>
  new PersonalNotices({
    store,
    author: async (_repo, number) => (number === 7 ? "Alice" : number === 8 ? "bob" : null),
    permission: async (_repo, login) => {
      const level = levels[login];
      if (level === "boom") throw new Error("GitHub is down");
      return (level ?? "none") as never;
    },
    onPullRequestChange: (p) => changed.push(p.slackUserId),
    // Threads an earlier version stored name Mergify's event types (as the wiring reads them back).
    storedEvents: mergifyStoredEvents,
    logger: createLogger({ level: "silent" }),
  });

beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  levels = { alice: "read", bob: "write" };
  changed = [];
  await store.putLink({
    teamId: "T1",
    slackUserId: "U1",
    githubLogin: "alice",
    githubId: 1,
    linkedAt: new Date(T0 - 1),
  });
  await store.putLink({
    teamId: "T1",
    slackUserId: "U2",
    githubLogin: "bob",
    githubId: 2,
    linkedAt: new Date(T0 + 60_000),
  });
});
afterEach(async () => {
  await store.close();
});

describe("who hears about an event in a direct message", () => {
  it("looks up each pull request's author once, however many of its events, a few at a time", async () => {
    const asked: number[] = [];
    let running = 0;
    let most = 0;
    const route = new PersonalNotices({
      store,
      author: async (_repo, number) => {
        asked.push(number);
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setImmediate(resolve));
        running -= 1;
        return number % 2 === 0 ? "alice" : "carol";
      },
      permission: async () => "read",
      logger: createLogger({ level: "silent" }),
    });
    // A backlog: 10 pull requests, 6 events each, interleaved.
    const types = ["action.queue.enter", "action.queue.checks_start", "action.queue.checks_end"];
    const backlog = Array.from({ length: 60 }, (_, i) =>
      event(types[i % 3] as string, 100 + (i % 10), T0 + i),
    );
    await route.lookUpAuthors(widgets, backlog);
    expect(asked.sort()).toEqual(Array.from({ length: 10 }, (_, i) => 100 + i));
    expect(most).toBeLessThanOrEqual(4);
    // Routing the events asks GitHub for nothing more, even all at once.
    const routed = await Promise.all(backlog.map((e) => route.route(widgets, e)));
    expect(asked).toHaveLength(10);
    // Alice's (even numbers) entries: the checks are not in her default groups; carol never linked.
    expect(routed.filter((a) => a.length > 0)).toHaveLength(10);
    // Two events of a new pull request at once: one lookup.
    await Promise.all([
      route.route(widgets, event("action.queue.enter", 500)),
      route.lookUpAuthors(widgets, [event("action.queue.leave", 500)]),
    ]);
    expect(asked).toHaveLength(11);
  });

  it("remembers a failed author lookup a minute (its events reach nobody), then asks GitHub again", async () => {
    let now = 1_000_000;
    let down = true;
    const asked: number[] = [];
    const route = new PersonalNotices({
      store,
      author: async (_repo, number) => {
        asked.push(number);
        if (down) throw new Error("GitHub is down");
        return "alice";
      },
      permission: async () => "read",
      logger: createLogger({ level: "silent" }),
      cacheNow: () => now,
    });
    const enter = event("action.queue.enter", 7);
    expect(await route.route(widgets, enter)).toEqual([]);
    down = false;
    now += 60_000;
    expect(await route.route(widgets, enter)).toEqual([]);
    expect(asked).toEqual([7]);
    now += 1;
    expect(await route.route(widgets, enter)).toEqual(["dm:T1:U1"]);
    // Once known, the author is remembered: the next event asks nothing.
    now += 60 * 60_000;
    expect(await route.route(widgets, enter)).toEqual(["dm:T1:U1"]);
    expect(asked).toEqual([7, 7]);
  });

  it("the pull request's linked author, matched case-insensitively, who can read the repository", async () => {
    const route = notices();
    expect(await route.route(widgets, event("action.queue.enter", 7))).toEqual(["dm:T1:U1"]);
    expect(changed).toEqual(["U1"]);
    // Queue-wide counts stay in channels; a pull request nobody linked is nobody's.
    expect(await route.route(widgets, event("action.queue.change", 7))).toEqual([]);
    expect(await route.route(widgets, event("action.queue.enter", 9))).toEqual([]);
  });

  it("nobody who linked after the event, cannot read the repository, or whose lookup failed", async () => {
    expect(await notices().route(widgets, event("action.queue.enter", 8))).toEqual([]);
    levels.alice = "none";
    expect(await notices().route(widgets, event("action.queue.enter", 7))).toEqual([]);
    levels.alice = "boom";
    expect(await notices().route(widgets, event("action.queue.enter", 7))).toEqual([]);
  });

  it("a pause: each person whose pull request the queue holds, by their notices, if they want pauses", async () => {
    await store.putNoticePreferences({
      teamId: "T1",
      slackUserId: "U1",
      enabled: true,
      groups: ["queue", "pause"],
      mutedRepositories: [],
      updatedAt: new Date(T0),
    });
    const record = async (pull: number, latestType: string, eventId: number) => {
      await store.addNotification({
        channelId: "dm:T1:U1",
        eventId,
        repository: widgets,
        pullRequest: pull,
        eventType: latestType,
        payload: {},
        claimedAt: new Date(T0),
      });
      await store.markNotificationSent({
        channelId: "dm:T1:U1",
        eventId,
        message: { ts: `${eventId}.0`, threadTs: null },
        thread: { parentTs: `${eventId}.0`, state: { latestType } },
        at: new Date(T0),
      });
    };
    // A thread's state as an earlier version stored it (Mergify's event type), and as this one does.
    await record(5, "action.queue.merged", 1);
    await record(4, "left", 9);
    const pause = event("queue.pause.create", null, T0 + 1);
    expect(await notices().route(widgets, pause)).toEqual([]);
    await record(6, "action.queue.enter", 2);
    await record(7, "action.queue.checks_start", 3);
    expect(await notices().route(widgets, pause)).toEqual(["dm:T1:U1"]);
    expect(changed).toEqual([]);
    // The checks' starts are read too, for "you're next".
    expect(await notices().wantedGroups()).toEqual(["checks", "pause", "queue"]);
  });

  it("the linked person who queued the pull request hears what its author does, once each when the same", async () => {
    await store.putLink({
      teamId: "T1",
      slackUserId: "U3",
      githubLogin: "carol",
      githubId: 3,
      linkedAt: new Date(T0 - 1),
    });
    levels.carol = "write";
    const base = { repository: "acme/widgets", branch: "main", queue: "default", origin: "test" };
    const entered = (id: number, pull: number, queuedBy: string | null): QueueEvent => ({
      ...base,
      id,
      at: new Date(T0 + id).toISOString(),
      pull,
      kind: "entered",
      queuedBy,
    });
    const merged = (id: number, pull: number): QueueEvent => ({
      ...base,
      id,
      at: new Date(T0 + id).toISOString(),
      pull,
      kind: "merged",
      sha: null,
      enteredAt: null,
    });
    const route = notices();
    // Carol queued Alice's #7: both hear of its entry, and (from the history's entry) of its merge.
    const entry = entered(1, 7, "Carol");
    await store.recordQueueEvents(widgets, [entry, merged(2, 7)], new Date(T0));
    expect(await route.route(widgets, entry)).toEqual(["dm:T1:U1", "dm:T1:U3"]);
    expect(await route.route(widgets, merged(2, 7))).toEqual(["dm:T1:U1", "dm:T1:U3"]);
    // Alice queued her own #7 again: one direct message.
    const own = entered(3, 7, "alice");
    await store.recordQueueEvents(widgets, [own, merged(4, 7)], new Date(T0));
    expect(await route.route(widgets, own)).toEqual(["dm:T1:U1"]);
    expect(await route.route(widgets, merged(4, 7))).toEqual(["dm:T1:U1"]);
    // Carol muted the repository: her notices of it stop, Alice's go on.
    await store.putNoticePreferences({
      teamId: "T1",
      slackUserId: "U3",
      enabled: true,
      groups: ["queue"],
      mutedRepositories: [widgets],
      updatedAt: new Date(T0),
    });
    expect(await route.route(widgets, entered(5, 7, "carol"))).toEqual(["dm:T1:U1"]);
  });

  it("you're next: the first checks start of an entry is a queue notice for its people, with its estimate", async () => {
    const base = { repository: "acme/widgets", pull: 7, branch: "main", queue: "default", origin: "test" };
    const at = (id: number) => new Date(T0 + id).toISOString();
    const entry: QueueEvent = { ...base, id: 1, at: at(1), kind: "entered", queuedBy: "alice" };
    const start: QueueEvent = { ...base, id: 2, at: at(2), kind: "checks-started", batch: null };
    const restart: QueueEvent = { ...base, id: 3, at: at(3), kind: "checks-started", batch: null };
    await store.recordQueueEvents(widgets, [entry, start, restart], new Date(T0));
    const route = notices();
    // Alice's default groups have no checks: only the first start reaches her, as "you're next".
    expect(await route.route(widgets, start)).toEqual(["dm:T1:U1"]);
    expect((await route.forPeople(widgets, start)).notes).toEqual({ next: { estimatedMergeAt: null } });
    expect(await route.route(widgets, restart)).toEqual([]);
    expect(await route.forPeople(widgets, restart)).toBe(restart);
  });
});
