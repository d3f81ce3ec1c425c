import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { METADATA_EVENT_TYPE } from "../../src/slack/slack-poster.js";
import { type ChildServer, startChildServer } from "../helpers/child-server.js";
import { startWorld, subscribeChannel, type World } from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";

/**
 * A direct message's exactly-once across a crash (docs/notifications.md, "Personal notices"): a replica
 * posts the author's notice and is killed (SIGKILL) before it hears Slack's answer, so before it records
 * it; the other replica, on the same PostgreSQL, finds the message in the conversation by its metadata
 * instead of posting it again, and goes on in the same thread.
 */
const db = useSchema("ym_dm");
const REPO = "acme/dmtest";
const ALICE = "U0ALICE";
let world: World;
let child: ChildServer;

beforeAll(async () => {
  const settings = { DATABASE_URL: db.url(), POLL_INTERVAL_SECONDS: "1" };
  // This replica waits: the child reads and posts first.
  world = await startWorld(
    settings,
    { autoPoll: false },
    {
      clock: "real",
      notifierClock: "system",
      engine: { checksDurationMs: 600_000, batchMaxWaitMs: 600_000 },
    },
  );
  world.sim.state.addRepository(REPO, { branches: ["main"] });
  world.github.state.addRepository(REPO);
  world.github.state.setPermission(REPO, "alice", "write");
  world.github.state.addPullRequest({
    repository: REPO,
    number: 5,
    author: "alice",
    title: "Tidy",
    base: "main",
  });
  world.slack.state.addUser({ id: ALICE, name: "alice" });
  await world.yardmaster.store.putLink({
    teamId: "T0001",
    slackUserId: ALICE,
    githubLogin: "alice",
    githubId: 1,
    linkedAt: new Date(Date.now() - 60_000),
  });
  // The channel hears pauses only: every chat.postMessage here is a direct message.
  await subscribeChannel(world, "C0PAUSES", [REPO], ["pause"]);
  child = await startChildServer(
    { ...world.settings, ...settings, PORT: "0", LOG_LEVEL: "info" },
    { servers: { ...world, github: world.github, close: async () => {} } },
  );
}, 60_000);

afterAll(async () => {
  await child?.close();
  await world?.close();
});

function directNotices() {
  const dm = world.slack.state.directChannel(ALICE);
  if (!dm) return [];
  return world.slack.state.messages(dm.id).flatMap((top) =>
    [top, ...top.replies]
      .filter((m) => m.metadata?.event_type === METADATA_EVENT_TYPE)
      .map((m) => ({
        eventId: Number(m.metadata?.event_payload.event_id),
        threadTs: m === top ? null : top.ts,
        ts: m.ts,
      })),
  );
}

describe("personal notices on two replicas", () => {
  it("repeats nothing when the replica that posted is killed before it recorded the post", async () => {
    // Slack takes the post at once but answers 40 s later; the poster is frozen (SIGSTOP) the moment
    // the post lands, so that its own timeout cannot fire, however slow this machine, and killed after.
    world.slack.faults.delayAnswer("chat.postMessage", 40_000, 1, () => child.signal("SIGSTOP"));
    world.sim.state.relayCommand(REPO, {
      body: "@mergifyio queue",
      pull_request: { number: 5, title: "Tidy", base_ref: "main", author: { id: 1, login: "alice" } },
    });
    const entered = await world.slack.waitFor(() => directNotices()[0], 20_000);
    child.signal("SIGKILL");
    await child.exited;
    const { rows } = await db
      .admin()
      .query(`SELECT status FROM ${db.name}.notifications WHERE event_id = $1 AND channel_id LIKE 'dm:%'`, [
        entered.eventId,
      ]);
    expect(rows).toEqual([{ status: "pending" }]);

    // The survivor takes over; the pull request then leaves the queue.
    world.yardmaster.poller!.start();
    world.sim.state.relayCommand(REPO, { body: "@mergifyio dequeue", pull_request: 5 });
    const leave = world.sim.state.events(REPO).find((e) => e.type === "action.queue.leave");
    expect(leave).toBeDefined();
    // The row in doubt (its post begun by the killed replica) is looked up once the channel's lease lapses.
    await world.slack.waitFor(() => directNotices().some((n) => n.eventId === leave?.id), 90_000);
    const all = directNotices();
    expect(all.filter((n) => n.eventId === entered.eventId)).toHaveLength(1);
    expect(all.filter((n) => n.eventId === leave?.id)).toEqual([
      expect.objectContaining({ threadTs: entered.ts }),
    ]);
    const recorded = await db
      .admin()
      .query(
        `SELECT status, message_ts FROM ${db.name}.notifications WHERE event_id = $1 AND channel_id LIKE 'dm:%'`,
        [entered.eventId],
      );
    expect(recorded.rows).toEqual([{ status: "sent", message_ts: entered.ts }]);
  }, 150_000);
});
