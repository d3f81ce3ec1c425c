import nock from "nock";
import { describe, expect, it } from "vitest";
import { GitHubQueueClient } from "../../../src/backends/github/client.js";
import { CommandError } from "../../../src/commands/errors.js";
import { createMetrics } from "../../../src/metrics.js";
import { Repo } from "../../../src/repo.js";
import { TestOctokit } from "../../helpers/github-app.js";

const GITHUB = "https://api.github.com";
const repo = Repo.of("acme", "ships");

function client() {
  const metrics = createMetrics();
  const octokit = new TestOctokit({ auth: "installation-token" });
  let at = 0;
  const queue = new GitHubQueueClient(async () => (query, variables) => octokit.graphql(query, variables), {
    metrics,
    // Each call takes 15 ms.
    clock: () => {
      at += 15;
      return at;
    },
  });
  return { queue, metrics };
}

describe("the metrics of GitHub's merge queue calls", () => {
  it("counts and times each GraphQL call by operation and outcome", async () => {
    const { queue, metrics } = client();
    nock(GITHUB)
      .post("/graphql")
      .reply(200, { data: { repository: { defaultBranchRef: { name: "main" }, mergeQueue: { id: "MQ" } } } })
      .post("/graphql")
      .reply(200, {
        data: null,
        errors: [{ type: "NOT_FOUND", message: "Could not resolve to a Repository" }],
      })
      .post("/graphql")
      .reply(502, { message: "Bad Gateway" })
      .post("/graphql")
      .reply(200, { data: { repository: { mergeQueue: "not a queue" } } });
    expect(await queue.hasQueue(repo, null)).toBe(true);
    await expect(queue.status(repo)).rejects.toBeInstanceOf(CommandError);
    await expect(queue.entry(repo, 7)).rejects.toBeInstanceOf(CommandError);
    await expect(queue.hasQueue(repo, "main")).rejects.toBeInstanceOf(CommandError);
    const text = await metrics.registry.metrics();
    expect(text).toContain("# TYPE yardmaster_github_merge_queue_requests_total counter");
    expect(text).toContain(
      'yardmaster_github_merge_queue_requests_total{operation="hasQueue",outcome="ok"} 1\n',
    );
    expect(text).toContain(
      'yardmaster_github_merge_queue_requests_total{operation="mergeQueue",outcome="not_found"} 1\n',
    );
    expect(text).toContain(
      'yardmaster_github_merge_queue_requests_total{operation="mergeQueueEntry",outcome="http_502"} 1\n',
    );
    expect(text).toContain(
      'yardmaster_github_merge_queue_requests_total{operation="hasQueue",outcome="unreadable"} 1\n',
    );
    expect(text).toContain("# TYPE yardmaster_github_merge_queue_request_duration_seconds histogram");
    expect(text).toContain(
      'yardmaster_github_merge_queue_request_duration_seconds_bucket{le="0.05",operation="hasQueue",outcome="ok"} 1\n',
    );
    expect(text).toContain(
      'yardmaster_github_merge_queue_request_duration_seconds_sum{operation="hasQueue",outcome="ok"} 0.015\n',
    );
  });

  it("counts the mutations by their names, and a repository without an installation client", async () => {
    const { queue, metrics } = client();
    nock(GITHUB)
      .post("/graphql")
      .reply(200, {
        data: {
          repository: {
            pullRequest: { id: "PR_7", baseRefName: "main", headRefOid: "f00d", mergeQueueEntry: null },
          },
        },
      })
      .post("/graphql")
      .reply(200, { data: { enqueuePullRequest: { mergeQueueEntry: null } } });
    await queue.enqueue(repo, { number: 7, headSha: "f00d" }, { jump: false });
    const failing = new GitHubQueueClient(
      async () => {
        throw new Error("the GitHub App is not installed on acme/ships");
      },
      { metrics },
    );
    await expect(failing.dequeue(repo, 7)).rejects.toBeInstanceOf(CommandError);
    const text = await metrics.registry.metrics();
    expect(text).toContain(
      'yardmaster_github_merge_queue_requests_total{operation="mergeQueueEntry",outcome="ok"} 1\n',
    );
    expect(text).toContain(
      'yardmaster_github_merge_queue_requests_total{operation="enqueuePullRequest",outcome="ok"} 1\n',
    );
    expect(text).toContain(
      'yardmaster_github_merge_queue_requests_total{operation="mergeQueueEntry",outcome="installation"} 1\n',
    );
    // Nothing was sent: no duration.
    expect(text).not.toContain('duration_seconds_count{operation="mergeQueueEntry",outcome="installation"}');
  });
});
