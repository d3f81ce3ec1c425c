import type { App } from "@slack/bolt";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { handleEventsOnce, SlackEventFailed, SlackEventHeld } from "../../src/slack/events-once.js";
import { openStore, type Store } from "../../src/store/index.js";

type Middleware = (args: { body: unknown; next: () => Promise<void>; context: object }) => Promise<void>;

/** The middleware handleEventsOnce gives Bolt, on a real SQLite store, as replica `owner`. */
async function middleware(over: "http" | "socket", store?: Store, owner = "replica-a") {
  const used: Middleware[] = [];
  const app = { use: (fn: Middleware) => used.push(fn) } as unknown as App;
  const s = store ?? (await openStore({ kind: "sqlite", path: ":memory:" }));
  handleEventsOnce(app, { store: s, owner, logger: createLogger({ level: "silent" }), over });
  const run = (eventId: string, handler: () => Promise<void>, retryNum?: number) =>
    (used[0] as Middleware)({
      body: { type: "event_callback", event_id: eventId },
      next: handler,
      context: retryNum ? { retryNum } : {},
    });
  return { run, store: s };
}

describe("handleEventsOnce", () => {
  it("over HTTP, runs an event whose handling failed again on its retry, then never again", async () => {
    const { run, store } = await middleware("http");
    let runs = 0;
    const failing = async () => {
      runs += 1;
      throw new Error("chat.unfurl failed");
    };
    await expect(run("Ev1", failing)).rejects.toBeInstanceOf(SlackEventFailed);
    await run(
      "Ev1",
      async () => {
        runs += 1;
      },
      1,
    );
    await run(
      "Ev1",
      async () => {
        runs += 1;
      },
      2,
    );
    expect(runs).toBe(2);
    await store.close();
  });

  it("over HTTP, answers a delivery of an event another replica is handling as held (503), runs it not", async () => {
    const { run: onA, store } = await middleware("http");
    const { run: onB } = await middleware("http", store, "replica-b");
    let release: () => void = () => {};
    let started: () => void = () => {};
    const handling = new Promise<void>((resolve) => (started = resolve));
    const slow = onA("Ev2", () => {
      started();
      return new Promise<void>((resolve) => (release = resolve));
    });
    // Replica a's handler runs: it holds the event.
    await handling;
    let ranOnB = false;
    await expect(
      onB(
        "Ev2",
        async () => {
          ranOnB = true;
        },
        1,
      ),
    ).rejects.toBeInstanceOf(SlackEventHeld);
    release();
    await slow;
    await onB(
      "Ev2",
      async () => {
        ranOnB = true;
      },
      2,
    );
    expect(ranOnB).toBe(false);
    await store.close();
  });

  it("over Socket Mode, logs a failure instead of throwing it, and lets the next delivery run it", async () => {
    const { run, store } = await middleware("socket");
    await run("Ev3", async () => {
      throw new Error("views.publish failed");
    });
    let ran = false;
    await run("Ev3", async () => {
      ran = true;
    });
    expect(ran).toBe(true);
    await store.close();
  });

  it("passes anything but an event on, and refuses an event without its id", async () => {
    const { store } = await middleware("http");
    const used: Middleware[] = [];
    handleEventsOnce({ use: (fn: Middleware) => used.push(fn) } as unknown as App, {
      store,
      owner: "a",
      logger: createLogger({ level: "silent" }),
      over: "http",
    });
    let passed = 0;
    const next = async () => {
      passed += 1;
    };
    await used[0]?.({ body: { command: "/mq" }, next, context: {} });
    await used[0]?.({ body: { type: "event_callback" }, next, context: {} });
    expect(passed).toBe(1);
    await store.close();
  });
});
