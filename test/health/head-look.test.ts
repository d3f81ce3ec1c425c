import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { GitHubQueueClient, githubBackend } from "../../src/backends/github/client.js";
import type { MergeQueues } from "../../src/core/merge-queue.js";
import { lookAtHead } from "../../src/health/head-look.js";
import { createLogger } from "../../src/logger.js";
import { Repo } from "../../src/repo.js";
import { TestOctokit } from "../helpers/github-app.js";

/**
 * What a stalled or slow-checks alert reads of the queue's head when it opens (src/health/head-look.ts),
 * through GitHub's merge queue backend with GitHub's GraphQL API mocked: the head, its merge group's
 * checks still pending, and nothing when the read fails.
 */
const GITHUB = "https://api.github.com";
const repo = Repo.of("acme", "ships");
const logger = createLogger({ level: "silent" });

function queues(): Pick<MergeQueues, "for"> {
  const octokit = new TestOctokit({ auth: "installation-token" });
  const client = new GitHubQueueClient(async () => (query, variables) => octokit.graphql(query, variables));
  const backend = githubBackend(client);
  return { for: async () => backend };
}

/** Answers GraphQL operations by name; records which were asked and their variables. */
function github(answers: Record<string, unknown>) {
  const calls: { operation: string; variables: Record<string, unknown> }[] = [];
  nock(GITHUB)
    .post("/graphql")
    .times(5)
    .reply((_uri, body) => {
      const { query, variables } = body as { query: string; variables: Record<string, unknown> };
      const operation = /(?:query|mutation) (\w+)/.exec(query)?.[1] ?? "";
      calls.push({ operation, variables });
      const answer = answers[operation];
      return answer === undefined ? [502, { message: "Bad Gateway" }] : [200, answer];
    });
  return calls;
}

const entry = (position: number, number: number) => ({
  position,
  state: position === 1 ? "AWAITING_CHECKS" : "QUEUED",
  enqueuedAt: "2026-11-23T11:50:00Z",
  estimatedTimeToMerge: 300,
  jump: false,
  enqueuer: { login: "alice" },
  pullRequest: {
    number,
    title: `PR ${number}`,
    url: `https://github.com/acme/ships/pull/${number}`,
    author: null,
  },
});

const queueAnswer = {
  data: {
    repository: {
      defaultBranchRef: { name: "main" },
      mergeQueue: {
        url: "https://github.com/acme/ships/queue/main",
        nextEntryEstimatedTimeToMerge: 300,
        configuration: null,
        entries: { totalCount: 2, nodes: [entry(2, 9), entry(1, 8)] },
      },
    },
  },
};

const checksAnswer = {
  data: {
    repository: {
      pullRequest: {
        mergeQueueEntry: {
          headCommit: {
            statusCheckRollup: {
              state: "PENDING",
              contexts: {
                nodes: [
                  {
                    __typename: "CheckRun",
                    name: "ci/test",
                    status: "IN_PROGRESS",
                    conclusion: null,
                    detailsUrl: "https://ci.example/1",
                  },
                  {
                    __typename: "CheckRun",
                    name: "lint",
                    status: "COMPLETED",
                    conclusion: "SUCCESS",
                    detailsUrl: null,
                  },
                  {
                    __typename: "StatusContext",
                    context: "deploy/preview",
                    state: "PENDING",
                    targetUrl: null,
                  },
                  { __typename: "StatusContext", context: "legacy", state: "SUCCESS", targetUrl: null },
                ],
              },
            },
          },
        },
      },
    },
  },
};

afterEach(() => {
  nock.cleanAll();
});

describe("what an alert reads of the queue's head", () => {
  it("names the head's checks still pending, from its merge group on GitHub's merge queue", async () => {
    const calls = github({ YardmasterMergeQueue: queueAnswer, YardmasterEntryChecks: checksAnswer });
    const look = await lookAtHead(queues(), { repo, branch: "main" }, logger);
    expect(look).toEqual({
      pull: 8,
      state: "checks-running",
      pending: [
        { name: "ci/test", url: "https://ci.example/1" },
        { name: "deploy/preview", url: null },
      ],
      pause: null,
    });
    expect(calls.map((c) => c.operation)).toEqual(["YardmasterMergeQueue", "YardmasterEntryChecks"]);
    expect(calls[1]?.variables).toMatchObject({ number: 8 });
  });

  it("reads nothing more when the queue cannot be read: the alert keeps the history's words", async () => {
    const calls = github({});
    expect(await lookAtHead(queues(), { repo, branch: "main" }, logger)).toBeNull();
    expect(calls.map((c) => c.operation)).toEqual(["YardmasterMergeQueue"]);
  });
});
