import nock from "nock";
import { describe, expect, it } from "vitest";
import { mergeQueues, type QueueProvider } from "../../../src/backends/choose.js";
import { GitHubQueueClient } from "../../../src/backends/github/client.js";
import type { CommandResult } from "../../../src/commands/catalog.js";
import type { Actor } from "../../../src/commands/command.js";
import { describeFailure, describeResult } from "../../../src/commands/describe.js";
import { CommandErrorCode } from "../../../src/commands/errors.js";
import type { GitHubGateway, PullRequestInfo } from "../../../src/commands/ports.js";
import { execute } from "../../../src/commands/run.js";
import { Repo } from "../../../src/repo.js";
import type { Description, Part } from "../../../src/wording/description.js";
import { markdownFormat } from "../../../src/wording/markdown.js";
import { failure } from "../../helpers/command-error.js";
import { TestOctokit } from "../../helpers/github-app.js";
import { makeClient, ORIGIN, pullRequestDetails } from "../mergify/fixtures.js";

const GITHUB = "https://api.github.com";
const repo = Repo.of("acme", "ships");
const now = new Date("2026-11-23T12:00:00Z");
const alice: Actor = { surface: "github", githubLogin: "alice", display: "alice" };
const pull: PullRequestInfo = {
  number: 7,
  title: "Faster <hulls>",
  url: "https://github.com/acme/ships/pull/7",
  state: "open",
  merged: false,
  baseRef: "main",
  headSha: "f00d",
  author: { login: "alice", id: 1 },
};
const entry = (position: number, number: number, extra: Record<string, unknown> = {}) => ({
  position,
  state: "AWAITING_CHECKS",
  enqueuedAt: "2026-11-23T11:50:00Z",
  estimatedTimeToMerge: 300 * position,
  jump: false,
  enqueuer: { login: "yardmaster[bot]" },
  pullRequest: {
    number,
    title: `PR ${number}`,
    url: `https://github.com/acme/ships/pull/${number}`,
    author: { login: "alice" },
  },
  ...extra,
});

/** Answers GraphQL operations by name, and records each request's variables. */
function github(answers: Record<string, unknown>) {
  const calls: { operation: string; variables: Record<string, unknown> }[] = [];
  nock(GITHUB)
    .post("/graphql")
    .times(20)
    .reply((_uri, body) => {
      const { query, variables } = body as { query: string; variables: Record<string, unknown> };
      const operation = /(?:query|mutation) (\w+)/.exec(query)?.[1] ?? "";
      calls.push({ operation, variables });
      const answer = answers[operation];
      if (answer === undefined)
        return [200, { data: null, errors: [{ message: `unexpected ${operation}` }] }];
      return [200, answer];
    });
  return calls;
}

function ports(provider: QueueProvider) {
  const comments: string[] = [];
  const reads: number[] = [];
  const gateway: GitHubGateway = {
    permission: async () => "write",
    pullRequest: async (_repo, number) => {
      reads.push(number);
      return pull;
    },
    comment: async (_repo, _n, body) => {
      comments.push(body);
      return { id: 1, url: "https://github.com/acme/ships/pull/7#c1" };
    },
  };
  const octokit = new TestOctokit({ auth: "installation-token" });
  const client = new GitHubQueueClient(async () => (query, variables) => octokit.graphql(query, variables));
  return {
    comments,
    reads,
    ports: {
      github: gateway,
      commandPrefix: "@mergifyio",
      queues: mergeQueues(provider, {
        mergify: makeClient({ retry: { retries: 0 }, timeoutMs: 200 }),
        github: client,
      }),
    },
  };
}

const f = markdownFormat("yardmaster");
function words(description: Description): string[] {
  const part = (p: Part): string[] => {
    if (p.kind === "sentence") return [p.text(f)];
    if (p.kind === "note") return p.texts.map((t) => t(f));
    if (p.kind === "fields") return p.fields.map(([label, value]) => `${label}: ${value(f)}`);
    if (p.kind === "list") return [p.heading?.(f) ?? "", ...p.items.map((i) => i(f))];
    if (p.kind === "buttons") return p.buttons.map((b) => `[${b.label}]`);
    if (p.kind === "title") return [p.text];
    return [];
  };
  return description.parts.flatMap(part);
}
const said = (result: CommandResult, surface: "github" | "slack" = "github") =>
  words(describeResult(result, { surface, now, githubWebUrl: "https://github.com" }));

const pullAnswer = (queued: unknown) => ({
  data: {
    repository: {
      pullRequest: { id: "PR_7", baseRefName: "main", headRefOid: "f00d", mergeQueueEntry: queued },
    },
  },
});

describe("commands on GitHub's merge queue", () => {
  it("queues with enqueuePullRequest (jump, at the head that was read) and says the place and ETA", async () => {
    const calls = github({
      YardmasterPullRequestEntry: pullAnswer(null),
      YardmasterEnqueue: { data: { enqueuePullRequest: { mergeQueueEntry: entry(1, 7, { jump: true }) } } },
    });
    const { ports: p, comments } = ports("github");
    const result = await execute({ name: "queue", repo, pull: 7, jump: true }, alice, p);
    expect(calls.map((c) => c.operation)).toEqual(["YardmasterPullRequestEntry", "YardmasterEnqueue"]);
    expect(calls[1]?.variables).toEqual({ pullRequestId: "PR_7", jump: true, expectedHeadOid: "f00d" });
    expect(comments).toEqual([]);
    expect(said(result)[0]).toBe(
      "✅ #7 is at position 1 in GitHub's merge queue of `main`, ETA in 5 min (jumped to the front).",
    );
  });

  it("refuses a queue name and pause, saying why, and calls nothing", async () => {
    const calls = github({});
    const { ports: p } = ports("github");
    const named = await failure(execute({ name: "queue", repo, pull: 7, queueName: "urgent" }, alice, p));
    expect(named.code).toBe(CommandErrorCode.NotOnThisQueue);
    const paused = await failure(execute({ name: "pause", repo, reason: "release" }, alice, p));
    expect(paused.isRefusal).toBe(true);
    const refusal = words(describeFailure(paused, "github"))[0];
    expect(refusal).toContain(
      "`pause` does not work on `acme/ships`: it uses GitHub's merge queue, which has no pause",
    );
    expect(refusal).toContain("have an admin turn the merge queue off in the branch's ruleset");
    const listed = await failure(execute({ name: "branches", repo }, alice, p));
    expect(listed.isRefusal).toBe(true);
    expect(words(describeFailure(listed, "slack"))[0]).toContain(
      "`branches` does not work on `acme/ships`: it uses GitHub's merge queue, whose queues are set per branch in its rulesets",
    );
    expect(calls).toEqual([]);
  });

  it("dequeues with dequeuePullRequest and offers to requeue; a pull request not queued is said so", async () => {
    const calls = github({
      YardmasterPullRequestEntry: pullAnswer(entry(2, 7)),
      YardmasterDequeue: { data: { dequeuePullRequest: { mergeQueueEntry: { position: 2 } } } },
    });
    const { ports: p } = ports("github");
    const result = await execute({ name: "dequeue", repo, pull: 7 }, alice, p);
    expect(calls[1]).toEqual({ operation: "YardmasterDequeue", variables: { id: "PR_7" } });
    expect(said(result, "slack")).toContain("[Requeue #7]");
    expect(said(result)[0]).toBe(
      "✅ [\\#7](https://github.com/acme/ships/pull/7) Faster &lt;hulls&gt; is not in GitHub's merge queue of `main` any more.",
    );
    nock.cleanAll();
    github({ YardmasterPullRequestEntry: pullAnswer(null) });
    expect((await failure(execute({ name: "dequeue", repo, pull: 7 }, alice, p))).code).toBe(
      CommandErrorCode.NotInQueue,
    );
  });

  it("shows status with positions, states, enqueuers, estimates and the configuration", async () => {
    github({
      YardmasterMergeQueue: {
        data: {
          repository: {
            defaultBranchRef: { name: "main" },
            mergeQueue: {
              url: "https://github.com/acme/ships/queue/main",
              nextEntryEstimatedTimeToMerge: 300,
              configuration: {
                mergeMethod: "SQUASH",
                mergingStrategy: "ALLGREEN",
                minimumEntriesToMerge: 1,
                maximumEntriesToMerge: 5,
                maximumEntriesToBuild: 5,
                checkResponseTimeout: 3600,
              },
              entries: { totalCount: 2, nodes: [entry(2, 8, { state: "QUEUED" }), entry(1, 7)] },
            },
          },
        },
      },
    });
    const { ports: p } = ports("github");
    const lines = said(await execute({ name: "status", repo }, alice, p));
    expect(lines).toContain("**Queued** (2)");
    expect(lines.indexOf(lines.find((l) => l.startsWith("1. ")) ?? "")).toBeLessThan(
      lines.indexOf(lines.find((l) => l.startsWith("2. ")) ?? ""),
    );
    expect(lines).toContain(
      "1. [\\#7](https://github.com/acme/ships/pull/7) PR 7 — awaiting checks, enqueued 2026-11-23 11:50 UTC by yardmaster\\[bot\\], ETA in 5 min",
    );
    expect(lines).toContain(
      "Configuration: merges by squash, strategy `ALLGREEN`, builds up to 5, merges 1 to 5 at once, checks time out after 60 min.",
    );
  });

  it("shows one pull request's entry for pr", async () => {
    github({ YardmasterPullRequestEntry: pullAnswer(entry(3, 7)) });
    const { ports: p } = ports("github");
    const lines = said(await execute({ name: "pr", repo, pull: 7 }, alice, p), "slack");
    expect(lines[0]).toBe(
      "📍 [\\#7](https://github.com/acme/ships/pull/7) of `acme/ships` is at position 3 in GitHub's merge queue of `main`, ETA in 15 min.",
    );
    expect(lines).toContain("State: awaiting checks");
  });

  it("help names --jump in queue's and requeue's usage, and says it is GitHub's merge queue's only", () => {
    const help = said({ name: "help", surface: "github" }).join("\n");
    expect(help).toContain("`@yardmaster queue [queue-name] [--jump]`");
    expect(help).toContain("`@yardmaster requeue [queue-name] [--jump]`");
    expect(help).toContain(
      "(--jump: at the head; for GitHub's merge queue only, refused where the repository's is Mergify)",
    );
    const slack = said({ name: "help", surface: "slack" }).join("\n");
    expect(slack).toContain("queue <pr> [queue-name] [--jump]");
  });

  it("auto: GitHub's queue where the branch has one (asked once a minute), Mergify elsewhere", async () => {
    const calls = github({
      YardmasterHasMergeQueue: { data: { repository: { mergeQueue: null } } },
    });
    const { ports: p, comments, reads } = ports("auto");
    nock(ORIGIN).get("/v1/repos/acme/ships/merge-queue/pull/7").times(2).reply(200, pullRequestDetails(7));
    await execute({ name: "queue", repo, pull: 7 }, alice, p);
    await execute({ name: "queue", repo, pull: 7 }, alice, p);
    expect(comments.map((c) => c.split("\n")[0])).toEqual(["@mergifyio queue", "@mergifyio queue"]);
    // The pull request is read once per command, though its base branch chose the queue first.
    expect(reads).toEqual([7, 7]);
    expect(calls).toEqual([
      { operation: "YardmasterHasMergeQueue", variables: { owner: "acme", name: "ships", branch: "main" } },
    ]);
    const jump = await failure(execute({ name: "queue", repo, pull: 7, jump: true }, alice, p));
    expect(words(describeFailure(jump, "github"))[0]).toContain(
      "\\-\\-jump is for GitHub's merge queue; this repository's is Mergify",
    );
  });

  it("auto: a GitHub without merge queues (GHES before 3.8) keeps Mergify; a failed read fails the command", async () => {
    github({
      YardmasterHasMergeQueue: {
        data: null,
        errors: [{ message: "Field 'mergeQueue' doesn't exist on type 'Repository'" }],
      },
    });
    const { ports: p, comments } = ports("auto");
    nock(ORIGIN).get("/v1/repos/acme/ships/merge-queue/pull/7").reply(200, pullRequestDetails(7));
    await execute({ name: "queue", repo, pull: 7 }, alice, p);
    expect(comments.map((c) => c.split("\n")[0])).toEqual(["@mergifyio queue"]);
    nock.cleanAll();
    github({ YardmasterHasMergeQueue: { data: null, errors: [{ message: "Something went wrong" }] } });
    const { ports: other } = ports("auto");
    const error = await failure(execute({ name: "status", repo, branch: "main" }, alice, other));
    expect(error).toMatchObject({
      code: CommandErrorCode.GitHubFailed,
      details: { detail: "Something went wrong" },
    });
  });

  it("says what GitHub answered when a mutation fails", async () => {
    github({
      YardmasterPullRequestEntry: pullAnswer(null),
      YardmasterEnqueue: { data: null, errors: [{ message: "Pull request is not mergeable" }] },
    });
    const { ports: p } = ports("github");
    const error = await failure(execute({ name: "queue", repo, pull: 7 }, alice, p));
    expect(error.code).toBe(CommandErrorCode.GitHubFailed);
    expect(error.details.detail).toBe("Pull request is not mergeable");
  });
});
