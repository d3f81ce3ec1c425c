import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_GATE_CHECK_NAME } from "../../src/backends/github/gate/index.js";
import { SANDBOX_CHANNEL, SANDBOX_GITHUB_QUEUE_REPOSITORY } from "../../tools/sandbox/demo-people.js";
import { type Sandbox, startSandbox } from "../../tools/sandbox/start-sandbox.js";
import { eventually as until } from "../helpers/e2e.js";

/** The sandbox offers acme/ships on GitHub's own merge queue next to acme/widgets on the simulator. */
let sandbox: Sandbox;
// The sandbox's whole world and its seed, and GitHub's schema for acme/ships' merge queue: a minute, not
// the default 20 s, for a machine under load.
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, pollIntervalSeconds: 60 });
}, 60_000);
afterAll(() => sandbox?.close());

const slash = async (text: string) => {
  const { slack } = sandbox.world;
  const sent = await slack.sendSlashCommand({ text, userId: "U0OCTOCAT", channelId: SANDBOX_CHANNEL.id });
  const answer = await slack.waitFor(
    () => slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
    10_000,
  );
  return `${answer.text ?? ""}`;
};

const GATE = DEFAULT_GATE_CHECK_NAME;
/** A control of the page (the stand-ins' CI and GitHub), as octocat. */
const post = async (path: string) => {
  const response = await fetch(new URL(path, sandbox.url), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ as: "octocat" }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
};
/** acme/ships' queue as the page shows it. */
const state = async () =>
  (
    (await (await fetch(new URL("/api/state?as=octocat", sandbox.url))).json()) as {
      githubQueue: {
        entries: Array<{ number: number; checks: Array<{ name: string; status: string }> }>;
      };
    }
  ).githubQueue;
/** The gate check of a queued pull request's merge group, as the page shows it. */
const gateOf = async (number: number) =>
  (await state()).entries.find((e) => e.number === number)?.checks.find((c) => c.name === GATE);
describe("the sandbox's repository on GitHub's merge queue", () => {
  it("queues from Slack and shows the queue with positions", async () => {
    const repo = SANDBOX_GITHUB_QUEUE_REPOSITORY;
    expect(await slash(`queue ${repo}#2`)).toContain("at position 2 in GitHub's merge queue of");
    expect(await slash(`status ${repo}`)).toContain("2 pull requests queued");
    // The gate check holds GitHub's merge queue (docs/backends.md, "The gate").
    expect(await slash(`pause ${repo} release freeze`)).toContain("paused the merge queue of");
    expect(await slash(`unpause ${repo}`)).toContain("unpaused the merge queue of");
  });

  it("fails the checks of the head (removed, CI_FAILURE) and merges the next head, from the page's controls", async () => {
    const repo = SANDBOX_GITHUB_QUEUE_REPOSITORY;
    const { github } = sandbox.world;
    const queued = () => github.mergeQueues.entries(repo, "main").map((e) => e.pull.number);
    expect(queued()).toEqual([1, 2]);
    // CI's check runs; Yardmaster's gate, required by the ruleset, passed at once (the queue runs).
    await until(async () => (await gateOf(1))?.status === "completed");
    expect((await state()).entries[0]).toMatchObject({
      number: 1,
      checks: [
        { name: "ci", status: "in_progress" },
        { name: GATE, status: "completed" },
      ],
    });
    expect(await post("/api/github-queue/fail-checks")).toEqual({
      status: 200,
      json: { status: 200, number: 1, removed: true, reason: "CI_FAILURE", passed: false },
    });
    expect(queued()).toEqual([2]);
    // #2's merge group made anew: its gate passes as soon as Yardmaster gets the webhook.
    await until(async () => (await gateOf(2))?.status === "completed");
    expect((await post("/api/github-queue/merge")).json).toMatchObject({ number: 2 });
    expect(queued()).toEqual([]);
    expect(github.state.getIssue(repo, 2)?.pull?.merged).toBe(true);
    expect((await post("/api/github-queue/merge")).status).toBe(409);
    await github.settle();
    // #1's group destroyed (dequeued), #2's invalidated, #2's new one merged.
    const destroyed = github.deliveries.filter((d) => d.event === "merge_group" && d.action === "destroyed");
    expect(destroyed).toHaveLength(3);

    // #merge-queue is subscribed to acme/ships too: GitHub's webhooks told it, threaded per pull request.
    const { slack } = sandbox.world;
    const said = () => JSON.stringify(slack.state.messages(SANDBOX_CHANNEL.id));
    await slack.waitFor(() => said().includes("Merged into") || undefined);
    expect(said()).toContain("without merging: its merge group's required checks failed (<http");
    expect(said()).toMatch(/acme\/ships\/runs\/\d+\|ci>\)/);
    // Why ci failed, in CI's own words (the sandbox's SANDBOX_CHECK_FAILURES): its title, summary, annotations.
    await slack.waitFor(() => said().includes("Build failed: 1 error") || undefined, 15_000);
    expect(said()).toContain("The hull module does not compile on the merge group's commit.");
    expect(said()).toMatch(
      /\/acme\/ships\/blob\/[0-9a-f]{40}\/src\/hull\/plates\.rs#L57\|src\/hull\/plates\.rs:57> — mismatched types/,
    );
  });

  it("/mq stats shows what GitHub's queue did, from the history Yardmaster recorded of its webhooks", async () => {
    const repo = SANDBOX_GITHUB_QUEUE_REPOSITORY;
    const said = await slash(`stats ${repo}`);
    expect(said).toContain(`Queue health of ${repo}, last 7 days`);
    // #2 merged, #1 was removed for its failed checks (the test above).
    expect(said).toContain("merged 1 (previous 7 days: 0, +1)");
    expect(said).toContain("left without merging 1 (previous 7 days: 0, +1)");
  });

  it("posts acme/ships' weekly digest when asked, from the same history", async () => {
    const { slack } = sandbox.world;
    const response = await fetch(new URL("/api/digest", sandbox.url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ as: "octocat" }),
    });
    expect(response.status).toBe(200);
    const digest = await slack.waitFor(
      () =>
        slack.state
          .messages(SANDBOX_CHANNEL.id)
          .find((m) =>
            JSON.stringify(m).includes(`Weekly digest: queue health of ${SANDBOX_GITHUB_QUEUE_REPOSITORY}`),
          ),
      10_000,
    );
    // #2 merged, #1 left for its failed checks (the tests above).
    expect(digest.text).toContain("merged 1 (previous 7 days: 0, +1)");
    expect(digest.text).toContain("left without merging 1");
  });

  it("/mq pause acme/ships deploy holds GitHub's queue: its merge group's gate stays queued until /mq unpause", async () => {
    const repo = SANDBOX_GITHUB_QUEUE_REPOSITORY;
    const { github } = sandbox.world;
    expect(await slash(`pause ${repo} deploy`)).toContain("paused the merge queue of");
    expect(await slash(`queue ${repo}#3`)).toContain("in GitHub's merge queue of");
    await until(async () => (await gateOf(3))?.status === "queued");
    // The page's "Merge the head": GitHub does not merge a group whose required gate has not passed.
    const refused = await post("/api/github-queue/merge");
    expect(refused.status).toBe(409);
    expect(refused.json.error).toContain("#3's merge group waits for yardmaster/gate: the queue is paused");
    expect(github.state.getIssue(repo, 3)?.pull?.merged).toBe(false);
    expect(github.mergeQueues.entries(repo, "main").map((e) => e.pull.number)).toEqual([3]);

    expect(await slash(`unpause ${repo}`)).toContain("unpaused the merge queue of");
    await until(async () => (await gateOf(3))?.status === "completed");
    expect((await post("/api/github-queue/merge")).json).toMatchObject({ number: 3 });
    expect(github.state.getIssue(repo, 3)?.pull?.merged).toBe(true);
  });

  it("merges the first open pull request past the queue as acme/ships' admin (an admin's bypass), from the page's control", async () => {
    const repo = SANDBOX_GITHUB_QUEUE_REPOSITORY;
    const { github } = sandbox.world;
    // #1 left the queue for its failed checks (above) and is still open.
    expect((await post("/api/github-queue/bypass")).json).toMatchObject({
      status: 200,
      number: 1,
      by: "sam",
    });
    expect(github.state.getIssue(repo, 1)?.pull?.merged).toBe(true);
    await github.settle();
    const closed = github.deliveries.find(
      (d) =>
        d.event === "pull_request" && d.action === "closed" && (d.payload as { number: number }).number === 1,
    );
    expect(closed?.payload).toMatchObject({
      sender: { login: "sam" },
      pull_request: { merged: true, merged_by: { login: "sam" } },
    });
    expect((await post("/api/github-queue/bypass")).status).toBe(409);
  });
});
