import nock from "nock";
import { describe, expect, it } from "vitest";
import { GitHubQueueClient } from "../../../src/backends/github/client.js";
import { octokitGateGitHub } from "../../../src/backends/github/gate/index.js";
import { type CommandError, CommandErrorCode } from "../../../src/commands/errors.js";
import { QueueError, QueueErrorCode } from "../../../src/core/queue-error.js";
import { Repo } from "../../../src/repo.js";
import { TestOctokit } from "../../helpers/github-app.js";

/** GitHub's 404 and 403 on a repository itself, as the closed codes the commands answer with. */
const GITHUB = "https://api.github.com";
const repo = Repo.of("acme", "ships");
const octokit = () => new TestOctokit({ auth: "installation-token" });

describe("a repository GitHub does not know, or refuses the app", () => {
  it("the gate's read of the repository (pause's default branch): 404 and 403 become their codes", async () => {
    const github = octokitGateGitHub(async () => octokit());
    nock(GITHUB).get("/repos/acme/ships").reply(404, { message: "Not Found" });
    const notFound = await github.defaultBranch(repo).catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(QueueError);
    expect((notFound as QueueError).code).toBe(QueueErrorCode.RepositoryNotFound);
    nock(GITHUB).get("/repos/acme/ships").reply(403, { message: "Resource not accessible by integration" });
    const forbidden = await github.defaultBranch(repo).catch((e: unknown) => e);
    expect((forbidden as QueueError).code).toBe(QueueErrorCode.RepositoryForbidden);
    // No installation on the repository: as GitHub's 404.
    const uninstalled = octokitGateGitHub(async () => {
      throw new QueueError(
        QueueErrorCode.RepositoryNotFound,
        "the GitHub App is not installed on acme/ships",
        {
          status: 404,
        },
      );
    });
    const none = await uninstalled.defaultBranch(repo).catch((e: unknown) => e);
    expect((none as QueueError).code).toBe(QueueErrorCode.RepositoryNotFound);
  });

  it("GitHub's merge queue over GraphQL: a repository it cannot resolve, or no installation, names the repository", async () => {
    const client = new GitHubQueueClient(
      async () => (query, variables) => octokit().graphql(query, variables),
    );
    nock(GITHUB)
      .post("/graphql")
      .reply(200, {
        data: null,
        errors: [
          { type: "NOT_FOUND", message: "Could not resolve to a Repository with the name 'acme/ships'." },
        ],
      });
    const error = (await client.status(repo).catch((e: unknown) => e)) as CommandError;
    expect(error.code).toBe(CommandErrorCode.GitHubRepositoryNotFound);
    expect(error.details.repository).toBe("acme/ships");
    const uninstalled = new GitHubQueueClient(async () => {
      throw new QueueError(
        QueueErrorCode.RepositoryNotFound,
        "the GitHub App is not installed on acme/ships",
        {
          status: 404,
        },
      );
    });
    const none = (await uninstalled.status(repo).catch((e: unknown) => e)) as CommandError;
    expect(none.code).toBe(CommandErrorCode.GitHubRepositoryNotFound);
    // Another NOT_FOUND (a pull request) stays GitHub's words.
    nock(GITHUB)
      .post("/graphql")
      .reply(200, {
        data: null,
        errors: [{ type: "NOT_FOUND", message: "Could not resolve to a PullRequest." }],
      });
    const pull = (await client.entry(repo, 7).catch((e: unknown) => e)) as CommandError;
    expect(pull.code).not.toBe(CommandErrorCode.GitHubRepositoryNotFound);
  });
});
