import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_MARKER } from "../../src/github/summary-comment.js";
import {
  linkSlackUser,
  startWorld,
  subscribeChannel,
  eventually as until,
  type World,
} from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";

/**
 * A drain of GitHub's merge queue with two replicas on one PostgreSQL, each sweeping the gate every
 * 100 ms (so both look whether the queue is drained, again and again): the channel hears that it is
 * drained once, whichever replica sees the last earlier entry leave, and a webhook redelivered to the
 * other replica says nothing more.
 */
const db = useSchema("ym_gate_drain_replicas");
const SHIPS = "acme/ships";
const CHANNEL = "C0SHIPS";
const ALICE = "U0ALICE";
const GATE = "yardmaster/gate";
let world: World;
let second: { url: string };

beforeAll(async () => {
  world = await startWorld(
    { DATABASE_URL: db.url(), MERGE_QUEUE_PROVIDER: "github", MERGE_QUEUE_API_TOKEN: "" },
    { githubAnswers: { gateSweepMs: 100 } },
  );
  second = await world.replica();
  const { state } = world.github;
  state.addRepository(SHIPS);
  state.setPermission(SHIPS, "alice", "write");
  world.github.mergeQueues.enable(SHIPS, "main", { requiredChecks: [], appRequiredChecks: [GATE] });
  for (const number of [81, 82, 83]) {
    state.addPullRequest({
      repository: SHIPS,
      number,
      author: "alice",
      title: `Part ${number}`,
      base: "main",
    });
  }
  world.slack.state.addChannel({ id: CHANNEL, name: "ships", botIsMember: true });
  world.slack.state.addUser({ id: ALICE, name: "alice" });
  await linkSlackUser(world, ALICE, "alice", 1);
  await subscribeChannel(world, CHANNEL, [SHIPS], ["queue", "pause"]);
  world.sim.clock.advance(5_000);
}, 60_000);
afterAll(() => world?.close());

const queues = () => world.github.mergeQueues;
const hook = (url: string) => `${url}/api/github/webhooks`;
const comment = (number: number, body: string, url = world.url) =>
  world.github.deliverIssueComment({ repository: SHIPS, number, body, author: "alice", url: hook(url) });
const summaryOf = (number: number) =>
  world.github.state.comments(SHIPS, number).find((c) => c.body.includes(SUMMARY_MARKER))?.body ?? "";
function gateOf(number: number) {
  const entry = queues()
    .entries(SHIPS, "main")
    .find((e) => e.pull.number === number);
  return entry ? queues().appChecks.latest(SHIPS, entry.group.headSha, GATE) : undefined;
}
const channel = (needle: string) =>
  world.slack.state.messages(CHANNEL).filter((m) => (m.text ?? "").includes(needle));

describe("a drain with two replicas", () => {
  it("is said drained once in the channel, and holds what was queued since until unpaused", async () => {
    await comment(81, "@yardmaster queue");
    await comment(82, "@yardmaster queue", second.url);
    await world.github.settle();
    await until(() => gateOf(81)?.status === "completed" && gateOf(82)?.status === "completed");

    await comment(81, "@yardmaster drain release 1.2", second.url);
    await until(() => summaryOf(81).includes("is draining"));
    await comment(83, "@yardmaster queue");
    await world.github.settle();
    await until(() => gateOf(83)?.status === "queued");

    expect(queues().merge(SHIPS, "main")?.number).toBe(81);
    expect(queues().merge(SHIPS, "main")?.number).toBe(82);
    await world.github.settle();
    await world.slack.waitFor(() => channel("acme/ships main drained")[0], 30_000);

    // The last earlier entry's removal, heard again by the other replica: nothing more is said.
    const removed = world.github.deliveries.find((d) => {
      const p = d.payload as { action?: string; number?: number; reason?: string };
      return d.event === "pull_request" && p.action === "dequeued" && p.number === 82;
    });
    if (!removed) throw new Error("no dequeued delivery for #82");
    expect((await world.github.redeliver(removed.deliveryId, hook(second.url))).status).toBe(200);
    expect(() => queues().merge(SHIPS, "main")).toThrow(/waits for yardmaster\/gate/);

    await comment(83, "@yardmaster unpause", second.url);
    await until(() => gateOf(83)?.status === "completed");
    // The resume is heard after anything said before it: by then a second "drained" would be in too.
    await world.slack.waitFor(() => channel("merge queue resumed by alice")[0], 30_000);
    expect(channel("acme/ships main drained")).toHaveLength(1);
    expect(channel("merge queue draining by alice")).toHaveLength(1);
    expect(queues().merge(SHIPS, "main")?.number).toBe(83);
  }, 120_000);
});
