import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_MARKER } from "../../src/github/summary-comment.js";
import { startWorld, eventually as until, type World } from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";

/**
 * The gate's seams, end to end with two replicas on one PostgreSQL: acme/ships's main branch has a merge
 * queue whose ruleset requires CI (`ci`, which never reports here) and `yardmaster/gate`, with a check
 * timeout of one minute on the stand-in's clock (the world's, moved by hand). The webhooks GitHub sends
 * by itself reach the first replica; commands come to either.
 */
const db = useSchema("ym_gate_seams");
let world: World;
let second: { url: string };
const SHIPS = "acme/ships";
const DOCKS = "acme/docks";
const GATE = "yardmaster/gate";
const TIMEOUT_S = 60;

beforeAll(async () => {
  world = await startWorld(
    { DATABASE_URL: db.url(), MERGE_QUEUE_PROVIDER: "github", MERGE_QUEUE_API_TOKEN: "" },
    { githubAnswers: { gateSweepMs: 100, gateRetryMs: 100 } },
  );
  second = await world.replica();
  const { state } = world.github;
  for (const repository of [SHIPS, DOCKS]) {
    state.addRepository(repository);
    state.setPermission(repository, "alice", "write");
    world.github.mergeQueues.enable(repository, "main", {
      requiredChecks: ["ci"],
      appRequiredChecks: [GATE],
      checkResponseTimeout: TIMEOUT_S,
    });
  }
  for (const number of [31, 32, 33, 34, 35, 36]) {
    state.addPullRequest({
      repository: SHIPS,
      number,
      author: "alice",
      title: `Part ${number}`,
      base: "main",
    });
  }
  state.addPullRequest({ repository: DOCKS, number: 41, author: "alice", title: "Crane", base: "main" });
}, 60_000);
afterAll(() => world?.close());

const queues = () => world.github.mergeQueues;
const queued = (repository = SHIPS) =>
  queues()
    .entries(repository, "main")
    .map((e) => e.pull.number);
const hook = (url: string) => `${url}/api/github/webhooks`;
const say = (number: number, body: string, url = world.url, repository = SHIPS) =>
  world.github.deliverIssueComment({ repository, number, body, author: "alice", url: hook(url) });
const commentsOf = (number: number, repository = SHIPS) =>
  world.github.state.comments(repository, number).map((c) => c.body);
const summaryOf = (number: number, repository = SHIPS) =>
  commentsOf(number, repository).find((b) => b.includes(SUMMARY_MARKER)) ?? "";
/** GitHub's check timeout: the clock moves past it, and the stand-in removes what timed out. */
async function timeOut(): Promise<number[]> {
  world.sim.clock.advance(TIMEOUT_S * 1000 + 1_000);
  const removed = queues().expireChecks(SHIPS);
  await world.github.settle();
  return removed;
}

describe("entries GitHub removed for its check timeout during a pause", () => {
  it("are put back on unpause, in their order and ahead of later ones, by the replica that unpauses", async () => {
    // Queued before the pause: their merge groups passed the gate, and wait for CI.
    for (const number of [31, 32, 33, 34]) await say(number, "@yardmaster queue");
    await world.github.settle();
    expect(queued()).toEqual([31, 32, 33, 34]);

    await say(31, "@yardmaster pause deploy", second.url);
    await until(() => summaryOf(31).includes("**paused**"));
    // The pause names the branch it holds.
    expect(summaryOf(31)).toContain("(branch `main`)");
    // A fourth is taken out by hand: not put back.
    const pull34 = world.github.state.getIssue(SHIPS, 34);
    if (!pull34) throw new Error("no #34");
    queues().remove(pull34, "MANUAL");
    await world.github.settle();

    // GitHub times out the head (its group was made before the pause); the groups behind are remade,
    // held by the gate, and time out in turn.
    expect(await timeOut()).toEqual([31]);
    expect(await timeOut()).toEqual([32]);
    await say(35, "@yardmaster queue");
    await world.github.settle();
    expect(queued()).toEqual([33, 35]);
    expect(await timeOut()).toEqual([33]);
    expect(queued()).toEqual([35]);

    await say(36, "@yardmaster unpause", second.url);
    await until(() => queued().join() === "31,32,33,35");
    for (const number of [31, 32, 33]) {
      await until(() => commentsOf(number).some((b) => b.includes("Yardmaster put it back in its place")));
    }
    expect(commentsOf(34).some((b) => b.includes("put it back"))).toBe(false);
    expect(commentsOf(35).some((b) => b.includes("put it back"))).toBe(false);
    // Each went back once, whichever replica heard what.
    for (const number of [31, 32, 33]) {
      expect(commentsOf(number).filter((b) => b.includes("put it back"))).toHaveLength(1);
    }
    expect(queued()).toEqual([31, 32, 33, 35]);
    // The queue runs: the head's gate passes, and GitHub merges it once CI passes.
    const head = queues().entries(SHIPS, "main")[0]?.group;
    if (!head) throw new Error("nothing queued");
    await until(() => queues().appChecks.latest(SHIPS, head.headSha, GATE)?.conclusion === "success");
    queues().completeChecks(SHIPS, 31, { ci: "success" });
    expect(queues().merge(SHIPS, "main")?.number).toBe(31);
  }, 180_000);
});

describe("a gate check run GitHub refused", () => {
  it("keeps its claim, and a runner makes it once GitHub answers again", async () => {
    await say(41, "@yardmaster pause crane inspection", world.url, DOCKS);
    await until(() => summaryOf(41, DOCKS).includes("**paused**"));
    // GitHub is down for check runs.
    world.github.faults.fail({ method: "POST", path: /\/check-runs$/, status: 502, count: 10_000 });
    const posts = () =>
      world.github.requests.filter(
        (r) => r.method === "POST" && /\/repos\/acme\/docks\/check-runs$/.test(r.path),
      );
    await say(41, "@yardmaster queue", second.url, DOCKS);
    await world.github.settle();
    const group = await until(() => queues().entries(DOCKS, "main")[0]?.group);
    await until(() => posts().length >= 1);
    const gate = () => queues().appChecks.latest(DOCKS, group.headSha, GATE);
    expect(gate()).toBeUndefined();

    // GitHub still refuses: a runner tried again (and keeps trying, each time later: on the real clock,
    // as GitHub's outage runs, from 100 ms here rather than 5 s, at most 6 s apart).
    const refused = posts().length;
    await until(() => posts().length > refused);
    expect(gate()).toBeUndefined();

    // GitHub answers again: the next try makes the check run, held while the branch is paused, once.
    world.github.faults.clear();
    const made = await until(() => gate());
    expect(made).toMatchObject({ status: "queued", title: "Paused by alice: crane inspection" });
    expect(
      queues()
        .appChecks.all(DOCKS)
        .filter((r) => r.headSha === group.headSha),
    ).toHaveLength(1);

    await say(41, "@yardmaster unpause", world.url, DOCKS);
    await until(() => gate()?.status === "completed");
    expect(gate()?.conclusion).toBe("success");
  }, 120_000);
});
