import { beforeEach, describe, expect, it } from "vitest";
import type { QueueEvent } from "../../../src/core/queue.js";
import { HISTORY_ROWS_PER_STATEMENT, type Store } from "../../../src/store/index.js";
import { at, HOUR, MINUTE_MS, r, storeContract } from "./harness.js";

// One pull request's part of the queue's history (src/store/history.ts): what personal notices read
// to find who queued a pull request and whether its checks started before in this entry.

const base = (id: number, pull: number, when: Date) => ({
  id,
  at: when.toISOString(),
  repository: "acme/ships",
  pull,
  branch: "main",
  queue: "main",
  origin: "test",
});
const entered = (id: number, pull: number, when: Date, queuedBy: string | null): QueueEvent => ({
  ...base(id, pull, when),
  kind: "entered",
  queuedBy,
});
const started = (id: number, pull: number, when: Date): QueueEvent => ({
  ...base(id, pull, when),
  kind: "checks-started",
  batch: null,
});

storeContract("history", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  describe("one pull request's events", () => {
    const ships = r("acme/Ships");
    it("gives back a pull request's events of the kinds asked, in the range, oldest first", async () => {
      await store.recordQueueEvents(
        ships,
        [
          started(4, 12, at(3 * MINUTE_MS)),
          entered(1, 12, at(0), "carol"),
          entered(2, 13, at(MINUTE_MS), "dave"),
          entered(3, 12, at(2 * MINUTE_MS), null),
          started(5, 12, at(HOUR)),
        ],
        at(HOUR),
      );
      const read = (kinds: string[], to = at(HOUR)) =>
        store.readPullQueueEvents(r("ACME/ships"), 12, { from: at(0), to }, kinds);
      expect((await read(["entered"])).map((e) => e.id)).toEqual([1, 3]);
      expect(await read(["entered"])).toContainEqual(entered(1, 12, at(0), "carol"));
      // The end is excluded; several kinds at once.
      expect((await read(["entered", "checks-started"])).map((e) => e.id)).toEqual([1, 3, 4]);
      expect((await read(["entered", "checks-started"], at(HOUR + 1))).map((e) => e.id)).toEqual([
        1, 3, 4, 5,
      ]);
      expect(await read([])).toEqual([]);
      expect(
        await store.readPullQueueEvents(r("acme/other"), 12, { from: at(0), to: at(HOUR) }, ["entered"]),
      ).toEqual([]);
    });
  });

  describe("the recent events", () => {
    it("gives back the events that happened, or were recorded, from `since` on: one recorded late too", async () => {
      const ships = r("acme/ships");
      await store.recordQueueEvents(ships, [entered(1, 12, at(0), null)], at(0));
      await store.recordQueueEvents(ships, [started(2, 12, at(2 * HOUR))], at(2 * HOUR));
      // Happened at minute 10, recorded two hours later (a poller catching up).
      await store.recordQueueEvents(ships, [started(3, 13, at(10 * MINUTE_MS))], at(2 * HOUR));
      const recent = await store.readRecentQueueEvents(
        r("ACME/ships"),
        { from: at(0), to: at(3 * HOUR), since: at(HOUR) },
        ["entered", "checks-started"],
      );
      expect(recent.map((e) => e.id)).toEqual([3, 2]);
      expect(
        await store.readRecentQueueEvents(ships, { from: at(HOUR), to: at(3 * HOUR), since: at(HOUR) }, [
          "checks-started",
        ]),
      ).toEqual([started(2, 12, at(2 * HOUR))]);
    });
  });

  describe("a backlog larger than one statement", () => {
    const ships = r("acme/ships");
    // Two and a half statements' worth, each pull request entering then starting its checks.
    const count = Math.floor(HISTORY_ROWS_PER_STATEMENT * 2.5);
    const backlog = Array.from({ length: count }, (_, i) =>
      i % 2 === 0 ? entered(i + 1, 100 + i, at(i * 1000), null) : started(i + 1, 100 + i - 1, at(i * 1000)),
    );
    const all = () =>
      store.readQueueEvents(ships, { from: at(0), to: at(count * 1000) }, ["entered", "checks-started"]);

    it("records every event once, in order", async () => {
      await store.recordQueueEvents(ships, backlog, at(HOUR));
      expect((await all()).map((e) => e.id)).toEqual(backlog.map((e) => e.id));
      expect(await all()).toEqual(backlog);
    });

    it("completes a backlog recorded in part before (a failure between statements), writing none twice", async () => {
      // The first statement and a half of it went in; then the whole backlog is recorded again.
      const part = backlog.slice(0, Math.floor(HISTORY_ROWS_PER_STATEMENT * 1.5));
      await store.recordQueueEvents(ships, part, at(HOUR));
      expect((await all()).map((e) => e.id)).toEqual(part.map((e) => e.id));
      await store.recordQueueEvents(ships, backlog, at(2 * HOUR));
      const ids = (await all()).map((e) => e.id);
      expect(ids).toEqual(backlog.map((e) => e.id));
      expect(new Set(ids).size).toBe(count);
      // What was recorded first stays as it was: recorded at the first time, not again since.
      const recent = await store.readRecentQueueEvents(
        ships,
        { from: at(0), to: at(count * 1000), since: at(HOUR + 1) },
        ["entered", "checks-started"],
      );
      expect(recent.map((e) => e.id)).toEqual(backlog.slice(part.length).map((e) => e.id));
    });
  });
});
