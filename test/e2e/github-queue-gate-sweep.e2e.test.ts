import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Repo } from "../../src/repo.js";
import { startWorld, eventually as until, type World } from "../helpers/e2e.js";

/**
 * The gate's sweep, end to end: what a replica left half done (a claim made before it died, a resume
 * that stopped after ending the pause) is finished by the running server's sweep, ten times a second.
 */
let world: World;
const SHIPS = "acme/ships";
const GATE = "yardmaster/gate";

beforeAll(async () => {
  world = await startWorld(
    { MERGE_QUEUE_PROVIDER: "github", MERGE_QUEUE_API_TOKEN: "" },
    { githubAnswers: { gateSweepMs: 100 } },
  );
  const { state } = world.github;
  state.addRepository(SHIPS);
  state.setPermission(SHIPS, "alice", "admin");
  world.github.mergeQueues.enable(SHIPS, "main", {
    requiredChecks: [],
    appRequiredChecks: [GATE],
    checkResponseTimeout: 600,
  });
  for (const number of [11, 12]) {
    state.addPullRequest({
      repository: SHIPS,
      number,
      author: "alice",
      title: `Ship part ${number}`,
      base: "main",
    });
  }
});
afterAll(() => world.close());

const queues = () => world.github.mergeQueues;
const store = () => world.yardmaster.store;
const comment = (number: number, body: string) =>
  world.github.deliverIssueComment({ repository: SHIPS, number, body, author: "alice" });
describe("the gate's sweep", () => {
  it("makes the gate of a claim whose replica died before its check run, once the claim lapses", async () => {
    const head = "9".repeat(40);
    // A replica claimed this head's gate and died before making its check run.
    const claimed = await store().claimGateCheck({
      repository: Repo.from(SHIPS),
      headSha: head,
      name: GATE,
      branch: "main",
      kind: "pull",
      pullNumber: 11,
      owner: "replica-that-died",
      at: new Date(world.sim.clock.now()),
    });
    expect(claimed).toBe(true);
    queues().push(SHIPS, 11, head);
    await world.github.settle();
    // The delivery found the claim: no gate yet.
    expect(queues().appChecks.latest(SHIPS, head, GATE)).toBeUndefined();
    world.sim.clock.advance(61_000);
    const gate = await until(() => queues().appChecks.latest(SHIPS, head, GATE));
    expect(gate).toMatchObject({ status: "completed", conclusion: "success" });
    expect(
      queues()
        .appChecks.all(SHIPS)
        .filter((r) => r.headSha === head),
    ).toHaveLength(1);
  });

  it("completes a held gate whose resume stopped after ending the pause, and GitHub merges", async () => {
    await comment(12, "@yardmaster pause deploy");
    await comment(12, "@yardmaster queue");
    await world.github.settle();
    const group = await until(
      () =>
        queues()
          .entries(SHIPS, "main")
          .find((e) => e.pull.number === 12)?.group,
    );
    const gate = () => queues().appChecks.latest(SHIPS, group.headSha, GATE);
    await until(() => gate()?.status === "queued");
    // The replica that ended the pause died before completing the held gate.
    expect(await store().takeGatePause(Repo.from(SHIPS), "main")).not.toBeNull();
    await until(() => gate()?.status === "completed");
    expect(gate()).toMatchObject({ conclusion: "success" });
    expect(
      queues()
        .appChecks.all(SHIPS)
        .filter((r) => r.headSha === group.headSha),
    ).toHaveLength(1);
    expect(queues().merge(SHIPS, "main")?.number).toBe(12);
  });
});
