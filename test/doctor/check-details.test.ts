import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { checkCheckDetails } from "../../src/doctor/check-details.js";
import { formatSetupLine } from "../../src/doctor/run-setup-check.js";
import { Repo } from "../../src/repo.js";
import { testPrivateKey } from "../helpers/github-app.js";

// Which subscribed repositories' installations cannot read check runs (a removal then shows no details).

const GITHUB = "https://api.github.com";
const app = { appId: "42", privateKey: testPrivateKey(), webhookSecret: "s".repeat(32) };
const repos = ["acme/widgets", "acme/gadgets", "other/tools", "acme/gone"].map((n) => Repo.from(n));

afterEach(() => {
  nock.cleanAll();
});

function github(checks: Record<string, string | null>) {
  const scope = nock(GITHUB);
  for (const [name, level] of Object.entries(checks)) {
    if (level === "404") scope.get(`/repos/${name}/installation`).reply(404, { message: "Not Found" });
    else
      scope
        .get(`/repos/${name}/installation`)
        .matchHeader("authorization", /^Bearer ey/)
        .reply(200, { id: 7, permissions: { metadata: "read", ...(level ? { checks: level } : {}) } });
  }
  return scope;
}

describe("check-run details (setup check)", () => {
  it("names the repositories whose installation lacks checks: read, with what to do", async () => {
    const scope = github({
      "acme/widgets": "write",
      "acme/gadgets": null,
      "other/tools": null,
      "acme/gone": "404",
    });
    const lines = await checkCheckDetails({ app, apiUrl: GITHUB, repositories: repos, githubOnly: false });
    expect(scope.isDone()).toBe(true);
    expect(lines.map(formatSetupLine)).toEqual([
      "warn check-run details: the app's installation on acme/gadgets and other/tools lacks checks: read: a removal for failed checks there cannot show the check's title, summary and annotations. Fix: grant the GitHub App checks: read (app.yml asks for checks: write) in its settings (Permissions & events), then have each installation accept the new permissions.",
    ]);
  });

  it("passes when every installation can read check runs; says nothing on GitHub's queue alone", async () => {
    github({ "acme/widgets": "read", "acme/gadgets": "write" });
    const lines = await checkCheckDetails({
      app,
      apiUrl: GITHUB,
      repositories: repos.slice(0, 2),
      githubOnly: false,
    });
    expect(lines.map(formatSetupLine)).toEqual([
      "ok   check-run details: every subscribed repository's installation grants checks: read",
    ]);
    expect(await checkCheckDetails({ app, apiUrl: GITHUB, repositories: repos, githubOnly: true })).toEqual(
      [],
    );
  });

  it("skips without the app, or without subscriptions; says which repositories it could not ask about", async () => {
    expect(
      (await checkCheckDetails({ app: null, apiUrl: GITHUB, repositories: repos, githubOnly: false }))[0]
        ?.status,
    ).toBe("skip");
    expect(
      (await checkCheckDetails({ app, apiUrl: GITHUB, repositories: [], githubOnly: false }))[0]?.status,
    ).toBe("skip");
    nock(GITHUB).get("/repos/acme/widgets/installation").reply(500, {});
    const lines = await checkCheckDetails({
      app,
      apiUrl: GITHUB,
      repositories: repos.slice(0, 1),
      githubOnly: false,
    });
    expect(lines.map(formatSetupLine)).toEqual([
      "skip check-run details: could not ask GitHub about acme/widgets (500)",
    ]);
  });
});
