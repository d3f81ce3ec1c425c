import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Actor } from "../../src/commands/command.js";
import type { GitHubGateway, PullRequestInfo } from "../../src/commands/ports.js";
import { execute } from "../../src/commands/run.js";
import { storedSteps } from "../../src/github/command-steps.js";
import { createLogger } from "../../src/logger.js";
import { Repo } from "../../src/repo.js";
import { openStore, type Store } from "../../src/store/index.js";
import { makeClient, mergifyQueues, ORIGIN, pullRequestDetails } from "../backends/mergify/fixtures.js";

const repo = Repo.of("acme", "widgets");
const PATH = "/v1/repos/acme/widgets";
const alice: Actor = { surface: "github", githubLogin: "alice", display: "alice" };
const log = createLogger({ level: "silent" });
const pull: PullRequestInfo = {
  number: 42,
  title: "Add widgets",
  url: "https://github.com/acme/widgets/pull/42",
  state: "open",
  merged: false,
  baseRef: "main",
  headSha: "abc",
  author: { login: "alice", id: 1 },
};

let store: Store;
beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
});
afterEach(async () => {
  await store.close();
  nock.cleanAll();
});

function gateway() {
  const comments: string[] = [];
  const github: GitHubGateway = {
    permission: async () => "write",
    pullRequest: async () => pull,
    comment: async (_repo, _n, body) => {
      comments.push(body);
      return {
        id: comments.length,
        url: `https://github.com/acme/widgets/pull/42#issuecomment-${comments.length}`,
      };
    },
  };
  return { github, comments };
}

/** One run of `queue` for the delivery `runId`, with its steps in the store, as a comment job runs it. */
const run = (runId: string, github: GitHubGateway) =>
  execute({ name: "queue", repo, pull: 42 }, alice, {
    queues: mergifyQueues(makeClient({ retry: { retries: 0 }, timeoutMs: 1_000 })),
    github,
    commandPrefix: "@mergifyio",
    relayFollow: { store, seconds: 600 },
    steps: storedSteps(store, runId, log),
  });

describe("a relayed command's steps", () => {
  it("relays once across two runs of one command, the second following the first's relay", async () => {
    const { github, comments } = gateway();
    nock(ORIGIN).get(`${PATH}/merge-queue/pull/42`).times(2).reply(200, pullRequestDetails(42));
    const first = await run("delivery-1", github);
    // A second run of the same delivery (a replica taking it over) posts nothing, and says the same.
    const again = await run("delivery-1", github);
    expect(comments).toHaveLength(1);
    expect(again).toMatchObject({
      relayed: "queue",
      relayCommentUrl: "https://github.com/acme/widgets/pull/42#issuecomment-1",
      relayId: (first as { relayId: string }).relayId,
    });
    const followed = await store.getRelay((first as { relayId: string }).relayId);
    expect(followed?.relay).toMatchObject({
      relayCommentUrl: "https://github.com/acme/widgets/pull/42#issuecomment-1",
    });
  });

  it("relays again for another delivery, and after a first run whose comment failed", async () => {
    const { github, comments } = gateway();
    nock(ORIGIN).get(`${PATH}/merge-queue/pull/42`).times(2).reply(200, pullRequestDetails(42));
    const failing: GitHubGateway = {
      ...github,
      comment: async () => {
        throw new Error("GitHub is down");
      },
    };
    await expect(run("delivery-2", failing)).rejects.toThrow();
    await run("delivery-2", github);
    await run("delivery-3", github);
    expect(comments).toHaveLength(2);
  });
});
