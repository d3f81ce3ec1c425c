import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { QueueEvent, QueueEventBody } from "../../src/core/queue.js";
import { createLogger } from "../../src/logger.js";
import { Backoffs } from "../../src/notifier/backoff.js";
import { Deliverer } from "../../src/notifier/deliverer.js";
import { PushedNotices } from "../../src/notifier/pushed-notices.js";
import { notificationRenderer } from "../../src/notifier/render-notification.js";
import { Repo } from "../../src/repo.js";
import { SlackHolds } from "../../src/slack/slack-holds.js";
import { openStore, type Store } from "../../src/store/index.js";
import { memoryPoster } from "../helpers/memory-poster.js";

// The notices of queue events a backend pushes (src/core/pushed-events.ts), whichever backend it is:
// GitHub's webhooks turned into these events are tested in test/backends/github/pushed-events.test.ts.

const ships = Repo.of("acme", "ships");
const T0 = new Date("2026-11-23T10:00:00Z");

let store: Store;
let nextId = -1;

/** A queue event of pull request #12 of acme/ships, pushed `ms` after T0. */
function event(body: QueueEventBody, ms = 0, repository = ships): QueueEvent {
  return {
    id: nextId--,
    at: new Date(T0.getTime() + ms).toISOString(),
    repository: repository.fullName,
    pull: 12,
    branch: "main",
    queue: "main",
    origin: "test",
    ...body,
  } as QueueEvent;
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
});
afterEach(() => store.close());

describe("notices of pushed queue events", () => {
  let enqueued: { address: string; event: QueueEvent }[];
  let delivered: number;
  let recorded: QueueEvent[];
  let notices: PushedNotices;
  beforeEach(() => {
    enqueued = [];
    delivered = 0;
    recorded = [];
    notices = new PushedNotices({
      deliverer: { enqueue: async (address, _repo, e) => void enqueued.push({ address, event: e }) },
      subscriptions: (repository) => store.listSubscriptions({ repository }),
      deliver: async () => {
        delivered += 1;
      },
      history: { record: async (_repository, events) => void recorded.push(...events) },
      logger: createLogger({ level: "silent" }),
    });
  });

  it("an event is recorded in the history, routed to the subscribed channel and delivered at once", async () => {
    const entered = event({ kind: "entered", queuedBy: "carol" });
    await notices.accept(ships, entered);
    expect(recorded).toEqual([entered]);
    expect(enqueued).toEqual([{ address: "C1", event: entered }]);
    expect(delivered).toBe(1);
  });

  it("an event of a repository nobody subscribed to goes nowhere", async () => {
    const boats = Repo.of("acme", "boats");
    await notices.accept(boats, event({ kind: "entered", queuedBy: "carol" }, 0, boats));
    expect(enqueued).toEqual([]);
  });
});

describe("pushed notices, in the order their events happened", () => {
  const { posts, poster } = memoryPoster();

  it("a pull request's thread starts with its entry, even when its merge group's notice was pushed first", async () => {
    posts.length = 0;
    const now = () => new Date(T0.getTime() + 5);
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
    const notices = new PushedNotices({
      deliverer,
      subscriptions: (repository) => store.listSubscriptions({ repository }),
      deliver: async () => {},
      logger: createLogger({ level: "silent" }),
    });
    const entered = event({ kind: "entered", queuedBy: "carol" }, 0);
    const started = event({ kind: "checks-started", batch: null }, 1);
    await notices.accept(ships, started);
    await notices.accept(ships, entered);
    await deliverer.deliverPending();
    expect(posts).toEqual([
      { eventId: entered.id, reply: false },
      { eventId: started.id, reply: true },
    ]);
  });
});
