import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { GitHubStandIn } from "../../../../tools/stand-ins/github/index.js";
import { installationOctokit, startReceiver, startSeededStandIn, type TestOctokit } from "./helpers.js";

const repo = { owner: "acme", repo: "widgets" };

describe("GitHub stand-in: forwarding merge-queue commands", () => {
  let standIn: GitHubStandIn;
  let hook: Awaited<ReturnType<typeof startReceiver>>;
  let octokit: TestOctokit;
  let queued: number[];

  beforeAll(async () => {
    queued = [];
    // A fake merge-queue command hook: accepts `queue`, refuses anything else.
    hook = await startReceiver((req) => {
      const command = JSON.parse(req.body) as { body: string; pull_request: { number: number } };
      if (/^@mergifyio queue\b/i.test(command.body)) {
        queued.push(command.pull_request.number);
        return { status: 200, body: { accepted: true, message: "Queued in the default queue" } };
      }
      return { status: 200, body: { accepted: false, message: "Unknown command" } };
    });
    standIn = await startSeededStandIn({ mergeQueue: { url: `${hook.url}/`, token: "mq-token" } });
    octokit = await installationOctokit(standIn);
  });
  afterAll(async () => {
    await standIn.close();
    await hook.close();
  });
  afterEach(() => {
    hook.received.length = 0;
  });

  it("forwards an API comment before answering, and the merge queue replies as mergify[bot]", async () => {
    const { data, status } = await octokit.rest.issues.createComment({
      ...repo,
      issue_number: 1,
      body: "@mergifyio queue\n\nRequested by @alice from Slack",
    });
    expect(status).toBe(201);
    // The hook has already been called when the create request returns.
    expect(queued).toEqual([1]);
    const request = hook.received[0];
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/__sim/repos/acme/widgets/commands");
    expect(request?.headers.authorization).toBe("Bearer mq-token");
    expect(JSON.parse(request?.body ?? "{}")).toEqual({
      body: "@mergifyio queue\n\nRequested by @alice from Slack",
      comment_id: data.id,
      author: { id: standIn.state.appBot.id, login: "yardmaster[bot]" },
      pull_request: {
        number: 1,
        title: "Add sprockets",
        url: `${standIn.url}/acme/widgets/pull/1`,
        author: { id: 501, login: "alice" },
        base_ref: "main",
        head_sha: "a".repeat(40),
      },
    });
    const comments = standIn.state.comments("acme/widgets", 1);
    expect(comments.map((c) => [c.user.login, c.user.type, c.body])).toEqual([
      ["yardmaster[bot]", "Bot", "@mergifyio queue\n\nRequested by @alice from Slack"],
      ["mergify[bot]", "Bot", "Queued in the default queue"],
    ]);
    const listed = await octokit.rest.issues.listComments({ ...repo, issue_number: 1 });
    expect(listed.data.at(-1)?.user).toMatchObject({ login: "mergify[bot]", type: "Bot" });
    expect(standIn.forwards.at(-1)).toMatchObject({
      commentId: data.id,
      status: 200,
      accepted: true,
      error: null,
    });
  });

  it("forwards a delivered comment with its human author, case-insensitively", async () => {
    const receiver = await startReceiver();
    standIn.setWebhookUrl(receiver.url);
    try {
      const { commentId } = await standIn.deliverIssueComment({
        ...{ repository: "acme/widgets", number: 1 },
        body: "@MergifyIO requeue",
        author: "alice",
      });
      const command = JSON.parse(hook.received[0]?.body ?? "{}");
      expect(command).toMatchObject({ comment_id: commentId, author: { id: 501, login: "alice" } });
      expect(standIn.state.comments("acme/widgets", 1).at(-1)).toMatchObject({
        body: "Unknown command",
        user: { login: "mergify[bot]" },
      });
      // The command's webhook goes first, then the reply's (in the background).
      await standIn.settle();
      const events = receiver.received.map(
        (r) => JSON.parse(r.body) as { comment: { id: number; body: string } },
      );
      expect(events.map((e) => e.comment.body)).toEqual(["@MergifyIO requeue", "Unknown command"]);
    } finally {
      await standIn.settle();
      await receiver.close();
    }
  });

  it("ignores comments that do not address the merge queue on their first line, or are not on a pull request", async () => {
    for (const body of [
      "please @mergifyio queue",
      "> @mergifyio queue",
      "thanks\n@mergifyio queue",
      "@mergifyiox queue",
    ]) {
      await octokit.rest.issues.createComment({ ...repo, issue_number: 1, body });
    }
    await octokit.rest.issues.createComment({ ...repo, issue_number: 2, body: "@mergifyio queue" });
    expect(hook.received).toHaveLength(0);
    expect(standIn.state.comments("acme/widgets", 2).map((c) => c.user.login)).toEqual(["yardmaster[bot]"]);
  });

  it("still creates the comment when the merge queue is down, and records the failure", async () => {
    const down = await startSeededStandIn({ mergeQueue: { url: "http://127.0.0.1:9", token: "t" } });
    try {
      const client = await installationOctokit(down);
      const { status, data } = await client.rest.issues.createComment({
        ...repo,
        issue_number: 1,
        body: "@mergifyio queue",
      });
      expect(status).toBe(201);
      expect(down.state.comments("acme/widgets", 1).map((c) => c.body)).toEqual(["@mergifyio queue"]);
      expect(down.forwards).toEqual([
        expect.objectContaining({
          commentId: data.id,
          status: null,
          accepted: null,
          error: expect.any(String),
        }),
      ]);
    } finally {
      await down.close();
    }
  });

  it("uses a custom prefix", async () => {
    const custom = await startSeededStandIn({
      mergeQueue: { url: hook.url, token: "mq-token", prefix: "@mq" },
    });
    try {
      const client = await installationOctokit(custom);
      await client.rest.issues.createComment({ ...repo, issue_number: 1, body: "@mergifyio queue" });
      expect(hook.received).toHaveLength(0);
      await client.rest.issues.createComment({ ...repo, issue_number: 1, body: "@MQ queue" });
      expect(hook.received).toHaveLength(1);
    } finally {
      await custom.close();
    }
  });
});
