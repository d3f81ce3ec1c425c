import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_MARKER } from "../../src/github/summary-comment.js";
import { Repo } from "../../src/repo.js";
import { ACTION_IDS, unpauseValue } from "../../src/slack/actions.js";
import {
  linkSlackUser,
  startWorld,
  subscribeChannel,
  eventually as until,
  type World,
} from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";

/**
 * Pausing GitHub's own merge queue with the gate check, end to end: acme/ships's main branch has a
 * merge queue whose ruleset requires `yardmaster/gate` from Yardmaster's GitHub App, with a check
 * timeout of 10 minutes on the stand-in's clock (the world's, moved by hand).
 */
let world: World;
const SHIPS = "acme/ships";
const CHANNEL = "C0SHIPS";
const ALICE = "U0ALICE";
const GATE = "yardmaster/gate";
const TIMEOUT_MS = 10 * 60_000;

beforeAll(async () => {
  world = await startWorld({ MERGE_QUEUE_PROVIDER: "github", MERGE_QUEUE_API_TOKEN: "" });
  const { state } = world.github;
  state.addRepository(SHIPS);
  state.setPermission(SHIPS, "alice", "admin");
  world.github.mergeQueues.enable(SHIPS, "main", {
    requiredChecks: [],
    appRequiredChecks: [GATE],
    checkResponseTimeout: TIMEOUT_MS / 1000,
  });
  for (const number of [11, 12, 13, 14, 15, 16, 19]) {
    state.addPullRequest({
      repository: SHIPS,
      number,
      author: "alice",
      title: `Ship part ${number}`,
      base: "main",
    });
  }
  world.slack.state.addChannel({ id: CHANNEL, name: "ships", botIsMember: true });
  world.slack.state.addUser({ id: ALICE, name: "alice" });
  await linkSlackUser(world, ALICE, "alice", 1);
  await subscribeChannel(world, CHANNEL, [SHIPS], ["queue", "pause"]);
  // What follows happens after the subscription (made on the world's clock).
  world.sim.clock.advance(5_000);
});
afterAll(() => world.close());

const queues = () => world.github.mergeQueues;
const queued = () =>
  queues()
    .entries(SHIPS, "main")
    .map((e) => e.pull.number);
const comment = (number: number, body: string) =>
  world.github.deliverIssueComment({ repository: SHIPS, number, body, author: "alice" });
const slash = (text: string) => world.slack.sendSlashCommand({ text, userId: ALICE, channelId: CHANNEL });
const textOf = (message: { text?: string; blocks?: unknown }) =>
  `${message.text ?? ""}\n${JSON.stringify(message.blocks ?? [])}`;
async function ask(text: string): Promise<string> {
  const sent = await slash(text);
  const answer = await world.slack.waitFor(
    () => world.slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
    10_000,
  );
  return textOf(answer);
}
/** The gate GitHub reads on the merge group of a queued pull request (the latest run of its name). */
function gateOf(number: number) {
  const entry = queues()
    .entries(SHIPS, "main")
    .find((e) => e.pull.number === number);
  if (!entry) throw new Error(`#${number} is not queued`);
  return queues().appChecks.latest(SHIPS, entry.group.headSha, GATE);
}
const commentsOf = (number: number) => world.github.state.comments(SHIPS, number).map((c) => c.body);

describe("the gate check holds GitHub's merge queue while paused", () => {
  it("passes a merge group's gate at once while the queue runs, and GitHub merges it", async () => {
    await comment(11, "@yardmaster queue");
    await world.github.settle();
    expect(gateOf(11)).toMatchObject({ status: "completed", conclusion: "success" });
    expect(queues().merge(SHIPS, "main")?.number).toBe(11);
  });

  it("/mq pause acme/ships deploy holds the next merge group until /mq unpause", async () => {
    const paused = await ask(`pause ${SHIPS} deploy`);
    // The answer names the branch held: only main's queue waits, other branches keep merging.
    expect(paused).toContain("<@U0ALICE> paused the merge queue of `acme/ships` (branch `main`): deploy");
    // main's ruleset requires the gate: nothing more to say.
    expect(paused).not.toContain("is not held");
    await comment(12, "@yardmaster queue");
    await world.github.settle();
    expect(gateOf(12)).toMatchObject({ status: "queued", title: "Paused by alice: deploy" });
    expect(gateOf(12)?.summary).toContain("Reason: deploy");
    expect(() => queues().merge(SHIPS, "main")).toThrow(/waits for yardmaster\/gate/);
    expect(queued()).toEqual([12]);

    const status = await ask(`status ${SHIPS}`);
    expect(status).toContain("Paused");
    expect(status).toContain("by alice");
    expect(status).toContain("deploy");

    // The channel hears of the pause, as of Mergify's.
    const notice = await world.slack.waitFor(
      () =>
        world.slack.state
          .messages(CHANNEL)
          .find((m) => m.text?.includes("acme/ships merge queue paused by alice (through Yardmaster)")),
      10_000,
    );
    expect(notice.text).toContain("deploy");
    expect(await ask(`unpause ${SHIPS}`)).toContain("<@U0ALICE> unpaused the merge queue of");
    await world.github.settle();
    await world.slack.waitFor(
      () =>
        world.slack.state
          .messages(CHANNEL)
          .find((m) => m.text?.includes("acme/ships merge queue resumed by alice")),
      10_000,
    );
    expect(gateOf(12)).toMatchObject({ status: "completed", conclusion: "success" });
    // One gate on the group's commit: the held one, completed.
    const runs = queues()
      .appChecks.all(SHIPS)
      .filter((r) => r.headSha === queues().entries(SHIPS, "main")[0]?.group.headSha);
    expect(runs).toHaveLength(1);
    expect(queues().merge(SHIPS, "main")?.number).toBe(12);
  });

  it("a pull request's gate succeeds at once, even while its branch is paused", async () => {
    await comment(19, "@yardmaster pause boarding");
    const head = "9".repeat(40);
    queues().push(SHIPS, 19, head);
    await world.github.settle();
    const gate = await until(() => queues().appChecks.latest(SHIPS, head, GATE));
    expect(gate).toMatchObject({ status: "completed", conclusion: "success" });
    await comment(19, "@yardmaster unpause");
    expect(commentsOf(19).find((b) => b.includes(SUMMARY_MARKER))).toContain("is running again");
  });

  it("a pause longer than the check timeout ends with the timed-out entries back in order, ahead of later ones", async () => {
    await comment(13, "@yardmaster pause release freeze");
    expect(commentsOf(13).find((b) => b.includes(SUMMARY_MARKER))).toContain("is **paused**");
    await comment(13, "@yardmaster queue");
    await comment(14, "@yardmaster queue");
    await world.github.settle();
    expect(queued()).toEqual([13, 14]);

    world.sim.clock.advance(TIMEOUT_MS + 1_000);
    expect(queues().expireChecks(SHIPS)).toEqual([13]);
    await comment(15, "@yardmaster queue");
    await world.github.settle();
    expect(queued()).toEqual([14, 15]);
    // GitHub rebuilt the group behind: its timer restarted, and it times out in turn.
    world.sim.clock.advance(TIMEOUT_MS + 1_000);
    expect(queues().expireChecks(SHIPS)).toEqual([14]);
    await world.github.settle();
    expect(queued()).toEqual([15]);

    await comment(16, "@yardmaster unpause");
    // The entries put back and their new groups' gates arrive as GitHub's webhooks do: waited for.
    await until(() => queued().join() === "13,14,15");
    await until(() => gateOf(13)?.status === "completed");
    for (const number of [13, 14]) {
      expect(commentsOf(number).some((b) => b.includes("Yardmaster put it back in its place"))).toBe(true);
    }
    expect(commentsOf(15).some((b) => b.includes("put it back"))).toBe(false);
    expect(gateOf(13)).toMatchObject({ status: "completed", conclusion: "success" });
    expect(queues().merge(SHIPS, "main")?.number).toBe(13);
  });

  it("branch=<name> holds that branch's queue alone, as subscribe names a branch", async () => {
    queues().enable(SHIPS, "release/2.0", { requiredChecks: [], appRequiredChecks: [GATE] });
    world.github.state.addPullRequest({
      repository: SHIPS,
      number: 17,
      author: "alice",
      title: "Hotfix",
      base: "release/2.0",
    });
    const paused = await ask(`pause ${SHIPS} branch=release/2.0 hotfix <freeze>`);
    expect(paused).toContain(
      "paused the merge queue of `acme/ships` (branch `release/2.0`): hotfix &lt;freeze&gt;",
    );
    expect(paused).toContain(JSON.stringify(unpauseValue(Repo.of("acme", "ships"), "release/2.0")));
    await comment(17, "@yardmaster queue");
    const release = () => queues().entries(SHIPS, "release/2.0")[0]?.group;
    const held = await until(() => {
      const group = release();
      return group && queues().appChecks.latest(SHIPS, group.headSha, GATE);
    });
    expect(held).toMatchObject({ status: "queued", title: "Paused by alice: hotfix <freeze>" });
    expect(await ask(`status ${SHIPS} release/2.0`)).toContain("Paused");
    // The default branch runs: its status shows no pause.
    expect(await ask(`status ${SHIPS}`)).not.toContain("Paused");
    expect(await ask(`unpause ${SHIPS}`)).toContain("is not paused");
    // The channel's notice of the branch's pause: its Unpause button names the branch, and resumes it.
    const notice = await world.slack.waitFor(
      () =>
        world.slack.state
          .messages(CHANNEL)
          .find((m) => m.text?.includes("merge queue paused by") && m.text.includes("hotfix")),
      10_000,
    );
    const button = (notice.blocks as Array<{ elements?: Array<{ action_id?: string; value?: string }> }>)
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === ACTION_IDS.unpause);
    expect(button?.value).toBe(unpauseValue(Repo.of("acme", "ships"), "release/2.0"));
    const click = await world.slack.clickButton({
      actionId: ACTION_IDS.unpause,
      value: button?.value ?? "",
      userId: ALICE,
      channelId: CHANNEL,
    });
    expect(click.status).toBe(200);
    const clicked = await world.slack.waitFor(
      () => world.slack.state.responses.find((r) => r.responseUrl === click.responseUrl),
      10_000,
    );
    expect(textOf(clicked)).toContain("unpaused the merge queue of `acme/ships` (branch `release/2.0`)");
    await until(
      () => queues().appChecks.latest(SHIPS, release()?.headSha ?? "", GATE)?.status === "completed",
    );
    expect(queues().merge(SHIPS, "release/2.0")?.number).toBe(17);
  });

  it("pauses a branch whose ruleset does not require the gate, saying GitHub's queue is not held", async () => {
    queues().enable(SHIPS, "release/3.0", { requiredChecks: ["ci"], appRequiredChecks: [] });
    const paused = await ask(`pause ${SHIPS} branch=release/3.0 deploy`);
    expect(paused).toContain("paused the merge queue of `acme/ships` (branch `release/3.0`): deploy");
    expect(paused).toContain(
      "GitHub's merge queue of release/3.0 is not held: yardmaster/gate is not a required check of the branch's ruleset, so its merge groups still merge until an admin makes it one",
    );
    expect(await ask(`status ${SHIPS} release/3.0`)).toContain("Paused");
    expect(await ask(`unpause ${SHIPS} branch=release/3.0`)).toContain("unpaused the merge queue of");
  });

  it("pauses a branch whose ruleset accepts the gate from any source, saying so and how to require it from the app", async () => {
    // release/4.0's ruleset requires yardmaster/gate with no source chosen, and CI has a job of that name.
    queues().enable(SHIPS, "release/4.0", {
      requiredChecks: [],
      anySourceChecks: [GATE],
      workflowJobs: [GATE],
    });
    world.github.state.addPullRequest({
      repository: SHIPS,
      number: 40,
      author: "alice",
      title: "Rigging",
      base: "release/4.0",
    });
    const warning =
      "GitHub's merge queue of release/4.0 may not be held: its ruleset accepts yardmaster/gate from any source, so a workflow job or another app's check of that name passes it and its merge groups may still merge. To hold it, an admin edits the branch's ruleset: Settings → Rules → Rulesets → Require status checks to pass → yardmaster/gate → source: this GitHub App (not “any source”)";
    const paused = await ask(`pause ${SHIPS} branch=release/4.0 deploy`);
    expect(paused).toContain("paused the merge queue of `acme/ships` (branch `release/4.0`): deploy");
    expect(paused).toContain(warning);
    // What the warning is about: CI's job of the gate's name passes it, and GitHub merges during the pause.
    await comment(40, "@yardmaster queue");
    await until(() => queues().entries(SHIPS, "release/4.0").length === 1);
    await until(() =>
      queues()
        .appChecks.all(SHIPS)
        .some((r) => r.headSha === queues().entries(SHIPS, "release/4.0")[0]?.group.headSha),
    );
    expect(() => queues().merge(SHIPS, "release/4.0")).toThrow(/waits for yardmaster\/gate/);
    queues().completeChecks(SHIPS, 40, { [GATE]: "success" });
    expect(queues().merge(SHIPS, "release/4.0")?.number).toBe(40);
    expect(await ask(`unpause ${SHIPS} branch=release/4.0`)).toContain("unpaused the merge queue of");

    // The same on GitHub: the pause's answer says so.
    world.github.state.addPullRequest({
      repository: SHIPS,
      number: 41,
      author: "alice",
      title: "Sails",
      base: "release/4.0",
    });
    await comment(41, "@yardmaster pause branch=release/4.0 deploy");
    const answer = await until(() =>
      commentsOf(41).find((body) => body.includes(SUMMARY_MARKER) && body.includes("may not be held")),
    );
    expect(answer.replace(/\\/g, "")).toContain("its ruleset accepts yardmaster/gate from any source");
    expect(answer.replace(/\\/g, "")).toContain("source: this GitHub App");
    expect(await ask(`unpause ${SHIPS} branch=release/4.0`)).toContain("unpaused the merge queue of");
  });

  it("a timed pause of GitHub's queue ends by itself, and its held gates complete", async () => {
    expect(await ask(`pause ${SHIPS} maintenance for 1h`)).toContain("paused the merge queue of");
    world.github.state.addPullRequest({
      repository: SHIPS,
      number: 18,
      author: "alice",
      title: "Mast",
      base: "main",
    });
    const before = queued();
    await comment(18, "@yardmaster queue");
    await until(() => queued().length === before.length + 1);
    const group = queues()
      .entries(SHIPS, "main")
      .find((e) => e.pull.number === 18)?.group;
    if (!group) throw new Error("#18 is not queued");
    const gate = () => queues().appChecks.latest(SHIPS, group.headSha, GATE);
    await until(() => gate()?.status === "queued");
    // status says until when, as on Mergify's queue.
    expect(await ask(`status ${SHIPS}`)).toMatch(/Paused.*maintenance · resumes at .*\(in 1 h\)/s);
    world.sim.clock.advance(60 * 60_000 + 1_000);
    // This tick, or the runner's own pass on its timer if it came first, ends the pause.
    await world.yardmaster.scheduledUnpauser.tick();
    await until(() => gate()?.status === "completed");
    expect(gate()?.conclusion).toBe("success");
    expect(await ask(`status ${SHIPS}`)).not.toContain("Paused");
  });

  it("answers with the repository and what to do when GitHub does not know it or refuses the app, pausing nothing", async () => {
    // Until cleared: other readers of the repository (the timed pauses' runner) may ask meanwhile.
    world.github.faults.fail({ method: "GET", path: "/repos/acme/ships", status: 404, count: 50 });
    const gone = await ask(`pause ${SHIPS} deploy`);
    world.github.faults.clear();
    expect(gone).toContain(
      "GitHub does not know `acme/ships`, or Yardmaster's GitHub App is not installed on it (404): check the repository's name (was it renamed or deleted?), and install the app on it",
    );
    expect(gone).not.toContain("Something went wrong");
    world.github.faults.fail({
      method: "GET",
      path: "/repos/acme/ships",
      status: 403,
      count: 50,
      message: "Resource not accessible by integration",
    });
    expect(commentsOf(13).some((b) => b.includes("(403)"))).toBe(false);
    await comment(13, "@yardmaster pause deploy");
    const refused = await until(() => commentsOf(13).find((b) => b.includes("(403)")));
    world.github.faults.clear();
    expect(refused).toContain(
      "GitHub refused Yardmaster's GitHub App access to `acme/ships` (403): install the app on it",
    );
    expect(await ask(`status ${SHIPS}`)).not.toContain("Paused");
  });

  it("/mq doctor reads the branch's rules: the gate is required from the app, and the check timeout", async () => {
    const text = await ask("doctor");
    expect(text).toContain(
      "acme/ships: yardmaster/gate on main: required, from this GitHub App; the queue's checks time out after 10 min",
    );
  });
});

describe("two replicas on one PostgreSQL", () => {
  const db = useSchema("ym_gate_replicas");
  let two: World;
  let second: { url: string };
  beforeAll(async () => {
    two = await startWorld({
      DATABASE_URL: db.url(),
      MERGE_QUEUE_PROVIDER: "github",
      MERGE_QUEUE_API_TOKEN: "",
    });
    second = await two.replica();
    two.github.state.addRepository(SHIPS);
    two.github.state.setPermission(SHIPS, "alice", "write");
    two.github.mergeQueues.enable(SHIPS, "main", {
      requiredChecks: [],
      appRequiredChecks: [GATE],
      checkResponseTimeout: TIMEOUT_MS / 1000,
    });
    for (const number of [21, 22]) {
      two.github.state.addPullRequest({
        repository: SHIPS,
        number,
        author: "alice",
        title: `Part ${number}`,
        base: "main",
      });
    }
  }, 60_000);
  afterAll(() => two?.close());

  const hook = (url: string) => `${url}/api/github/webhooks`;
  const say = (number: number, body: string, url: string) =>
    two.github.deliverIssueComment({ repository: SHIPS, number, body, author: "alice", url: hook(url) });
  const summaryOf = (number: number) =>
    two.github.state.comments(SHIPS, number).find((c) => c.body.includes(SUMMARY_MARKER))?.body ?? "";

  it("report each gate once, whichever replica gets the webhook or its redelivery, and complete it once", async () => {
    await say(21, "@yardmaster pause deploy", two.url);
    await until(() => summaryOf(21).includes("**paused**"));
    await say(21, "@yardmaster queue", second.url);
    const group = await until(() => two.github.mergeQueues.entries(SHIPS, "main")[0]?.group);
    const gates = () =>
      two.github.mergeQueues.appChecks.all(SHIPS).filter((r) => r.headSha === group.headSha);
    await until(() => gates().length > 0);
    await two.github.settle();
    const delivery = two.github.deliveries.find(
      (d) =>
        d.event === "merge_group" &&
        (d.payload as { merge_group?: { head_sha?: string } }).merge_group?.head_sha === group.headSha,
    );
    if (!delivery) throw new Error("no merge_group delivery");
    const again = await Promise.all([
      two.github.redeliver(delivery.deliveryId, hook(second.url)),
      two.github.redeliver(delivery.deliveryId, hook(two.url)),
    ]);
    expect(again.map((a) => a.status)).toEqual([200, 200]);
    expect(gates()).toHaveLength(1);
    expect(gates()[0]).toMatchObject({ status: "queued", title: "Paused by alice: deploy" });

    const patches = () =>
      two.github.requests.filter((r) => r.method === "PATCH" && /\/check-runs\//.test(r.path)).length;
    await Promise.all([say(21, "@yardmaster unpause", two.url), say(22, "@yardmaster unpause", second.url)]);
    const answers = await until(() => {
      const both = [summaryOf(21), summaryOf(22)];
      return both.every((b) => /running again|is not paused/.test(b)) && both;
    });
    expect(answers.filter((b) => b.includes("running again"))).toHaveLength(1);
    expect(answers.filter((b) => b.includes("is not paused"))).toHaveLength(1);
    expect(patches()).toBe(1);
    expect(gates()).toHaveLength(1);
    expect(gates()[0]).toMatchObject({ status: "completed", conclusion: "success" });
  });
});
