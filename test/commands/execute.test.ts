import nock from "nock";
import { describe, expect, it } from "vitest";
import type { Actor } from "../../src/commands/command.js";
import { CommandErrorCode } from "../../src/commands/errors.js";
import type { GitHubGateway, PullRequestInfo } from "../../src/commands/ports.js";
import { execute } from "../../src/commands/run.js";
import { Repo } from "../../src/repo.js";
import {
  makeClient,
  mergifyQueues,
  ORIGIN,
  pauseState,
  pullRequestDetails,
} from "../backends/mergify/fixtures.js";
import { failure } from "../helpers/command-error.js";

const repo = Repo.of("acme", "widgets");
const PATH = "/v1/repos/acme/widgets";
const alice: Actor = { surface: "slack", githubLogin: "alice", display: "<@U1>" };
const openPull: PullRequestInfo = {
  number: 42,
  title: "Add widgets",
  url: "https://github.com/acme/widgets/pull/42",
  state: "open",
  merged: false,
  baseRef: "main",
  headSha: "abc",
  author: { login: "alice", id: 1 },
};

function gateway(pull: PullRequestInfo | null = openPull) {
  const comments: string[] = [];
  const github: GitHubGateway = {
    permission: async () => "write",
    pullRequest: async () => pull,
    comment: async (_repo, _n, body) => {
      comments.push(body);
      return { id: comments.length, url: `https://github.com/acme/widgets/pull/42#c${comments.length}` };
    },
    findComment: async () => null,
  };
  return { github, comments };
}

const deps = (github: GitHubGateway) => ({
  queues: mergifyQueues(makeClient({ retry: { retries: 0 }, timeoutMs: 1_000 })),
  github,
  commandPrefix: "@mergifyio",
});

describe("execute", () => {
  it("relays dequeue and says when the pull request is out", async () => {
    const { github, comments } = gateway();
    nock(ORIGIN).get(`${PATH}/merge-queue/pull/42`).reply(404, { detail: "Not found" });
    const result = await execute({ name: "dequeue", repo, pull: 42 }, alice, deps(github));
    expect(comments[0]?.split("\n")[0]).toBe("@mergifyio dequeue");
    expect(comments[0]).toContain("Requested by **alice** from Slack");
    expect(result).toMatchObject({ name: "dequeue", queue: { state: "not_queued" } });
  });

  it("relays requeue as queue (Mergify's requeue is a deprecated alias), with its queue name, and reports the position", async () => {
    const { github, comments } = gateway();
    nock(ORIGIN).get(`${PATH}/merge-queue/pull/42`).times(2).reply(200, pullRequestDetails(42));
    const result = await execute({ name: "requeue", repo, pull: 42 }, alice, deps(github));
    expect(comments[0]?.split("\n")[0]).toBe("@mergifyio queue");
    expect(result).toMatchObject({
      relayed: "queue",
      queue: { state: "queued", entry: { position: 1, queue: "default" } },
    });
    await execute({ name: "requeue", repo, pull: 42, queueName: "urgent" }, alice, deps(github));
    expect(comments[1]?.split("\n")[0]).toBe("@mergifyio queue urgent");
  });

  it("refuses to queue a closed or unknown pull request, relaying nothing", async () => {
    const closed = gateway({ ...openPull, state: "closed", merged: true });
    const error = await failure(execute({ name: "queue", repo, pull: 42 }, alice, deps(closed.github)));
    expect(error.code).toBe(CommandErrorCode.WrongPlace);
    expect(error.details.detail).toBe("the pull request is already merged");
    expect(closed.comments).toEqual([]);
    const unknown = gateway(null);
    expect((await failure(execute({ name: "queue", repo, pull: 9 }, alice, deps(unknown.github)))).code).toBe(
      CommandErrorCode.NotAPullRequest,
    );
  });

  it("reports a relayed command whose queue state cannot be read, instead of failing it", async () => {
    const { github } = gateway();
    nock(ORIGIN).get(`${PATH}/merge-queue/pull/42`).reply(503, "upstream down");
    const result = await execute({ name: "queue", repo, pull: 42 }, alice, deps(github));
    expect(result).toMatchObject({
      queue: { state: "unknown", error: { code: CommandErrorCode.MergeQueueUnavailable } },
    });
  });

  it("says the queue is not paused when there is no pause to delete", async () => {
    nock(ORIGIN)
      .delete(`${PATH}/merge-queue/pause`)
      .reply(404, { detail: "The merge queue is not paused" })
      .get(`${PATH}/merge-queue/pause`)
      .reply(200, { paused: false, reason: null, paused_at: null });
    const error = await failure(execute({ name: "unpause", repo }, alice, deps(gateway().github)));
    expect(error.code).toBe(CommandErrorCode.NotPaused);
  });

  it("maps each merge-queue failure to its code, with the service's detail", async () => {
    const cases: [number | "timeout" | "malformed", CommandErrorCode][] = [
      [403, CommandErrorCode.MergeQueueForbidden],
      [404, CommandErrorCode.MergeQueueNotFound],
      [409, CommandErrorCode.MergeQueueConflict],
      [422, CommandErrorCode.MergeQueueInvalid],
      [500, CommandErrorCode.MergeQueueUnavailable],
      ["timeout", CommandErrorCode.MergeQueueTimeout],
      ["malformed", CommandErrorCode.MergeQueueMalformed],
    ];
    for (const [status, code] of cases) {
      const scope = nock(ORIGIN).put(`${PATH}/merge-queue/pause`);
      if (status === "timeout") scope.delay(5_000).reply(200, pauseState());
      else if (status === "malformed") scope.reply(200, { paused: "yes" });
      else scope.reply(status, { detail: `said ${status}` });
      const error = await failure(
        execute({ name: "pause", repo, reason: "freeze" }, alice, deps(gateway().github)),
      );
      expect(error.code, String(status)).toBe(code);
      if (typeof status === "number") expect(error.details.detail).toBe(`said ${status}`);
      nock.cleanAll();
    }
  });

  it("refuses an over-long reason before calling anything", async () => {
    const error = await failure(
      execute({ name: "pause", repo, reason: "x".repeat(256) }, alice, deps(gateway().github)),
    );
    expect(error.code).toBe(CommandErrorCode.InvalidArgument);
    expect(error.details.detail).toMatch(/255/);
  });
});
