import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_MARKER } from "../../src/github/summary-comment.js";
import type { Settings } from "../../tools/world.js";
import { type ChildServer, startChildServer } from "../helpers/child-server.js";
import { eventually, startWorld, subscribeChannel, type World } from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";

/**
 * A comment command's steps (docs/architecture.md, "A command's path"), end to end on two replicas of one
 * PostgreSQL: the replica running `@yardmaster pause` (Mergify's queue, the simulator) or `@yardmaster
 * queue`, `drain` and `let through` (GitHub's merge queue, the stand-in, held by the gate) is killed
 * (`kill -9`) after its call to the merge queue and its 👀, while it waits on GitHub to write its answer. The other replica takes the command over once the
 * dead one's claim lapses, with no new webhook, and answers it: one summary, one call to the merge queue,
 * each reaction added once, each notice in the channel once.
 */
const db = useSchema("ym_command_takeover");
const GEARS = "acme/gears";
const SHIPS = "acme/ships";
/** GitHub's merge queue whose ruleset requires the gate: drained, and one pull request let through it. */
const DOCKS = "acme/docks";
const GATE = "yardmaster/gate";
const CHANNEL = "C0DOCKS";
let world: World;
let settings: Settings;
const children: ChildServer[] = [];

beforeAll(async () => {
  // A dead replica's claim lapses 5 s after its last renewal (production's 30 s: the same takeover, sooner).
  settings = { DATABASE_URL: db.url(), MERGE_QUEUE_PROVIDER: "auto", COMMAND_CLAIM_SECONDS: "5" };
  // The survivor's runner takes the lapsed claim over, and its 👀 timer fires at once: a 👀 the dead replica
  // recorded is not added again.
  world = await startWorld(settings, { githubAnswers: { seenAfterMs: 1 } });
  world.sim.state.addRepository(GEARS, { branches: ["main"] });
  for (const repo of [GEARS, SHIPS]) {
    world.github.state.addRepository(repo);
    world.github.state.setPermission(repo, "alice", "write");
    world.github.state.addPullRequest({ repository: repo, number: 1, author: "alice", title: "Change 1" });
  }
  world.sim.state.knowPullRequest(GEARS, { number: 1, base_ref: "main" });
  world.github.mergeQueues.enable(SHIPS, "main");
  world.github.state.addRepository(DOCKS);
  world.github.state.setPermission(DOCKS, "alice", "admin");
  for (const number of [1, 2, 3, 4]) {
    world.github.state.addPullRequest({
      repository: DOCKS,
      number,
      author: "alice",
      title: `Dock ${number}`,
    });
  }
  world.github.mergeQueues.enable(DOCKS, "main", { requiredChecks: [], appRequiredChecks: [GATE] });
  await subscribeChannel(world, CHANNEL, [DOCKS], ["queue", "pause"]);
}, 120_000);

afterAll(async () => {
  for (const child of children) await child.close();
  await world?.close();
});

/** A replica of the world in a process of its own, on the same PostgreSQL (production's 👀 and claims). */
async function startReplica(): Promise<ChildServer> {
  const child = await startChildServer(
    { ...world.settings, ...settings, PORT: "0", LOG_LEVEL: "info" },
    { servers: { ...world, github: world.github, close: async () => {} } },
  );
  children.push(child);
  return child;
}

async function stepDone(deliveryId: string, step: string): Promise<boolean> {
  const { rows } = await db
    .admin()
    .query(`SELECT 1 FROM "${db.name}".command_steps WHERE run_id = $1 AND step = $2`, [deliveryId, step]);
  return rows.length === 1;
}

const summaries = (repo: string, number = 1) =>
  world.github.state.comments(repo, number).filter((c) => c.body.includes(SUMMARY_MARKER));
const reactions = (commentId: number) => world.github.state.reactions(commentId).map((r) => r.content);
/** The reactions asked for on the comment, as GitHub received them (a second ask of one is counted). */
const reactionsAsked = (commentId: number) =>
  world.github.requests
    .filter((r) => r.method === "POST" && r.path.endsWith(`/issues/comments/${commentId}/reactions`))
    .map((r) => (r.body as { content: string }).content)
    .sort();
const threadRead = (repo: string, number: number) =>
  world.github.requests.some(
    (r) => r.method === "GET" && r.path.endsWith(`/repos/${repo}/issues/${number}/comments`),
  );

/**
 * `body` on `repo`'s pull request `number` (1 unless said), its webhook sent to a replica of its own, which is killed once it
 * made `step` (the merge queue's call), recorded its 👀 and is held reading the thread for its answer.
 * Resolves with the command comment's id once the surviving replica answered it.
 */
async function killedBeforeAnswering(repo: string, body: string, step: string, number = 1): Promise<number> {
  const doomed = await startReplica();
  const release = world.github.faults.hold({
    method: "GET",
    path: `/repos/${repo}/issues/${number}/comments`,
  });
  let commentId: number;
  try {
    const asked = await world.github.deliverIssueComment({
      repository: repo,
      number,
      body,
      author: "alice",
      url: `${doomed.url}/api/github/webhooks`,
      answerOnly: true,
    });
    expect(asked.status).toBe(200);
    commentId = asked.commentId;
    await eventually(() => stepDone(asked.deliveryId, step), 60_000);
    await eventually(() => stepDone(asked.deliveryId, "reaction.eyes"), 60_000);
    await eventually(() => threadRead(repo, number), 60_000);
    expect(await stepDone(asked.deliveryId, "summary")).toBe(false);
    doomed.signal("SIGKILL");
    await doomed.exited;
  } finally {
    release();
  }
  // No new webhook: the survivor's sweeps find the dead replica's claim lapsed (5 s) and run it.
  expect(reactions(commentId)).toEqual(["eyes"]);
  await eventually(() => reactions(commentId).includes("+1"), 120_000);
  await world.yardmaster.webhookWorkDone();
  await world.github.settle();
  return commentId;
}

describe("a comment command whose replica died after calling the merge queue, before answering", () => {
  it("pause: the survivor answers once, and the queue is paused once", { timeout: 240_000 }, async () => {
    const commentId = await killedBeforeAnswering(GEARS, "@yardmaster pause deploy", "queue.pause");
    const routes = world.sim.requests.snapshot().repositories[GEARS]?.routes ?? {};
    const pauses = Object.entries(routes)
      .filter(([route]) => route.startsWith("PUT ") && route.endsWith("/merge-queue/pause"))
      .reduce((sum, [, n]) => sum + n, 0);
    expect(pauses).toBe(1);
    expect(world.sim.state.events(GEARS).filter((e) => e.type.includes("pause"))).toHaveLength(1);
    expect(summaries(GEARS)).toHaveLength(1);
    expect(summaries(GEARS)[0]?.body).toContain("latest command `@yardmaster pause deploy` by **alice**");
    expect(summaries(GEARS)[0]?.body).toContain("is **paused**: deploy");
    expect(reactions(commentId)).toEqual(["eyes", "+1"]);
    expect(reactionsAsked(commentId)).toEqual(["+1", "eyes"]);
  });

  it("queue on GitHub's merge queue: the survivor answers once, and the pull request is queued once", {
    timeout: 240_000,
  }, async () => {
    const commentId = await killedBeforeAnswering(SHIPS, "@yardmaster queue", "queue.enqueue");
    const enqueues = world.github.requests.filter(
      (r) => r.path.endsWith("/graphql") && JSON.stringify(r.body ?? "").includes("enqueuePullRequest"),
    );
    expect(enqueues).toHaveLength(1);
    expect(world.github.mergeQueues.entries(SHIPS, "main").map((e) => e.pull.number)).toEqual([1]);
    expect(summaries(SHIPS)).toHaveLength(1);
    expect(summaries(SHIPS)[0]?.body).toContain("#1 is at position 1 in GitHub's merge queue of `main`");
    expect(reactions(commentId)).toEqual(["eyes", "+1"]);
    expect(reactionsAsked(commentId)).toEqual(["+1", "eyes"]);
  });

  it("drain, then let through, on GitHub's merge queue held by the gate: each made, answered and said once", {
    timeout: 300_000,
  }, async () => {
    const queues = world.github.mergeQueues;
    const gateOf = (number: number) => {
      const entry = queues.entries(DOCKS, "main").find((e) => e.pull.number === number);
      return entry ? queues.appChecks.latest(DOCKS, entry.group.headSha, GATE) : undefined;
    };
    const channel = (needle: string) =>
      world.slack.state.messages(CHANNEL).filter((m) => (m.text ?? "").includes(needle));
    const queue = async (number: number) => {
      await world.github.deliverIssueComment({
        repository: DOCKS,
        number,
        body: "@yardmaster queue",
        author: "alice",
      });
      await world.github.settle();
      await eventually(() => gateOf(number), 60_000);
    };
    await queue(2);
    expect(gateOf(2)).toMatchObject({ status: "completed", conclusion: "success" });

    const drained = await killedBeforeAnswering(DOCKS, "@yardmaster drain release day", "queue.drain");
    expect(summaries(DOCKS)).toHaveLength(1);
    expect(summaries(DOCKS)[0]?.body).toContain("is draining: release day");
    expect(summaries(DOCKS)[0]?.body).toContain("1 pull request queued now will merge");
    expect(reactionsAsked(drained)).toEqual(["+1", "eyes"]);

    // #2, queued before the drain, merges; #3, queued since, is held until let through alone.
    expect(queues.merge(DOCKS, "main")?.number).toBe(2);
    await world.github.settle();
    await queue(3);
    expect(gateOf(3)).toMatchObject({ status: "queued" });
    // Named from another pull request's thread (one without a summary yet: its answer reads the thread).
    const let3 = await killedBeforeAnswering(DOCKS, "@yardmaster let #3 through", "queue.let", 4);
    expect(summaries(DOCKS, 4)).toHaveLength(1);
    expect(summaries(DOCKS, 4)[0]?.body.replace(/\\/g, "")).toContain(
      "#3 goes through the held merge queue of `acme/docks`",
    );
    expect(reactionsAsked(let3)).toEqual(["+1", "eyes"]);
    await eventually(() => gateOf(3)?.status === "completed", 60_000);
    expect(gateOf(3)).toMatchObject({ conclusion: "success" });

    await world.github.deliverIssueComment({
      repository: DOCKS,
      number: 1,
      body: "@yardmaster unpause",
      author: "alice",
    });
    // The dead replicas said the drain and the let-through at their own clock's time (the system's), the
    // survivor the resume at the world's: between processes, notices go in their times' order, not in the
    // order they happened here. So each is waited for, and once nothing is left to post (a second notice
    // would be in by then), each is counted once.
    for (const said of ["merge queue resumed by alice", "alice let #3 through the held merge queue"])
      await world.slack.waitFor(() => channel(said)[0], 120_000);
    const nothingPending = async () =>
      (await world.yardmaster.store.listPendingNotifications(new Date("9999-01-01T00:00:00Z"), 10, CHANNEL))
        .length === 0;
    await eventually(nothingPending, 60_000);
    expect(channel("merge queue resumed by alice")).toHaveLength(1);
    expect(channel("merge queue draining by alice")).toHaveLength(1);
    expect(channel("acme/docks main drained")).toHaveLength(1);
    expect(channel("alice let #3 through the held merge queue")).toHaveLength(1);
  });
});
