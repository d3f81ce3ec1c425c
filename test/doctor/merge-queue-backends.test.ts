import nock from "nock";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/app/config.js";
import { checkMergeQueueBackends } from "../../src/backends/setup-check.js";
import { installationAccess } from "../../src/doctor/installation-access.js";
import { formatSetupLine, runSetupCheck } from "../../src/doctor/run-setup-check.js";
import { Repo } from "../../src/repo.js";
import { testPrivateKey } from "../helpers/github-app.js";

const GITHUB = "https://api.github.com";
const MERGIFY = "https://mq.test";
const app = { appId: "42", privateKey: testPrivateKey(), webhookSecret: "s".repeat(32) };

/** What GitHub's GraphQL says of each repository's default branch: its queue, none, or an error. */
type Answer = { queue: boolean; branch?: string } | { errors: { type?: string; message: string }[] };

/**
 * GitHub as the app sees it: every repository in installation 7 (but `missing`), one token for it, and
 * GraphQL answering YardmasterHasMergeQueue per repository. Records the GraphQL requests.
 */
function github(answers: Record<string, Answer>, missing: string[] = []) {
  const asked: { name: string; branch: unknown; authorization: string }[] = [];
  const scope = nock(GITHUB);
  for (const name of Object.keys(answers))
    scope.get(`/repos/acme/${name}/installation`).reply(200, { id: 7, account: { login: "acme" } });
  for (const name of missing)
    scope.get(`/repos/acme/${name}/installation`).reply(404, { message: "Not Found" });
  // One token for the installation, however many of its repositories are read.
  scope.post("/app/installations/7/access_tokens").reply(201, { token: "ghs_installation" });
  scope
    .post("/graphql")
    .times(Object.keys(answers).length)
    .reply(function (_uri, body) {
      const { query, variables } = body as { query: string; variables: Record<string, unknown> };
      expect(query).toContain("query YardmasterHasMergeQueue");
      const name = String(variables.name);
      asked.push({ name, branch: variables.branch, authorization: String(this.req.headers.authorization) });
      const answer = answers[name];
      if (!answer || "errors" in answer) return [200, { data: null, errors: answer?.errors ?? [] }];
      return [
        200,
        {
          data: {
            repository: {
              defaultBranchRef: { name: answer.branch ?? "main" },
              mergeQueue: answer.queue ? { id: `MQ_${name}` } : null,
            },
          },
        },
      ];
    });
  return asked;
}

/** Mergify reading each named repository's queue and log. */
function mergify(...names: string[]) {
  const scope = nock(MERGIFY);
  for (const name of names)
    scope
      .get(`/v1/repos/acme/${name}/merge-queue/status`)
      .reply(200, { batches: [], waiting_pull_requests: [], scope_queues: {} })
      .get(`/v1/repos/acme/${name}/logs`)
      .query(true)
      .reply(200, { events: [], size: 0, per_page: 1, total: 0 });
}

/** The setup check's merge-queue lines as `npm run doctor` prints them (the GitHub App's own check aside). */
async function doctorLines(provider: string, names: string[], github: typeof app | null = app) {
  const settings = loadConfig({
    APP_ID: "42",
    PRIVATE_KEY: "-----BEGIN RSA PRIVATE KEY-----\nx\n-----END RSA PRIVATE KEY-----",
    WEBHOOK_SECRET: "s".repeat(32),
    MERGE_QUEUE_PROVIDER: provider,
    MERGE_QUEUE_API_URL: `${MERGIFY}/v1`,
    ...(provider === "github" ? {} : { MERGE_QUEUE_API_TOKEN: "t" }),
    PUBLIC_URL: "https://yardmaster.example.com",
  });
  const report = await runSetupCheck({
    settings: { ...settings, github },
    database: async () => ({ where: "SQLite test", applied: [] }),
    knownMigrations: [],
    subscribedRepositories: async () => names.map((n) => Repo.of("acme", n)),
  });
  return report.lines.filter((l) => l.check.startsWith("merge")).map(formatSetupLine);
}

const READ_FIX =
  "Fix: install the GitHub App on the repository with the permissions app.yml asks for (see the GitHub App lines), then run npm run doctor again.";

describe("the setup check's merge queue per repository", () => {
  it("with MERGE_QUEUE_PROVIDER=mergify, says Mergify for each, then checks the token on each", async () => {
    mergify("widgets", "gadgets");
    expect(await doctorLines("mergify", ["widgets", "gadgets"])).toEqual([
      "ok   merge queue: acme/widgets: Mergify",
      "ok   merge queue: acme/gadgets: Mergify",
      "ok   merge-queue token: acme/widgets: reads the queue and the event log",
      "ok   merge-queue token: acme/gadgets: reads the queue and the event log",
    ]);
  });

  it("with github, asks GitHub of each default branch: a queue, none (a warning), or unreadable (a failure)", async () => {
    const asked = github({
      ships: { queue: true },
      x: { queue: false, branch: "trunk" },
      broken: { errors: [{ type: "FORBIDDEN", message: "Resource not accessible by integration" }] },
    });
    expect(await doctorLines("github", ["ships", "x", "broken"])).toEqual([
      "ok   merge queue: acme/ships: GitHub's merge queue (main)",
      "warn merge queue: acme/x: trunk has no merge queue on GitHub. Fix: turn one on in a branch ruleset, or use MERGE_QUEUE_PROVIDER=auto.",
      `FAIL merge queue: acme/broken: the GitHub App cannot read whether its default branch has a merge queue (Resource not accessible by integration). ${READ_FIX}`,
      "skip merge-queue token: not needed: MERGE_QUEUE_PROVIDER=github drives GitHub's own merge queue through the GitHub App",
    ]);
    // As the installation, of the default branch (branch null), one token for all.
    expect(asked.map((a) => [a.name, a.branch, a.authorization]).sort()).toEqual([
      ["broken", null, "token ghs_installation"],
      ["ships", null, "token ghs_installation"],
      ["x", null, "token ghs_installation"],
    ]);
  });

  it("with auto, says which serves each and checks the Mergify token only for Mergify's", async () => {
    github({ ships: { queue: true }, widgets: { queue: false } });
    mergify("widgets"); // acme/ships is not asked of Mergify: nock would refuse it
    expect(await doctorLines("auto", ["ships", "widgets"])).toEqual([
      "ok   merge queue: acme/ships: GitHub's merge queue (main)",
      "ok   merge queue: acme/widgets: Mergify (no GitHub merge queue on main)",
      "ok   merge-queue token: acme/widgets: reads the queue and the event log",
    ]);
  });

  it("with auto and every repository on GitHub's queue, says the token is not needed", async () => {
    github({ ships: { queue: true } });
    expect(await doctorLines("auto", ["ships"])).toEqual([
      "ok   merge queue: acme/ships: GitHub's merge queue (main)",
      "skip merge-queue token: not needed: no subscribed repository checked uses Mergify",
    ]);
  });

  it("fails a repository the app is not installed on, and a GraphQL error; checks neither's token", async () => {
    github({ broken: { errors: [{ message: "Something went wrong while executing your query" }] } }, [
      "elsewhere",
    ]);
    mergify();
    expect(await doctorLines("auto", ["elsewhere", "broken"])).toEqual([
      `FAIL merge queue: acme/elsewhere: the GitHub App cannot read whether its default branch has a merge queue (the GitHub App is not installed on acme/elsewhere). ${READ_FIX}`,
      `FAIL merge queue: acme/broken: the GitHub App cannot read whether its default branch has a merge queue (Something went wrong while executing your query). ${READ_FIX}`,
      "skip merge-queue token: not needed: no subscribed repository checked uses Mergify",
    ]);
  });

  it("with github and no subscription, says there is nothing to read", async () => {
    expect(await doctorLines("github", [])).toEqual([
      "ok   merge queue: no repository is subscribed yet: nothing to read (/mq subscribe owner/repo in a channel)",
      "skip merge-queue token: not needed: MERGE_QUEUE_PROVIDER=github drives GitHub's own merge queue through the GitHub App",
    ]);
  });

  it("fails once when the GitHub App is not configured", async () => {
    expect(await doctorLines("github", ["ships"], null)).toEqual([
      "FAIL merge queue: MERGE_QUEUE_PROVIDER=github asks GitHub which branches have a merge queue, through the GitHub App, which is not configured. Fix: set APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH and WEBHOOK_SECRET, or use MERGE_QUEUE_PROVIDER=mergify.",
      "skip merge-queue token: not needed: MERGE_QUEUE_PROVIDER=github drives GitHub's own merge queue through the GitHub App",
    ]);
  });

  it("treats a GitHub without merge queues (an older GitHub Enterprise Server) as having none", async () => {
    const lines = await checkMergeQueueBackends({
      provider: "auto",
      app,
      repositories: [Repo.of("acme", "old")],
      checkToken: async (repos) => [
        {
          check: "merge-queue token",
          status: "pass",
          message: `given ${repos instanceof Error ? "an error" : repos.map((r) => r.fullName).join(", ")}`,
        },
      ],
      graphqlFor: async () => async () => {
        throw Object.assign(new Error("GraphQL"), {
          errors: [{ message: "Field 'mergeQueue' doesn't exist on type 'Repository'" }],
        });
      },
    });
    expect(lines.map(formatSetupLine)).toEqual([
      "ok   merge queue: acme/old: Mergify (no GitHub merge queue on its default branch)",
      "ok   merge-queue token: given acme/old",
    ]);
  });

  it("asks GitHub Enterprise Server's GraphQL at /api/graphql", async () => {
    nock("https://ghe.test")
      .get("/api/v3/repos/acme/ships/installation")
      .reply(200, { id: 9 })
      .post("/api/v3/app/installations/9/access_tokens")
      .reply(201, { token: "ghs_9" })
      .post("/api/graphql")
      .reply(200, {
        data: { repository: { defaultBranchRef: { name: "develop" }, mergeQueue: { id: "MQ" } } },
      });
    const lines = await checkMergeQueueBackends({
      provider: "github",
      app,
      repositories: [Repo.of("acme", "ships")],
      checkToken: async () => [],
      graphqlFor: installationAccess(app, "https://ghe.test/api/v3", () => new Date()).graphqlFor,
    });
    expect(lines.map(formatSetupLine)).toEqual([
      "ok   merge queue: acme/ships: GitHub's merge queue (develop)",
    ]);
  });
});
