import { describe, expect, it } from "vitest";
import { checkDatabase } from "../../src/doctor/database.js";
import {
  githubAppAsks,
  readGitHubAppAsks,
  readSlackAppAsks,
  slackAppAsks,
} from "../../src/doctor/manifests.js";
import { checkMetricsPort, checkPublicUrl } from "../../src/doctor/public-url.js";
import { checkSlackSigningSecret, checkWebhookSecret } from "../../src/doctor/secrets.js";

const github = (webhookSecret: string) => ({ appId: "1", privateKey: "k", webhookSecret });
const slack = (signingSecret: string) => ({
  botToken: "xoxb-1",
  signingSecret,
  apiUrl: "https://slack.test/api/",
});

describe("the secrets", () => {
  it("fails on the development webhook secret or none, warns on a short one", () => {
    expect(checkWebhookSecret(github("development"))[0]).toMatchObject({
      status: "fail",
      message: expect.stringContaining('"development"'),
    });
    expect(checkWebhookSecret(github(""))[0]).toMatchObject({
      status: "fail",
      message: "WEBHOOK_SECRET is not set",
    });
    expect(checkWebhookSecret(github("short"))[0]?.status).toBe("warn");
    expect(checkWebhookSecret(github("a".repeat(40)))[0]?.status).toBe("pass");
    expect(checkWebhookSecret(null)[0]?.status).toBe("skip");
  });

  it("fails on no Slack signing secret, warns on one that does not look like Slack's", () => {
    expect(checkSlackSigningSecret(slack(""))[0]?.status).toBe("fail");
    expect(checkSlackSigningSecret(slack("verification-token-xyz"))[0]?.status).toBe("warn");
    expect(checkSlackSigningSecret(slack("0123456789abcdef0123456789abcdef"))[0]?.status).toBe("pass");
  });

  it("needs no signing secret over Socket Mode", () => {
    expect(checkSlackSigningSecret({ ...slack(""), appToken: "xapp-1-A1-2-abc" })[0]).toMatchObject({
      status: "pass",
      message: "not needed: Slack sends everything over Socket Mode (SLACK_APP_TOKEN)",
    });
  });
});

describe("PUBLIC_URL", () => {
  it("warns (never fails) when it is not https", () => {
    expect(checkPublicUrl("https://ym.example.com")[0]?.status).toBe("pass");
    expect(checkPublicUrl("http://ym.example.com")[0]).toMatchObject({
      status: "warn",
      fix: expect.stringContaining("https"),
    });
  });
});

describe("the metrics port", () => {
  it("warns when /metrics is on the port a public PUBLIC_URL leads to", () => {
    expect(checkMetricsPort("https://ym.example.com", undefined)[0]).toMatchObject({
      status: "warn",
      message: expect.stringContaining("the subscribed repositories' names, the Slack channels' ids"),
      fix: expect.stringContaining("set METRICS_PORT"),
    });
  });
  it("passes with METRICS_PORT, or with PUBLIC_URL on this machine", () => {
    expect(checkMetricsPort("https://ym.example.com", 9090)[0]).toMatchObject({
      status: "pass",
      message: "/metrics is served on METRICS_PORT 9090 only, not on the public port",
    });
    expect(checkMetricsPort("http://localhost:3000", undefined)[0]?.status).toBe("pass");
  });
});

describe("the database", () => {
  const known = [1, 2, 3];
  it("passes when every known migration is applied", async () => {
    expect(
      await checkDatabase(async () => ({ where: "SQLite x.db", applied: [1, 2, 3] }), known),
    ).toMatchObject([{ status: "pass", message: "SQLite x.db opens; its migrations are current (3)" }]);
  });
  it("warns about migrations not applied yet, and ones this version does not know", async () => {
    const lines = await checkDatabase(async () => ({ where: "PostgreSQL", applied: [1, 4] }), known);
    expect(lines.map((l) => [l.status, l.message])).toEqual([
      ["warn", "PostgreSQL opens; migrations 2 and 3 not applied yet"],
      [
        "warn",
        "PostgreSQL has migration 4, which this version does not know: a newer Yardmaster migrated it",
      ],
    ]);
    // A rolling upgrade under way: this version runs on; the fix is to finish the rollout.
    expect(lines[1]?.fix).toMatch(/runs on it .*finish the rollout/);
  });
  it("fails when it cannot be opened, and passes a file npm start will create", async () => {
    const refused = await checkDatabase(async () => {
      throw Object.assign(new Error("connect failed"), { cause: { code: "ECONNREFUSED" } });
    }, known);
    expect(refused).toMatchObject([{ status: "fail", message: "cannot be opened (ECONNREFUSED)" }]);
    expect(
      (await checkDatabase(async () => ({ where: "SQLite x.db", applied: null }), known))[0]?.status,
    ).toBe("pass");
  });
});

describe("what the manifests ask for", () => {
  it("reads app.yml's permissions and events, and slack-manifest.yml's bot scopes", () => {
    const app = readGitHubAppAsks();
    expect(app.permissions).toMatchObject({ issues: "write", pull_requests: "write", metadata: "read" });
    expect(app.events).toContain("issue_comment");
    expect(readSlackAppAsks().botScopes).toEqual(expect.arrayContaining(["commands", "chat:write"]));
  });

  it("reads only the block under the key path, without comments or quotes", () => {
    const yaml = [
      "# default_events: not this",
      "default_permissions:",
      "  # a comment",
      '  issues: "write" # trailing',
      "  metadata: read",
      "default_events:",
      "  - issue_comment",
      "  - 'status'",
      "other:",
      "  - not_an_event",
    ].join("\n");
    expect(githubAppAsks(yaml)).toEqual({
      permissions: { issues: "write", metadata: "read" },
      events: ["issue_comment", "status"],
    });
    const manifest =
      "oauth_config:\n  scopes:\n    user:\n      - search:read\n    bot:\n      - commands\n      - chat:write\nsettings:\n  x: 1\n";
    expect(slackAppAsks(manifest).botScopes).toEqual(["commands", "chat:write"]);
    expect(() => slackAppAsks("oauth_config:\n  scopes: {}\n")).toThrow("oauth_config.scopes.bot");
  });
});
