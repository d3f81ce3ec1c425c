import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_MARKER } from "../../src/github/summary-comment.js";
import { ACTION_IDS } from "../../src/slack/actions.js";
import {
  linkSlackUser,
  startWorld,
  subscribeChannel,
  eventually as until,
  type World,
} from "../helpers/e2e.js";

/**
 * More control of GitHub's own merge queue through the gate, end to end (MERGE_QUEUE_PROVIDER=auto):
 * acme/ships's main branch has a merge queue on the GitHub stand-in whose ruleset requires
 * `yardmaster/gate` from Yardmaster's GitHub App (and CI's `ci`); acme/widgets has none and stays on the
 * merge-queue simulator (Mergify). A drain, a pause with `except label:hotfix` and `let … through`, each
 * seen where a person sees it: the gate GitHub reads on each merge group, whether GitHub merges, the
 * answers and the channel's notices; on Mergify each is refused with a sentence.
 */
let world: World;
const SHIPS = "acme/ships";
const WIDGETS = "acme/widgets";
const CHANNEL = "C0SHIPS";
const ALICE = "U0ALICE";
const BOB = "U0BOB";
const GATE = "yardmaster/gate";

beforeAll(async () => {
  world = await startWorld({ MERGE_QUEUE_PROVIDER: "auto" });
  const { state } = world.github;
  for (const repo of [SHIPS, WIDGETS]) {
    state.addRepository(repo);
    state.setPermission(repo, "alice", "admin");
    state.setPermission(repo, "bob", "write");
  }
  world.github.mergeQueues.enable(SHIPS, "main", { requiredChecks: ["ci"], appRequiredChecks: [GATE] });
  for (const number of [51, 52, 53, 61, 62, 71, 72, 73]) {
    state.addPullRequest({
      repository: SHIPS,
      number,
      author: "alice",
      title: `Ship part ${number}`,
      base: "main",
      ...(number === 61 ? { labels: ["hotfix"] } : {}),
    });
  }
  state.addPullRequest({ repository: WIDGETS, number: 21, author: "alice", title: "Gears", base: "main" });
  world.slack.state.addChannel({ id: CHANNEL, name: "ships", botIsMember: true });
  world.slack.state.addUser({ id: ALICE, name: "alice" });
  world.slack.state.addUser({ id: BOB, name: "bob" });
  await linkSlackUser(world, ALICE, "alice", 1);
  await linkSlackUser(world, BOB, "bob", 2);
  await subscribeChannel(world, CHANNEL, [SHIPS], ["queue", "pause"]);
  world.sim.clock.advance(5_000);
}, 60_000);
afterAll(() => world?.close());

const queues = () => world.github.mergeQueues;
const textOf = (message: { text?: string; blocks?: unknown }) =>
  `${message.text ?? ""}\n${JSON.stringify(message.blocks ?? [])}`;
async function ask(text: string, userId = ALICE) {
  const sent = await world.slack.sendSlashCommand({ text, userId, channelId: CHANNEL });
  const answer = await world.slack.waitFor(
    () => world.slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
    10_000,
  );
  return { text: textOf(answer), answer };
}
const say = async (text: string, userId = ALICE) => (await ask(text, userId)).text;
/** Queues a pull request from a comment, and waits for GitHub to make its merge group and its gate. */
async function enqueue(number: number) {
  await world.github.deliverIssueComment({
    repository: SHIPS,
    number,
    body: "@yardmaster queue",
    author: "alice",
  });
  await world.github.settle();
  await until(() => gateOf(number));
}
/** The gate GitHub reads on the current merge group of a queued pull request. */
function gateOf(number: number) {
  const entry = queues()
    .entries(SHIPS, "main")
    .find((e) => e.pull.number === number);
  return entry ? queues().appChecks.latest(SHIPS, entry.group.headSha, GATE) : undefined;
}
const channel = (needle: string) =>
  world.slack.state.messages(CHANNEL).filter((m) => (m.text ?? "").includes(needle));
const heard = (needle: string) => world.slack.waitFor(() => channel(needle)[0], 30_000);

describe("a drain of GitHub's merge queue", () => {
  it("merges groups of what was queued before it, holds a later entry's group, says when it is drained, and holds until unpause", async () => {
    await enqueue(51);
    await enqueue(52);
    expect(gateOf(52)).toMatchObject({ status: "completed", conclusion: "success" });

    const drained = await say(`drain ${SHIPS} deploy 1.2`);
    expect(drained).toContain(
      "<@U0ALICE> is draining the merge queue of `acme/ships` (branch `main`): deploy 1.2",
    );
    expect(drained).toContain(
      "2 pull requests queued now will merge; what is queued from now on waits until `unpause`",
    );
    await heard("acme/ships merge queue draining by alice");

    await enqueue(53);
    expect(gateOf(53)).toMatchObject({ status: "queued", title: "Draining by alice: deploy 1.2" });
    expect(gateOf(53)?.summary).toContain("This merge group holds #53, queued since, so it waits.");
    const status = await say(`status ${SHIPS}`);
    expect(status).toContain("Draining");
    expect(status).toContain("by alice");
    expect(status).toContain("deploy 1.2");

    // CI fails #51: GitHub makes #52's and #53's groups anew. #52's holds only what was queued before.
    expect(queues().completeChecks(SHIPS, 51, { ci: "failure" }).removed).toBe(true);
    await world.github.settle();
    await until(() => gateOf(52)?.status === "completed");
    expect(gateOf(52)).toMatchObject({ conclusion: "success", title: "Queued before the drain" });
    expect(gateOf(53)).toMatchObject({ status: "queued" });
    expect(channel("drained:")).toEqual([]);

    expect(queues().merge(SHIPS, "main")?.number).toBe(52);
    await world.github.settle();
    const notice = await heard("acme/ships main drained");
    expect(notice.text).toContain(
      "every pull request queued before the drain has left the queue, which stays held until unpaused",
    );
    // Held until unpause: #53 waits.
    expect(() => queues().merge(SHIPS, "main")).toThrow(/waits for yardmaster\/gate/);
    expect(await say(`status ${SHIPS}`)).toContain("Drained");

    expect(await say(`unpause ${SHIPS}`)).toContain("unpaused the merge queue of");
    await until(() => gateOf(53)?.status === "completed");
    expect(queues().merge(SHIPS, "main")?.number).toBe(53);
    expect(channel("acme/ships main drained")).toHaveLength(1);
  }, 90_000);
});

describe("a pause with except label:hotfix", () => {
  it("merges a group of one labelled pull request and holds an unlabelled one, saying so in the answer, status and freezes", async () => {
    const paused = await say(`pause ${SHIPS} release freeze except label:hotfix`);
    expect(paused).toContain(
      "<@U0ALICE> paused the merge queue of `acme/ships` (branch `main`): release freeze · except pull requests labelled `hotfix`",
    );
    await heard(
      "merge queue paused by alice (through Yardmaster), branch main only: release freeze · except pull requests labelled hotfix",
    );
    expect(await say(`status ${SHIPS}`)).toContain("except pull requests labelled `hotfix`");

    await enqueue(61);
    expect(gateOf(61)).toMatchObject({
      status: "completed",
      title: "Exempt from the pause: labelled hotfix",
    });
    expect(queues().merge(SHIPS, "main")?.number).toBe(61);

    await enqueue(62);
    expect(gateOf(62)).toMatchObject({ status: "queued", title: "Paused by alice: release freeze" });
    expect(gateOf(62)?.summary).toContain(
      "Pull requests labelled `hotfix` pass: this merge group holds #62, without one.",
    );
    expect(() => queues().merge(SHIPS, "main")).toThrow(/waits for yardmaster\/gate/);

    // A timed pause and a freeze window take exemptions too, and say them.
    expect(await say(`pause ${SHIPS} release freeze for 2h except label:hotfix label:release`)).toContain(
      "· except pull requests labelled `hotfix` or `release`",
    );
    const freeze = await say(`freeze ${SHIPS} weekend every sat 00:00 - sun 00:00 UTC except label:hotfix`);
    expect(freeze).toContain("except pull requests labelled `hotfix`");
    expect(await say(`freezes ${SHIPS}`)).toContain(
      "every sat 00:00 - sun 00:00 UTC` except pull requests labelled `hotfix`",
    );
    expect(await say(`unfreeze ${SHIPS} weekend`)).toContain("weekend");

    expect(await say(`unpause ${SHIPS}`)).toContain("unpaused the merge queue of");
    await until(() => gateOf(62)?.status === "completed");
    expect(queues().merge(SHIPS, "main")?.number).toBe(62);
  }, 90_000);
});

describe("letting one pull request through", () => {
  it("passes exactly the named pull request's group, and an admin confirms one that holds others", async () => {
    await say(`pause ${SHIPS} incident`);
    await enqueue(71);
    expect(gateOf(71)).toMatchObject({ status: "queued" });
    // A writer may not: it takes an admin.
    expect(await say(`let ${SHIPS}#71 through`, BOB)).toContain("needs *admin* permission on `acme/ships`");
    expect(gateOf(71)).toMatchObject({ status: "queued" });

    const let71 = await say(`let ${SHIPS}#71 through`);
    expect(let71).toContain(
      "<@U0ALICE> let #71 through the held merge queue of `acme/ships` (branch `main`): its merge group passes the gate now.",
    );
    expect(gateOf(71)).toMatchObject({ status: "completed", title: "Let through by alice" });
    await heard("alice let #71 through the held merge queue");
    expect(queues().merge(SHIPS, "main")?.number).toBe(71);

    await enqueue(72);
    await enqueue(73);
    const asked = await ask(`let ${SHIPS}#73 through`);
    expect(asked.answer.response_type).toBe("ephemeral");
    expect(asked.text).toContain("#73's merge group also holds #72, ahead of it in the queue");
    expect(asked.text).toContain("/mq let acme/ships#73 through confirm");
    expect(gateOf(73)).toMatchObject({ status: "queued" });
    expect(gateOf(72)).toMatchObject({ status: "queued" });

    const value = JSON.stringify({ r: SHIPS, p: 73 });
    expect(asked.text).toContain(JSON.stringify(value));
    const click = await world.slack.clickButton({
      actionId: ACTION_IDS.let,
      value,
      userId: ALICE,
      channelId: CHANNEL,
    });
    expect(click.status).toBe(200);
    const confirmed = await world.slack.waitFor(
      () => world.slack.state.responses.find((r) => r.responseUrl === click.responseUrl),
      10_000,
    );
    expect(textOf(confirmed)).toContain(
      "<@U0ALICE> let #73 through the held merge queue of `acme/ships` (branch `main`), with #72 ahead of it",
    );
    await until(() => gateOf(73)?.status === "completed" && gateOf(72)?.status === "completed");
    expect(queues().merge(SHIPS, "main")?.number).toBe(72);
    expect(queues().merge(SHIPS, "main")?.number).toBe(73);
    await say(`unpause ${SHIPS}`);
    // Not held any more: nothing to let through.
    await enqueue(51);
    expect(await say(`let ${SHIPS}#51 through`)).toContain(
      "The merge queue of `acme/ships` is not paused: nothing holds branch main (no pause, drain or freeze), so #51 needs no letting through.",
    );
    expect(queues().merge(SHIPS, "main")?.number).toBe(51);
  }, 90_000);

  it("on GitHub, says to comment confirm when the group holds others, and lets them through once confirmed", async () => {
    for (const number of [74, 75]) {
      world.github.state.addPullRequest({
        repository: SHIPS,
        number,
        author: "alice",
        title: `Part ${number}`,
        base: "main",
      });
    }
    const comment = (number: number, body: string) =>
      world.github.deliverIssueComment({ repository: SHIPS, number, body, author: "alice" });
    const summary = (number: number) =>
      (
        world.github.state.comments(SHIPS, number).find((c) => c.body.includes(SUMMARY_MARKER))?.body ?? ""
      ).replace(/\\/g, "");
    await comment(74, "@yardmaster pause incident");
    await enqueue(74);
    await enqueue(75);
    await comment(75, "@yardmaster let through");
    await until(() => summary(75).includes("also holds"));
    expect(summary(75)).toContain("#75's merge group also holds #74, ahead of it in the queue");
    expect(summary(75)).toContain("comment `@yardmaster let #75 through confirm`");
    expect(gateOf(75)).toMatchObject({ status: "queued" });
    await comment(75, "@yardmaster let through confirm");
    await until(() => summary(75).includes("with #74 ahead of it"));
    expect(summary(75)).toContain(
      "#75 goes through the held merge queue of `acme/ships` (branch `main`), with #74 ahead of it",
    );
    expect(gateOf(74)).toMatchObject({ status: "completed" });
    expect(gateOf(75)).toMatchObject({ status: "completed" });
    expect(queues().merge(SHIPS, "main")?.number).toBe(74);
    expect(queues().merge(SHIPS, "main")?.number).toBe(75);
    await comment(75, "@yardmaster unpause");
  }, 90_000);
});

describe("on Mergify's merge queue", () => {
  it("refuses drain, exemptions and let … through with why and what to use instead, changing nothing", async () => {
    expect(await say(`drain ${WIDGETS} deploy`)).toContain(
      "`drain` does not work on `acme/widgets`: Mergify's API has no drain",
    );
    const except = await say(`pause ${WIDGETS} deploy except label:hotfix`);
    expect(except).toContain(
      "`pause` does not work on `acme/widgets`: its merge queue (Mergify's) holds every pull request while paused and cannot let some through",
    );
    expect(await say(`let ${WIDGETS}#21 through`)).toContain("`let` does not work on `acme/widgets`");
    expect(
      await say(`freeze ${WIDGETS} weekend every sat 00:00 - sun 00:00 UTC except label:hotfix`),
    ).toContain("`freeze` does not work on `acme/widgets`");
    expect(await say(`status ${WIDGETS}`)).not.toContain("Paused");
    expect(await say(`freezes ${WIDGETS}`)).toContain("acme/widgets has no freeze windows");

    await world.github.deliverIssueComment({
      repository: WIDGETS,
      number: 21,
      body: "@yardmaster drain deploy",
      author: "alice",
    });
    const summary = await until(
      () => world.github.state.comments(WIDGETS, 21).find((c) => c.body.includes(SUMMARY_MARKER))?.body,
    );
    expect(summary.replace(/\\/g, "")).toContain("Mergify's API has no drain");
  }, 90_000);
});
