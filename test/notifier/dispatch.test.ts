import { describe, expect, it } from "vitest";
import type { QueueEvent } from "../../src/core/queue.js";
import type { Subscription } from "../../src/core/records.js";
import { Turns } from "../../src/event-loop.js";
import { dispatchEvents } from "../../src/notifier/dispatch.js";
import { Repo } from "../../src/repo.js";

const widgets = Repo.of("acme", "widgets");
const T0 = Date.parse("2026-01-01T00:00:00Z");
const event = (id: number, pull: number): QueueEvent => ({
  id,
  kind: "entered",
  at: new Date(T0 + id).toISOString(),
  repository: "acme/widgets",
  pull,
  branch: "main",
  queue: "default",
  origin: "test",
});
const subscription: Subscription = {
  channelId: "C1",
  teamId: "T1",
  repository: widgets,
  branchGlob: null,
  groups: ["queue"],
  createdBy: "U1",
  createdAt: new Date(T0 - 60_000),
};

describe("a read's events handed to the outbox", () => {
  it("queues every channel notice, and asks for delivery, before any author lookup; people's after, in order", async () => {
    const log: string[] = [];
    let release: () => void = () => {};
    const lookedUp = new Promise<void>((resolve) => {
      release = resolve;
    });
    const backlog = Array.from({ length: 120 }, (_, i) => event(i + 1, 100 + (i % 7)));
    const dispatching = dispatchEvents(
      {
        deliverer: {
          enqueue: async (address, _repo, e) => {
            log.push(`${address} ${e.id}`);
          },
        },
        personal: {
          // Held until the test releases it: the channel's notices must not wait for it.
          lookUpAuthors: async () => {
            log.push("lookup");
            await lookedUp;
          },
          route: async () => ["dm:T1:U1"],
        },
        onChannelsQueued: () => log.push("deliver"),
      },
      widgets,
      backlog,
      [subscription],
    );
    while (!log.includes("lookup")) await new Promise((resolve) => setImmediate(resolve));
    const channels = backlog.map((e) => `C1 ${e.id}`);
    // Delivery is asked for after the first 50, the next 50, and the end.
    expect(log.filter((l) => l !== "deliver")).toEqual([...channels, "lookup"]);
    expect(log.indexOf("deliver")).toBe(50);
    expect(log.filter((l) => l === "deliver")).toHaveLength(3);
    release();
    await dispatching;
    expect(log.slice(log.indexOf("lookup") + 1)).toEqual(backlog.map((e) => `dm:T1:U1 ${e.id}`));
  });

  it("queues each event as the history annotates it, and people's as their notices show it", async () => {
    const queued: string[] = [];
    await dispatchEvents(
      {
        deliverer: {
          enqueue: async (address, _repo, e) => {
            queued.push(`${address} ${e.id} ${JSON.stringify(e.notes ?? {})}`);
          },
        },
        annotate: async (_repo, e) =>
          e.id === 1 ? { ...e, notes: { alsoFailed: [{ check: "ci/test", pulls: [9] }] } } : e,
        personal: {
          lookUpAuthors: async () => {},
          route: async (_repo, e) => (e.id === 3 ? [] : ["dm:T1:U1"]),
          forPeople: async (_repo, e) =>
            e.id === 2 ? { ...e, notes: { next: { estimatedMergeAt: null } } } : e,
        },
      },
      widgets,
      [event(1, 7), event(2, 7), event(3, 7)],
      [subscription],
    );
    const also = JSON.stringify({ alsoFailed: [{ check: "ci/test", pulls: [9] }] });
    expect(queued).toEqual([
      `C1 1 ${also}`,
      "C1 2 {}",
      "C1 3 {}",
      `dm:T1:U1 1 ${also}`,
      `dm:T1:U1 2 ${JSON.stringify({ next: { estimatedMergeAt: null } })}`,
    ]);
  });

  it("lets the event loop run between two turns, and still queues every notice once, in order", async () => {
    const log: string[] = [];
    const backlog = Array.from({ length: 30 }, (_, i) => event(i + 1, 100 + (i % 4)));
    // A turn of no time at all: the event loop runs before each event.
    let running = true;
    const other = () => {
      log.push("other");
      if (running) setImmediate(other);
    };
    setImmediate(other);
    await dispatchEvents(
      {
        deliverer: {
          enqueue: async (address, _repo, e) => {
            log.push(`${address} ${e.id}`);
          },
        },
        personal: { lookUpAuthors: async () => {}, route: async () => ["dm:T1:U1"] },
        turns: new Turns(0),
      },
      widgets,
      backlog,
      [subscription],
    );
    running = false;
    const queued = log.filter((l) => l !== "other");
    expect(queued).toEqual([...backlog.map((e) => `C1 ${e.id}`), ...backlog.map((e) => `dm:T1:U1 ${e.id}`)]);
    // Other work ran between the notices, not only before or after them all.
    const first = log.indexOf("C1 1");
    const last = log.lastIndexOf(`dm:T1:U1 ${backlog.length}`);
    expect(log.slice(first, last).filter((l) => l === "other").length).toBeGreaterThanOrEqual(
      2 * backlog.length - 1,
    );
  });
});
