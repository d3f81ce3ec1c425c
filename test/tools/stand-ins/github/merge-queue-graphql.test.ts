import { afterEach, describe, expect, it } from "vitest";
import type { GitHubStandIn } from "../../../../tools/stand-ins/github/index.js";
import { installationOctokit, startReceiver, startSeededStandIn } from "./helpers.js";

const REPO = "acme/widgets";
let open: { standIn: GitHubStandIn; receiver: Awaited<ReturnType<typeof startReceiver>> } | undefined;
afterEach(async () => {
  await open?.standIn.close();
  await open?.receiver.close();
  open = undefined;
});

async function setup() {
  const receiver = await startReceiver();
  const standIn = await startSeededStandIn({ webhookUrl: `${receiver.url}/api/github/webhooks` });
  standIn.state.addPullRequest({ repository: REPO, number: 3, title: "Gears", author: "alice" });
  open = { standIn, receiver };
  return { standIn, octokit: await installationOctokit(standIn) };
}

const PULL = `query($n: Int!) { repository(owner: "acme", name: "widgets") { pullRequest(number: $n) { id mergeQueueEntry { position } } } }`;
const ENQUEUE = `mutation($id: ID!, $jump: Boolean) { enqueuePullRequest(input: { pullRequestId: $id, jump: $jump }) { mergeQueueEntry { position } } }`;

describe("GitHub stand-in: GitHub's merge queue over GraphQL", () => {
  it("has no queue until a branch is given one, and refuses what GitHub's schema does not have", async () => {
    const { standIn, octokit } = await setup();
    const queue = `{ repository(owner: "acme", name: "widgets") { mergeQueue(branch: "main") { entries { totalCount } } } }`;
    expect(await octokit.graphql(queue)).toEqual({ repository: { mergeQueue: null } });
    standIn.mergeQueues.enable(REPO, "main");
    expect(await octokit.graphql(queue)).toEqual({
      repository: { mergeQueue: { entries: { totalCount: 0 } } },
    });
    await expect(
      octokit.graphql(`{ repository(owner: "acme", name: "widgets") { mergeQueue { paused } } }`),
    ).rejects.toThrow(/Cannot query field "paused"/);
  });

  it("enqueues (jump to the head), merges the head and sends the pull_request webhooks with reasons", async () => {
    const { standIn, octokit } = await setup();
    standIn.mergeQueues.enable(REPO);
    const id = async (n: number) =>
      ((await octokit.graphql(PULL, { n })) as { repository: { pullRequest: { id: string } } }).repository
        .pullRequest.id;
    await octokit.graphql(ENQUEUE, { id: await id(1) });
    const jumped = await octokit.graphql(ENQUEUE, { id: await id(3), jump: true });
    expect(jumped).toEqual({ enqueuePullRequest: { mergeQueueEntry: { position: 1 } } });
    expect(standIn.mergeQueues.entries(REPO, "main").map((e) => e.pull.number)).toEqual([3, 1]);
    expect(standIn.mergeQueues.merge(REPO, "main")?.number).toBe(3);
    expect(standIn.state.getIssue(REPO, 3)?.pull?.merged).toBe(true);
    standIn.mergeQueues.remove(standIn.state.getIssue(REPO, 1)!, "CI_FAILURE");
    await standIn.settle();
    const bodies = open!.receiver.received
      .filter((r) => r.headers["x-github-event"] === "pull_request")
      .map((r) => JSON.parse(r.body) as { action: string; number: number; reason?: string });
    expect(bodies.map((b) => [b.action, b.number, b.reason])).toEqual([
      ["enqueued", 1, undefined],
      ["enqueued", 3, undefined],
      ["dequeued", 3, "MERGE"],
      ["closed", 3, undefined],
      ["dequeued", 1, "CI_FAILURE"],
    ]);
  });

  it("refuses a moved head and a branch without a queue, as GraphQL errors", async () => {
    const { standIn, octokit } = await setup();
    standIn.mergeQueues.enable(REPO);
    const pullId = (
      (await octokit.graphql(PULL, { n: 1 })) as { repository: { pullRequest: { id: string } } }
    ).repository.pullRequest.id;
    await expect(
      octokit.graphql(
        `mutation($id: ID!) { enqueuePullRequest(input: { pullRequestId: $id, expectedHeadOid: "${"b".repeat(40)}" }) { clientMutationId } }`,
        { id: pullId },
      ),
    ).rejects.toThrow(/expected head OID does not match/);
    standIn.state.addPullRequest({
      repository: REPO,
      number: 4,
      title: "Other",
      author: "alice",
      base: "release",
    });
    const other = ((await octokit.graphql(PULL, { n: 4 })) as { repository: { pullRequest: { id: string } } })
      .repository.pullRequest.id;
    await expect(octokit.graphql(ENQUEUE, { id: other })).rejects.toThrow(/does not have a merge queue/);
  });
});
