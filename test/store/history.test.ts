import { afterEach, describe, expect, it } from "vitest";
import type { QueueEvent } from "../../src/core/queue.js";
import { Repo } from "../../src/repo.js";
import { openStore, QUEUE_EVENT_RETENTION_MS, type QueueHistory, type Store } from "../../src/store/index.js";
import { PG_URL, usePostgres } from "../helpers/postgres.js";

// The queue's history (src/store/history.ts), the same contract on both dialects.

const SHIPS = Repo.of("acme", "ships");
const OTHER = Repo.of("acme", "other");
const T0 = new Date("2026-11-20T10:00:00.000Z");
const at = (ms: number) => new Date(T0.getTime() + ms);
const MINUTE = 60_000;

function event(id: number, kind: "entered" | "merged" | "paused", when: Date): QueueEvent {
  const base = {
    id,
    at: when.toISOString(),
    repository: "acme/ships",
    pull: kind === "paused" ? null : 12,
    branch: kind === "paused" ? null : "main",
    queue: "main",
    origin: "test",
  };
  if (kind === "entered") return { ...base, kind };
  if (kind === "merged") return { ...base, kind, sha: "abc1234", enteredAt: T0.toISOString() };
  return { ...base, kind, reason: "release <freeze>", by: "octocat", update: false };
}

const pg = usePostgres();
const stores: Store[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

const dialects: [string, () => Promise<Store>][] = [
  ["SQLite", () => openStore({ kind: "sqlite", path: ":memory:" })],
  ["PostgreSQL", () => openStore({ kind: "postgres", url: PG_URL, schema: pg.freshSchema() })],
];

describe.each(dialects)("the queue's history (%s)", (_name, open) => {
  const fresh = async () => {
    const store = await open();
    stores.push(store);
    const history: QueueHistory = store;
    return history;
  };

  it("gives back each event as recorded, once however often it is recorded, oldest first", async () => {
    const history = await fresh();
    const entered = event(-5, "entered", at(0));
    const merged = event(7, "merged", at(30 * MINUTE));
    await history.recordQueueEvents(SHIPS, [merged, entered], at(31 * MINUTE));
    // Another replica, or a redelivery: the same ids again.
    await history.recordQueueEvents(
      SHIPS,
      [entered, { ...merged, at: at(MINUTE).toISOString() }],
      at(32 * MINUTE),
    );
    await history.recordQueueEvents(OTHER, [event(-5, "entered", at(0))], at(32 * MINUTE));
    const read = await history.readQueueEvents(SHIPS, { from: at(0), to: at(hours(1)) });
    expect(read).toEqual([entered, merged]);
  });

  it("reads a range (from included, to excluded) and the kinds asked for", async () => {
    const history = await fresh();
    const events = [
      event(1, "entered", at(0)),
      event(2, "merged", at(MINUTE)),
      event(3, "paused", at(2 * MINUTE)),
    ];
    await history.recordQueueEvents(SHIPS, events, at(3 * MINUTE));
    const ids = async (range: { from: Date; to: Date }, kinds?: string[]) =>
      (await history.readQueueEvents(SHIPS, range, kinds)).map((e) => e.id);
    expect(await ids({ from: at(MINUTE), to: at(2 * MINUTE) })).toEqual([2]);
    expect(await ids({ from: at(0), to: at(3 * MINUTE) }, ["merged", "paused"])).toEqual([2, 3]);
    expect(await ids({ from: at(0), to: at(3 * MINUTE) }, [])).toEqual([]);
  });

  it("forgets events older than 90 days", async () => {
    const history = await fresh();
    await history.recordQueueEvents(SHIPS, [event(1, "entered", at(0))], at(MINUTE));
    const later = at(QUEUE_EVENT_RETENTION_MS + hours(2));
    await history.recordQueueEvents(SHIPS, [event(2, "entered", later)], later);
    const read = await history.readQueueEvents(SHIPS, { from: at(0), to: at(QUEUE_EVENT_RETENTION_MS * 2) });
    expect(read.map((e) => e.id)).toEqual([2]);
  });
});

function hours(n: number): number {
  return n * 60 * MINUTE;
}
