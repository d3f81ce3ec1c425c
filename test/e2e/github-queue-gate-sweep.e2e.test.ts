import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gateCheckItem } from "../../src/backends/github/gate/index.js";
import { Repo } from "../../src/repo.js";
import { startWorld, eventually as until, type World } from "../helpers/e2e.js";

/**
 * The gate's sweep and runner, end to end: what a replica left half done (a claim made before it died, a
 * resume that stopped after ending the pause) is finished by the running server: its runner of durable
 * work takes over the lapsed claim, its sweep (ten times a second) completes the held gate. The gates'
 * claims run on the real clock, moved on here by hand (`lapse`) apart from the world's.
 */
let world: World;
let claimsShift = 0;
const claimsNow = () => new Date(Date.now() + claimsShift);
const SHIPS = "acme/ships";
const GATE = "yardmaster/gate";

beforeAll(async () => {
  world = await startWorld(
    { MERGE_QUEUE_PROVIDER: "github", MERGE_QUEUE_API_TOKEN: "" },
    { githubAnswers: { gateSweepMs: 100, gateClaimsNow: claimsNow } },
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
    // A replica claimed this head's gate (its work item, for the gates' 60 s lease) and died before
    // making its check run.
    const pull = { repository: Repo.from(SHIPS), baseRef: "main", headSha: head, pullNumber: 11 };
    const lapseAt = new Date(claimsNow().getTime() + 60_000);
    const claimed = await store().scheduleWork({
      ...gateCheckItem({ ...pull, kind: "pull" }, GATE, claimsNow()),
      when: "absent",
      claim: { owner: "replica-that-died", until: lapseAt },
    });
    expect(claimed).not.toBeNull();
    queues().push(SHIPS, 11, head);
    await world.github.settle();
    // The delivery found the claim: no gate yet.
    expect(queues().appChecks.latest(SHIPS, head, GATE)).toBeUndefined();
    // The claim lapses: the server's runner takes it over.
    claimsShift += 61_000;
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
