import { generateKeyPairSync } from "node:crypto";
import nock from "nock";
import { describe, expect, it } from "vitest";
import { checkGitHubApp } from "../../src/doctor/github-app.js";

const API = "https://api.github.test";
const { privateKey } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs1", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});
const app = { appId: "42", privateKey, webhookSecret: "s".repeat(32) };
const asks = {
  permissions: { issues: "write", pull_requests: "write", metadata: "read", checks: "read" },
  events: ["issue_comment", "check_run"],
};
const granted = { permissions: { ...asks.permissions }, events: [...asks.events] };
const installation = (login: string, over: object = {}) => ({
  id: 7,
  account: { login },
  html_url: `https://github.test/organizations/${login}/settings/installations/7`,
  ...granted,
  ...over,
});

const run = () => checkGitHubApp({ app, apiUrl: API, asks });

describe("the GitHub App check", () => {
  it("passes when the app authenticates and every installation granted what app.yml asks for", async () => {
    const seen: string[] = [];
    nock(API)
      .get("/app")
      .reply(function () {
        seen.push(String(this.req.headers.authorization));
        return [200, { id: 42, slug: "yardmaster", ...granted }];
      })
      .get("/app/installations")
      .query({ per_page: "100" })
      .reply(200, [installation("acme")]);
    const lines = await run();
    expect(lines.map((l) => [l.check, l.status, l.message])).toEqual([
      ["GitHub App", "pass", "authenticates as yardmaster (App ID 42)"],
      ["GitHub App permissions", "pass", "the app asks for every permission and event app.yml lists"],
      ["GitHub installation acme", "pass", "granted every permission and event app.yml asks for"],
    ]);
    // The app's JSON web token, signed with its key, issued by its App ID.
    const payload = JSON.parse(Buffer.from(seen[0]?.split(".")[1] ?? "", "base64url").toString());
    expect(payload.iss).toBe("42");
    expect(payload.exp - payload.iat).toBeLessThanOrEqual(600);
  });

  it("fails with what to check when GitHub refuses the credentials", async () => {
    nock(API).get("/app").reply(401, { message: "A JSON web token could not be decoded" });
    const [line, ...rest] = await run();
    expect(rest).toEqual([]);
    expect(line).toMatchObject({ check: "GitHub App", status: "fail" });
    expect(line?.message).toContain("401: A JSON web token could not be decoded");
    expect(line?.fix).toContain("APP_ID");
  });

  it("names a permission an installation lacks and says to have it accepted", async () => {
    nock(API)
      .get("/app")
      .reply(200, { slug: "yardmaster", ...granted })
      .get("/app/installations")
      .query(true)
      .reply(200, [installation("acme", { permissions: { ...asks.permissions, issues: "read" } })]);
    const line = (await run()).find((l) => l.check === "GitHub installation acme");
    expect(line).toMatchObject({
      status: "fail",
      message: "this installation lacks permissions issues: write (granted read)",
    });
    expect(line?.fix).toContain("accept the app's new permissions");
  });

  it("only warns when what is missing is the doorbell's (its events and checks permission)", async () => {
    const { checks: _, ...noChecks } = asks.permissions;
    nock(API)
      .get("/app")
      .reply(200, { slug: "yardmaster", ...granted })
      .get("/app/installations")
      .query(true)
      .reply(200, [installation("acme", { permissions: noChecks, events: ["issue_comment"] })]);
    const line = (await run()).find((l) => l.check === "GitHub installation acme");
    expect(line?.status).toBe("warn");
    expect(line?.message).toContain("lacks permissions checks: read and events check_run");
    expect(line?.message).toContain("POLL_INTERVAL_SECONDS");
  });

  it("fails when the app's own settings lack an event, naming it", async () => {
    nock(API)
      .get("/app")
      .reply(200, { slug: "yardmaster", permissions: granted.permissions, events: ["check_run"] })
      .get("/app/installations")
      .query(true)
      .reply(200, [installation("acme")]);
    const line = (await run()).find((l) => l.check === "GitHub App permissions");
    expect(line).toMatchObject({
      status: "fail",
      message: "the app's registration lacks events issue_comment",
    });
    expect(line?.fix).toContain("Permissions & events");
  });

  it("fails when the app is installed nowhere, or an installation is suspended", async () => {
    nock(API).get("/app").reply(200, granted).get("/app/installations").query(true).reply(200, []);
    expect((await run()).at(-1)).toMatchObject({ check: "GitHub installations", status: "fail" });
    nock(API)
      .get("/app")
      .reply(200, granted)
      .get("/app/installations")
      .query(true)
      .reply(200, [installation("acme", { suspended_at: "2026-01-01T00:00:00Z" })]);
    expect((await run()).at(-1)).toMatchObject({
      check: "GitHub installation acme",
      status: "fail",
      message: "is suspended",
    });
  });

  it("asks for contents: write only where GitHub's own merge queue is driven", async () => {
    const withContents = { ...asks, permissions: { ...asks.permissions, contents: "write" } };
    const reply = () =>
      nock(API)
        .get("/app")
        .reply(200, { id: 42, slug: "yardmaster", ...granted })
        .get("/app/installations")
        .query({ per_page: "100" })
        .reply(200, [installation("acme")]);
    reply();
    const mergify = await checkGitHubApp({ app, apiUrl: API, asks: withContents });
    expect(mergify.map((l) => l.status)).toEqual(["pass", "pass", "pass"]);
    reply();
    const github = await checkGitHubApp({ app, apiUrl: API, asks: withContents, githubQueue: true });
    expect(github[2]).toMatchObject({ check: "GitHub installation acme", status: "fail" });
    expect(github[2]?.message).toContain("contents: write");
  });

  it("fails on a missing checks: write where GitHub's own merge queue is driven (the gate check needs it)", async () => {
    const gateAsks = { ...asks, permissions: { ...asks.permissions, checks: "write" } };
    const reply = (checks: string) =>
      nock(API)
        .get("/app")
        .reply(200, { slug: "yardmaster", permissions: gateAsks.permissions, events: asks.events })
        .get("/app/installations")
        .query(true)
        .reply(200, [installation("acme", { permissions: { ...asks.permissions, checks } })]);
    reply("read");
    const mergify = (await checkGitHubApp({ app, apiUrl: API, asks: gateAsks })).at(-1);
    expect(mergify).toMatchObject({ check: "GitHub installation acme", status: "warn" });
    reply("read");
    const github = (await checkGitHubApp({ app, apiUrl: API, asks: gateAsks, githubQueue: true })).at(-1);
    expect(github).toMatchObject({ check: "GitHub installation acme", status: "fail" });
    expect(github?.message).toContain("lacks permissions checks: write (granted read)");
    expect(github?.message).toContain("the gate check, which needs checks: write");
    expect(github?.fix).toContain("Review request");
  });

  it("skips when the GitHub App is not configured, without a call", async () => {
    expect(await checkGitHubApp({ app: null, apiUrl: API, asks })).toMatchObject([{ status: "skip" }]);
  });
});
