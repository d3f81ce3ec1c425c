import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Repo } from "../../src/repo.js";
import { METADATA_EVENT_TYPE } from "../../src/slack/slack-poster.js";
import { HISTORY_ROWS_PER_STATEMENT } from "../../src/store/index.js";
import { appendBacklog } from "../../tools/bench/lib/backlog-events.js";
import { eventually, startWorld, subscribeChannel, type World } from "../helpers/e2e.js";

/**
 * A backlog after an outage, on SQLite: hundreds of events at once in one repository's log, more than
 * the history writes in one statement and than the notifier queues in one turn of the event loop
 * (src/event-loop.ts). Every notice reaches the channel once, in the log's order, even when the read
 * fails halfway through queueing them and is read again.
 */
let world: World;
let dir: string;
const REPO = "acme/backlog";
const CHANNEL = "C0BACKLOG";
/** Two and a half history statements' worth. */
const EVENTS = Math.floor(HISTORY_ROWS_PER_STATEMENT * 2.5);
const AUTHORS = 3;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "yardmaster-backlog-"));
  world = await startWorld({ DATABASE_URL: `sqlite:${join(dir, "yardmaster.db")}` });
  world.sim.state.addRepository(REPO, { branches: ["main"] });
  world.github.state.addRepository(REPO);
  for (let a = 0; a < AUTHORS; a++) world.github.state.addUser({ login: `author-${a}` });
  await subscribeChannel(world, CHANNEL, [REPO], ["queue", "checks"]);
  world.sim.clock.advance(5_000);
});
afterEach(async () => {
  await world?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The backlog's events, appended at once; their ids in the log's order. */
function outage(): number[] {
  const ids: number[] = [];
  const stop = world.sim.state.log.onAppend((event) => ids.push(event.id));
  appendBacklog(
    world.sim.state.log,
    { repository: REPO, key: world.sim.state.requireRepository(REPO).key },
    {
      count: EVENTS,
      at: world.sim.clock.now(),
      authors: AUTHORS,
      onPull: (pull) => world.github.state.addPullRequest({ repository: REPO, ...pull }),
    },
  );
  stop();
  return ids;
}

/** The event ids of the channel's notices, in the order Slack received them (top level and replies). */
function postedIds(): number[] {
  const messages = world.slack.state
    .messages(CHANNEL)
    .flatMap((top) => [top, ...top.replies])
    .filter((m) => m.metadata?.event_type === METADATA_EVENT_TYPE);
  messages.sort((a, b) => Number(a.ts) - Number(b.ts));
  return messages.map((m) => Number(m.metadata?.event_payload.event_id));
}

const tick = () => world.yardmaster.poller!.tick();

async function drain(expected: number): Promise<void> {
  await eventually(async () => {
    await tick();
    return postedIds().length >= expected;
  }, 120_000);
}

async function history(): Promise<number[]> {
  const events = await world.yardmaster.store.readQueueEvents(Repo.from(REPO), {
    from: new Date(0),
    to: new Date(world.sim.clock.now() + 1),
  });
  return events.map((e) => e.id);
}

describe("a backlog larger than one turn of the event loop", () => {
  it("posts every notice once, in the log's order, and records each event once", {
    timeout: 180_000,
  }, async () => {
    const ids = outage();
    expect(ids).toHaveLength(EVENTS);
    await drain(EVENTS);
    expect(postedIds()).toEqual(ids);
    expect((await history()).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
  });

  it("after a read that failed halfway through queueing, posts the rest: none lost, none twice", {
    timeout: 180_000,
  }, async () => {
    const ids = outage();
    const deliverer = world.yardmaster.deliverer!;
    const enqueue = deliverer.enqueue.bind(deliverer);
    let queued = 0;
    // The store fails once, a third of the way through: the read stops there, its cursor unmoved.
    deliverer.enqueue = async (...args) => {
      queued += 1;
      if (queued === Math.floor(EVENTS / 3)) throw new Error("the store went away");
      return enqueue(...args);
    };
    await tick();
    expect(postedIds().length).toBeLessThan(EVENTS);
    expect(await world.yardmaster.store.getPollCursor(Repo.from(REPO))).toBeNull();
    // Read again once its retry is due (the failure's backoff): everything left is queued.
    world.sim.clock.advance(10 * 60_000);
    await drain(EVENTS);
    expect(postedIds()).toEqual(ids);
    expect(await world.yardmaster.store.getPollCursor(Repo.from(REPO))).not.toBeNull();
  });
});
