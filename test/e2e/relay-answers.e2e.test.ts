import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_MARKER } from "../../src/github/summary-comment.js";
import { waitFor } from "../../tools/stand-ins/slack/wait-for.js";
import { linkSlackUser, startWorld, type World } from "../helpers/e2e.js";

/**
 * The merge queue's answer to a relayed command, followed end to end: the GitHub stand-in posts the
 * simulator's answer as `mergify[bot]` and edits it as the pull request moves (signed `issue_comment`
 * webhooks), and Yardmaster shows it in the summary comment and the Slack answer.
 */
let world: World;
const REPO = "acme/widgets";
const CHANNEL = "C0ENG";
const ALICE = "U0ALICE";

beforeAll(async () => {
  // 👀 after a minute, not a second: a command slowed by a loaded machine gets none, so the reactions
  // below are the answer's alone (github-load tests 👀).
  world = await startWorld({}, { githubAnswers: { seenAfterMs: 60_000 } });
  const { state } = world.github;
  state.addRepository(REPO);
  state.setPermission(REPO, "alice", "write");
  for (let number = 501; number <= 512; number++) {
    state.addPullRequest({
      repository: REPO,
      number,
      author: "alice",
      title: `Change ${number}`,
      base: "main",
    });
  }
  world.slack.state.addChannel({ id: CHANNEL, name: "eng", botIsMember: true });
  world.slack.state.addUser({ id: ALICE, name: "alice" });
  await linkSlackUser(world, ALICE, "alice", 1);
});
afterEach(() => world.sim.state.setCommandsRestrictions(REPO, false));
afterAll(() => world.close());

const comment = (number: number, body: string) =>
  world.github.deliverIssueComment({ repository: REPO, number, body, author: "alice" });

const bodies = (number: number): string[] =>
  world.github.state.comments(REPO, number).map((c: { body: string }) => c.body);

/** The relayed comments on a pull request (what the merge queue was sent). */
const relays = (number: number) => bodies(number).filter((b) => b.startsWith("@mergifyio "));

function summary(number: number): string {
  const found = bodies(number).filter((b) => b.includes(SUMMARY_MARKER));
  expect(found.length).toBeLessThanOrEqual(1);
  return found[0] ?? "";
}

const reactions = (commentId: number): string[] =>
  world.github.state.reactions(commentId).map((r: { content: string }) => r.content);

/** The summary once it says `text`. */
const summarySays = (number: number, text: string) => waitFor(() => summary(number).includes(text));

/** Waits for a pull request in the merge queue's conditions. */
function unmet(number: number, conditions: string[]) {
  world.sim.state.knowPullRequest(REPO, { number, base_ref: "main" });
  world.sim.state.setConditions(REPO, number, conditions);
}

describe("following the merge queue's answer on GitHub", () => {
  it("ends a queue the merge queue accepted as queued at position N, its answer quoted", async () => {
    const { commentId } = await comment(501, "@yardmaster queue");
    await summarySays(501, "The merge queue's answer");
    const position = world.sim.state.pullDetails(REPO, 501)!.position + 1;
    const text = summary(501);
    expect(text).toContain(`✅ #501 is in the merge queue \`default\` at position ${position}`);
    expect(text).toMatch(
      new RegExp(`“The pull request is the ${position}(st|nd|rd|th) in the queue to be merged”`),
    );
    expect(reactions(commentId)).toEqual(["+1"]);
    expect(relays(501)).toHaveLength(1);
  });

  it("ends a queue refused by the merge queue's command restrictions with 😕, the refusal and the fix", async () => {
    world.sim.state.setCommandsRestrictions(REPO, true);
    const { commentId } = await comment(502, "@yardmaster queue");
    await summarySays(502, "😕 The merge queue refused `queue`");
    const text = summary(502);
    // Markdown-escaped, as everything the merge queue wrote.
    expect(text).toContain(
      "“Command disallowed due to command restrictions in the Mergify configuration\\.”",
    );
    expect(text).toContain("`commands_restrictions`");
    expect(text).toContain("`.mergify.yml`");
    expect(text).toContain("Mergify setup for relayed commands");
    await waitFor(() => reactions(commentId).join() === "confused");
    expect(world.sim.state.pullDetails(REPO, 502)).toBeNull();
    expect(relays(502)).toHaveLength(1);
  });

  it("says which conditions a queue waits for, then where it stands once they match", async () => {
    unmet(503, ["label=ready", "#approved-reviews-by>=1"]);
    const { commentId } = await comment(503, "@yardmaster queue");
    await summarySays(503, "⏳ The merge queue is waiting for conditions before it queues");
    expect(summary(503)).toContain("`label=ready`, `#approved-reviews-by>=1`");
    expect(summary(503)).toContain("“Waiting for conditions to match”");
    expect(world.sim.state.pullDetails(REPO, 503)).toBeNull();

    world.sim.state.setConditions(REPO, 503, []);
    await summarySays(503, "✅ #503 is in the merge queue `default` at position");
    expect(summary(503)).toContain("in the queue to be merged”");
    expect(reactions(commentId)).toContain("+1");
    expect(reactions(commentId)).not.toContain("confused");
    expect(relays(503)).toHaveLength(1);
  });

  it("relays requeue as queue, with its queue name, and says why", async () => {
    await comment(504, "@yardmaster requeue urgent");
    await summarySays(504, "The merge queue's answer");
    expect(relays(504).map((b) => b.split("\n")[0])).toEqual(["@mergifyio queue urgent"]);
    expect(summary(504)).toContain("`requeue` is a deprecated alias of `queue` in Mergify");
    expect(summary(504)).toContain("✅ #504 is in the merge queue `urgent`");
  });

  it("relays nothing twice: a redelivered command and the merge queue's edits relay nothing more", async () => {
    const first = await comment(505, "@yardmaster queue");
    await summarySays(505, "The merge queue's answer");
    const payload = world.github.deliveries.find((d) => d.deliveryId === first.deliveryId);
    expect(payload).toBeDefined();
    const again = await world.github.deliverIssueComment({
      repository: REPO,
      number: 506,
      body: "@yardmaster queue",
      author: "alice",
      deliveryId: first.deliveryId,
    });
    expect(again.status).toBe(200);
    await world.github.settle();
    expect(relays(505)).toHaveLength(1);
    expect(relays(506)).toHaveLength(0);
    for (const number of [501, 502, 503, 504]) expect(relays(number)).toHaveLength(1);
    // The merge queue's comments are never taken for commands, nor answered.
    expect(bodies(505).filter((b) => b.includes(SUMMARY_MARKER))).toHaveLength(1);
  });
});

describe("following the merge queue's answer from Slack", () => {
  const slash = (text: string) => world.slack.sendSlashCommand({ text, userId: ALICE, channelId: CHANNEL });
  const answers = (responseUrl: string) =>
    world.slack.state.responses
      .filter((r) => r.responseUrl === responseUrl)
      .map((r) => `${r.text ?? ""}\n${JSON.stringify(r.blocks ?? [])}`);
  /** The Slack answer once one of the command's answers says `text`. */
  const answerSays = (responseUrl: string, text: string) =>
    waitFor(() => answers(responseUrl).find((a) => a.includes(text)));

  it("updates the Slack answer of an accepted queue with its position and the merge queue's words", async () => {
    const sent = await slash(`queue ${REPO}#507`);
    const answer = await answerSays(sent.responseUrl, "The merge queue's answer");
    const position = world.sim.state.pullDetails(REPO, 507)!.position + 1;
    expect(answer).toContain(`at position ${position} in the merge queue`);
    expect(answer).toContain("in the queue to be merged");
    expect(relays(507)).toHaveLength(1);
  });

  it("updates the Slack answer of a refused queue with the refusal and the fix", async () => {
    world.sim.state.setCommandsRestrictions(REPO, true);
    const sent = await slash(`queue ${REPO}#508`);
    const answer = await answerSays(sent.responseUrl, "The merge queue refused");
    expect(answer).toContain("Command disallowed due to command restrictions");
    expect(answer).toContain("commands_restrictions");
    expect(relays(508)).toHaveLength(1);
  });

  it("updates the Slack answer of a queue waiting for conditions, then once queued", async () => {
    unmet(509, ["label=ready"]);
    const sent = await slash(`queue ${REPO}#509`);
    const waiting = await answerSays(sent.responseUrl, "The merge queue is waiting for conditions");
    expect(waiting).toContain("label=ready");
    world.sim.state.setConditions(REPO, 509, []);
    await answerSays(sent.responseUrl, "in the merge queue `default`");
    expect(relays(509)).toHaveLength(1);
  });
});
