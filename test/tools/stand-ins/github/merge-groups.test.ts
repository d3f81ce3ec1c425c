import { afterEach, describe, expect, it } from "vitest";
import type { GitHubStandIn, GitHubStandInOptions } from "../../../../tools/stand-ins/github/index.js";
import type {
  MergeGroupChecksRequested,
  MergeGroupDestroyed,
} from "../../../../tools/stand-ins/github/merge-groups.js";
import { call, installationOctokit, startReceiver, startSeededStandIn } from "./helpers.js";

/** GitHub's merge groups on the stand-in's own merge queue: `merge_group` webhooks, check runs, removals. */

const REPO = "acme/widgets";
let open: { standIn: GitHubStandIn; receiver: Awaited<ReturnType<typeof startReceiver>> } | undefined;
afterEach(async () => {
  await open?.standIn.close();
  await open?.receiver.close();
  open = undefined;
});

async function setup(options: Partial<GitHubStandInOptions> = {}, requiredChecks?: string[]) {
  const receiver = await startReceiver();
  const standIn = await startSeededStandIn({ webhookUrl: `${receiver.url}/api/github/webhooks`, ...options });
  for (const number of [3, 4]) {
    standIn.state.addPullRequest({ repository: REPO, number, title: `Part ${number}`, author: "alice" });
  }
  standIn.mergeQueues.enable(REPO, "main", requiredChecks ? { requiredChecks } : {});
  open = { standIn, receiver };
  const alice = standIn.state.getUser("alice")!;
  const enqueue = (...numbers: number[]) => {
    for (const n of numbers) {
      standIn.mergeQueues.enqueue(standIn.state.getIssue(REPO, n)!, alice, {
        jump: false,
        expectedHeadOid: null,
      });
    }
  };
  return { standIn, receiver, enqueue };
}

/** What the tests read of the webhooks (each event has only its own part). */
interface Payload {
  action: string;
  number?: number;
  reason?: string;
  sender: { login: string };
  merge_group: { head_ref: string; head_sha: string; base_sha: string };
  check_run: { id: number; name: string; conclusion: string | null; check_suite: { head_branch: string } };
}

interface Received {
  event: string;
  body: Payload;
}

/** The webhooks received so far (after the background ones went out), from `from` on. */
async function received(from = 0): Promise<Received[]> {
  await open!.standIn.settle();
  return open!.receiver.received.slice(from).map((r) => ({
    event: String(r.headers["x-github-event"]),
    body: JSON.parse(r.body) as Payload,
  }));
}

/** One line per webhook: `event.action` and what tells them apart. */
function brief(list: Received[]): string[] {
  return list.map(({ event, body }) => {
    if (event === "merge_group") {
      const pr = /pr-(\d+)-/.exec(body.merge_group.head_ref)?.[1];
      return `merge_group.${body.action} #${pr}${body.reason ? ` ${body.reason}` : ""}`;
    }
    if (event === "check_run") {
      const pr = /pr-(\d+)-/.exec(body.check_run.check_suite.head_branch)?.[1];
      return `check_run.${body.action} ${body.check_run.name} #${pr}${body.check_run.conclusion ? ` ${body.check_run.conclusion}` : ""}`;
    }
    return `${event}.${body.action} #${body.number}${body.reason ? ` ${body.reason}` : ""}`;
  });
}

const groupOf = (standIn: GitHubStandIn, n: number) =>
  standIn.mergeQueues.entryOf(standIn.state.getIssue(REPO, n)!)!.entry.group;

describe("GitHub stand-in: merge groups of GitHub's merge queue", () => {
  it("makes a merge group per entry, each on the one ahead, with checks_requested as GitHub sends it", async () => {
    const { standIn, enqueue } = await setup();
    enqueue(1, 3);
    const list = await received();
    expect(brief(list)).toEqual([
      "pull_request.enqueued #1",
      "merge_group.checks_requested #1",
      "check_run.created ci #1",
      "pull_request.enqueued #3",
      "merge_group.checks_requested #3",
      "check_run.created ci #3",
    ]);
    const first = list[1]!.body as unknown as MergeGroupChecksRequested;
    const second = list[4]!.body as unknown as MergeGroupChecksRequested;
    const installationId = standIn.installationId(REPO);
    expect(first).toEqual({
      action: "checks_requested",
      merge_group: {
        head_sha: expect.stringMatching(/^[0-9a-f]{40}$/),
        head_ref: `refs/heads/gh-readonly-queue/main/pr-1-${"a".repeat(40)}`,
        base_sha: expect.stringMatching(/^[0-9a-f]{40}$/),
        base_ref: "refs/heads/main",
        head_commit: {
          id: first.merge_group.head_sha,
          tree_id: expect.stringMatching(/^[0-9a-f]{40}$/),
          message: expect.stringContaining("Merge pull request #1"),
          timestamp: expect.stringMatching(/Z$/),
          author: { name: "github-merge-queue[bot]", email: expect.stringContaining("@") },
          committer: { name: "GitHub", email: "noreply@github.com" },
        },
      },
      repository: expect.objectContaining({ full_name: REPO }),
      organization: expect.objectContaining({ login: "acme" }),
      installation: { id: installationId, node_id: expect.any(String) },
      sender: expect.objectContaining({ login: "github-merge-queue[bot]", type: "Bot", id: 118_344_674 }),
    });
    expect(second.merge_group.base_sha).toBe(first.merge_group.head_sha);
    expect(second.merge_group.head_sha).not.toBe(first.merge_group.head_sha);
    expect(groupOf(standIn, 3).headSha).toBe(second.merge_group.head_sha);
    const run = list[2]!.body.check_run;
    expect(run).toMatchObject({
      name: "ci",
      head_sha: first.merge_group.head_sha,
      status: "in_progress",
      conclusion: null,
      html_url: `${standIn.url}/${REPO}/runs/${run.id}`,
      app: { slug: "github-actions" },
      pull_requests: [],
      check_suite: {
        head_branch: `gh-readonly-queue/main/pr-1-${"a".repeat(40)}`,
        head_sha: first.merge_group.head_sha,
      },
    });
  });

  it("failing checks remove the pull request (CI_FAILURE) and make the groups behind anew", async () => {
    const { standIn, enqueue } = await setup({}, ["ci", "lint"]);
    enqueue(1, 3, 4);
    const before = (await received()).length;
    const old3 = groupOf(standIn, 3).headSha;
    const outcome = standIn.mergeQueues.completeChecks(REPO, 1, { ci: "success", lint: "failure" });
    expect(outcome).toEqual({ removed: true, reason: "CI_FAILURE", passed: false });
    const list = await received(before);
    expect(brief(list)).toEqual([
      "check_run.completed ci #1 success",
      "check_run.completed lint #1 failure",
      "pull_request.dequeued #1 CI_FAILURE",
      "merge_group.destroyed #1 dequeued",
      "merge_group.destroyed #3 invalidated",
      "merge_group.destroyed #4 invalidated",
      "merge_group.checks_requested #3",
      "check_run.created ci #3",
      "check_run.created lint #3",
      "merge_group.checks_requested #4",
      "check_run.created ci #4",
      "check_run.created lint #4",
    ]);
    expect(list[2]!.body.sender.login).toBe("github-merge-queue[bot]");
    const destroyed = list[4]!.body as unknown as MergeGroupDestroyed;
    expect(destroyed).toMatchObject({ action: "destroyed", reason: "invalidated" });
    expect(destroyed.merge_group.head_sha).toBe(old3);
    const new3 = list[6]!.body as unknown as MergeGroupChecksRequested;
    expect(new3.merge_group.head_sha).not.toBe(old3);
    // #3 is now at the head: its group sits on the branch itself, #4's on #3's.
    const baseSha = (list[3]!.body as unknown as MergeGroupDestroyed).merge_group.base_sha;
    expect(new3.merge_group.base_sha).toBe(baseSha);
    expect((list[9]!.body as unknown as MergeGroupChecksRequested).merge_group.base_sha).toBe(
      new3.merge_group.head_sha,
    );
    expect(standIn.mergeQueues.entries(REPO, "main").map((e) => e.pull.number)).toEqual([3, 4]);
  });

  it("a time-out removes with CI_TIMEOUT; a manual removal destroys the group and invalidates the ones behind", async () => {
    const { standIn, enqueue } = await setup();
    enqueue(1, 3, 4);
    let before = (await received()).length;
    expect(standIn.mergeQueues.completeChecks(REPO, 3, { ci: "timed_out" })).toMatchObject({
      reason: "CI_TIMEOUT",
    });
    expect(brief(await received(before))).toEqual([
      "check_run.completed ci #3 timed_out",
      "pull_request.dequeued #3 CI_TIMEOUT",
      "merge_group.destroyed #3 dequeued",
      "merge_group.destroyed #4 invalidated",
      "merge_group.checks_requested #4",
      "check_run.created ci #4",
    ]);
    before = (await received()).length;
    standIn.mergeQueues.remove(standIn.state.getIssue(REPO, 1)!, "MANUAL");
    expect(brief(await received(before))).toEqual([
      "pull_request.dequeued #1 MANUAL",
      "merge_group.destroyed #1 dequeued",
      "merge_group.destroyed #4 invalidated",
      "merge_group.checks_requested #4",
      "check_run.created ci #4",
    ]);
    expect(() => standIn.mergeQueues.completeChecks(REPO, 4, { build: "success" })).toThrow(
      /not a required check/,
    );
    expect(() => standIn.mergeQueues.completeChecks(REPO, 1, { ci: "success" })).toThrow(
      /not in a merge queue/,
    );
  });

  it("passing checks make the entry mergeable; merging destroys its group (merged) before dequeued MERGE and closed", async () => {
    const { standIn, enqueue } = await setup();
    enqueue(1, 3);
    const group3 = groupOf(standIn, 3).headSha;
    const before = (await received()).length;
    expect(standIn.mergeQueues.completeChecks(REPO, 1, { ci: "success" })).toEqual({
      removed: false,
      reason: null,
      passed: true,
    });
    expect(standIn.mergeQueues.entries(REPO, "main")[0]?.state).toBe("MERGEABLE");
    standIn.mergeQueues.merge(REPO, "main");
    expect(brief(await received(before))).toEqual([
      "check_run.completed ci #1 success",
      "merge_group.destroyed #1 merged",
      "pull_request.dequeued #1 MERGE",
      "pull_request.closed #1",
    ]);
    // #3's group was made on #1's, which is now the branch's head: it stays.
    expect(groupOf(standIn, 3).headSha).toBe(group3);
    expect(groupOf(standIn, 3).destroyed).toBeNull();
  });

  it("jumping to the head invalidates every group behind", async () => {
    const { standIn } = await setup();
    const alice = standIn.state.getUser("alice")!;
    standIn.mergeQueues.enqueue(standIn.state.getIssue(REPO, 1)!, alice, {
      jump: false,
      expectedHeadOid: null,
    });
    const before = (await received()).length;
    standIn.mergeQueues.enqueue(standIn.state.getIssue(REPO, 3)!, alice, {
      jump: true,
      expectedHeadOid: null,
    });
    expect(brief(await received(before))).toEqual([
      "pull_request.enqueued #3",
      "merge_group.destroyed #1 invalidated",
      "merge_group.checks_requested #3",
      "check_run.created ci #3",
      "merge_group.checks_requested #1",
      "check_run.created ci #1",
    ]);
  });

  it("lists a merge group commit's check runs over REST (empty for other commits)", async () => {
    const { standIn, enqueue } = await setup({}, ["ci", "lint"]);
    enqueue(1);
    standIn.mergeQueues.completeChecks(REPO, 1, { lint: "success" });
    const sha = standIn.mergeQueues.groups(REPO)[0]!.headSha;
    const octokit = await installationOctokit(standIn);
    const { data } = await octokit.request("GET /repos/{owner}/{repo}/commits/{ref}/check-runs", {
      owner: "acme",
      repo: "widgets",
      ref: sha,
    });
    expect(data.total_count).toBe(2);
    const [ci, lint] = data.check_runs;
    expect(ci).toMatchObject({
      name: "ci",
      head_sha: sha,
      status: "in_progress",
      conclusion: null,
      html_url: `${standIn.url}/${REPO}/runs/${ci?.id}`,
      details_url: expect.stringContaining(standIn.url),
      completed_at: null,
      app: { slug: "github-actions" },
    });
    expect(lint).toMatchObject({ name: "lint", status: "completed", conclusion: "success" });
    expect(lint?.completed_at).toEqual(expect.stringMatching(/Z$/));
    const other = await octokit.request("GET /repos/{owner}/{repo}/commits/{ref}/check-runs", {
      owner: "acme",
      repo: "widgets",
      ref: "b".repeat(40),
    });
    expect(other.data).toEqual({ total_count: 0, check_runs: [] });
    const anonymous = await call(`${standIn.apiUrl}/repos/acme/widgets/commits/${sha}/check-runs`);
    expect(anonymous.status).toBe(401);
  });

  it("refuses the check runs to an installation without checks, and sends it no merge_group", async () => {
    const { standIn, enqueue } = await setup({ installationEvents: ["issue_comment", "pull_request"] });
    enqueue(1);
    expect(brief(await received())).toEqual(["pull_request.enqueued #1"]);
    const sha = standIn.mergeQueues.groups(REPO)[0]!.headSha;
    const octokit = await installationOctokit(standIn);
    await expect(
      octokit.request("GET /repos/{owner}/{repo}/commits/{ref}/check-runs", {
        owner: "acme",
        repo: "widgets",
        ref: sha,
      }),
    ).rejects.toMatchObject({
      status: 403,
      message: expect.stringContaining("Resource not accessible by integration"),
    });
  });
});
