import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DELIVERY_LEASE_MS } from "../../src/notifier/channel-lease.js";
import { Repo } from "../../src/repo.js";
import { METADATA_EVENT_TYPE } from "../../src/slack/slack-poster.js";
import { eventually, startWorld, subscribeChannel, type World } from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";

/**
 * The doorbell gone (docs/notifications.md, "When a repository is read"): an idle repository waits
 * POLL_IDLE_SECONDS only while its installation receives the events that announce its queue's activity.
 * Once they are gone, seen when the installation is read again (its cached copy is 10 minutes old) or at
 * a restart, the repository is read at the interval again. The loops run on their own; the schedule is
 * on the simulator's clock, which the test moves by hand: a read it sees happened because the schedule
 * made it due, never because time passed.
 */
const db = useSchema("ym_doorbell_gone");
const BELLS = "acme/bells";
const GEARS = "quiet/gears";
const CHANNEL = "C0GONE";
const INTERVAL_MS = 2_000;
const IDLE_MS = 3_600_000;
let world: World;
let pull = 0;

const schedule = (repo: string) => world.yardmaster.store.getPollSchedule(Repo.from(repo));
/** The repository's schedule once a read has finished and set it. */
const settled = (repo: string, cadence: string) =>
  eventually(async () => {
    const s = await schedule(repo);
    return s && s.cadence === cadence && s.claimedBy === null ? s : undefined;
  });

function noticed(eventId: number): boolean {
  return world.slack.state
    .messages(CHANNEL)
    .flatMap((m) => [m, ...m.replies])
    .some(
      (m) =>
        m.metadata?.event_type === METADATA_EVENT_TYPE &&
        Number(m.metadata?.event_payload.event_id) === eventId,
    );
}

/** Queues a pull request in the simulator (no GitHub event reaches an installation without the doorbell's). */
function queueOne(repo: string): number {
  pull += 1;
  world.sim.state.relayCommand(repo, {
    body: "@mergifyio queue",
    pull_request: {
      number: pull,
      title: `Change ${pull}`,
      base_ref: "main",
      author: { id: 1, login: "alice" },
    },
  });
  const enter = world.sim.state.events(repo).findLast((e) => e.type === "action.queue.enter");
  if (!enter) throw new Error("the simulator did not queue it");
  return enter.id;
}

/**
 * The installation stops receiving the doorbell's events (its app's subscription to them was dropped),
 * keeping what it granted: pull requests are still read for the notices' titles.
 */
function stopTheDoorbell(login: string): void {
  const granted = world.github.state.installationForAccount(login)?.permissions ?? {};
  world.github.state.setInstallationEvents(login, ["issue_comment"]);
  world.github.state.setInstallationPermissions(login, { ...granted });
}

/**
 * The next read by the schedule is at most one interval away on the world's clock; a new event is
 * posted once the interval (and `laterMs`) has passed, with no GitHub event to ring for it.
 */
async function readAtTheInterval(repo: string, laterMs = 0): Promise<void> {
  const s = await settled(repo, "interval");
  expect(s.nextPollAt.getTime() - world.sim.clock.now()).toBeLessThanOrEqual(INTERVAL_MS);
  const id = queueOne(repo);
  world.sim.clock.advance(INTERVAL_MS + laterMs);
  await eventually(() => noticed(id));
}

beforeAll(async () => {
  world = await startWorld(
    { DATABASE_URL: db.url(), POLL_INTERVAL_SECONDS: "2", POLL_IDLE_SECONDS: "3600" },
    { autoPoll: true },
  );
  for (const repo of [BELLS, GEARS]) {
    world.sim.state.addRepository(repo, { branches: ["main"] });
    world.github.state.addRepository(repo);
  }
  await subscribeChannel(world, CHANNEL, [BELLS, GEARS]);
}, 30_000);

afterAll(async () => {
  await world?.close();
});

describe("an installation that stops sending the doorbell's events", () => {
  it("has its idle repository read at the interval once the installation is read again", async () => {
    for (const repo of [BELLS, GEARS]) {
      const idle = await settled(repo, "idle");
      expect(idle.nextPollAt.getTime() - world.sim.clock.now()).toBeGreaterThan(IDLE_MS - 60_000);
    }
    stopTheDoorbell("acme");
    // The installation's copy is trusted 10 minutes; past them it is read again.
    world.sim.clock.advance(10 * 60_000 + 1_000);
    await readAtTheInterval(BELLS);
    // The other installation still announces: its repository keeps waiting the idle period.
    expect(await schedule(GEARS)).toMatchObject({ cadence: "idle" });
  });

  it("has its idle repository read at the interval after a restart that sees the events gone", async () => {
    stopTheDoorbell("quiet");
    // The running replica's copy of the installation is fresh: it still waits the idle period.
    expect(await schedule(GEARS)).toMatchObject({ cadence: "idle" });
    // What the running replica posts is posted before it stops: nothing left in doubt for the next one.
    await eventually(async () => {
      const pending = await world.yardmaster.store.listPendingNotifications(
        new Date(world.sim.clock.now() + 1),
        50,
      );
      return pending.length === 0;
    });
    await world.restart();
    // The stopped replica may leave the channel's delivery lease to lapse: the clock passes it too,
    // still far short of the idle period the repository waited before.
    await readAtTheInterval(GEARS, DELIVERY_LEASE_MS);
  });
});
