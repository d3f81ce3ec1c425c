import nock from "nock";
import { describe, expect, it } from "vitest";
import { checkSlackToken } from "../../src/doctor/slack-token.js";

const API = "https://slack.test/api/";
const slack = { botToken: "xoxb-1-2-abc", signingSecret: "0".repeat(32), apiUrl: API };
const asks = { botScopes: ["commands", "chat:write", "channels:history", "users:read"] };

const authTest = (body: object, scopes?: string) =>
  nock("https://slack.test")
    .post("/api/auth.test")
    .matchHeader("authorization", `Bearer ${slack.botToken}`)
    .reply(200, body, scopes === undefined ? {} : { "x-oauth-scopes": scopes });

describe("the Slack token check", () => {
  it("passes when auth.test accepts the token and it has every scope of the manifest", async () => {
    authTest(
      { ok: true, user: "yardmaster", team: "Acme" },
      "commands,chat:write,channels:history,users:read,im:write",
    );
    expect((await checkSlackToken(slack, asks)).map((l) => [l.check, l.status, l.message])).toEqual([
      ["Slack token", "pass", "works: the bot yardmaster in the workspace Acme"],
      ["Slack scopes", "pass", "the token has every scope slack-manifest.yml asks for (4)"],
    ]);
  });

  it("fails with Slack's error and where to copy the token from when Slack refuses it", async () => {
    authTest({ ok: false, error: "invalid_auth" });
    const lines = await checkSlackToken(slack, asks);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ status: "fail", message: "Slack refused the token (invalid_auth)" });
    expect(lines[0]?.fix).toContain("Bot User OAuth Token");
  });

  it("names the scopes the token lacks and says to reinstall", async () => {
    authTest({ ok: true }, "commands,users:read");
    const scopes = (await checkSlackToken(slack, asks))[1];
    expect(scopes).toMatchObject({
      status: "fail",
      message: "the token lacks chat:write and channels:history",
    });
    expect(scopes?.fix).toContain("reinstall the app");
  });

  it("only warns when what is missing names people on the sign-in page", async () => {
    authTest({ ok: true }, "commands,chat:write,channels:history");
    expect((await checkSlackToken(slack, asks))[1]).toMatchObject({
      status: "warn",
      message: expect.stringContaining("users:read"),
    });
  });

  it("only warns, saying links are not unfurled, when the unfurl scopes are missing", async () => {
    authTest({ ok: true }, "commands,chat:write");
    const withLinks = { botScopes: ["commands", "chat:write", "links:read", "links:write"] };
    expect((await checkSlackToken(slack, withLinks))[1]).toMatchObject({
      status: "warn",
      message:
        "the token lacks links:read and links:write: pull-request links are not unfurled with their queue state",
    });
  });

  it("refuses a token that is not a bot token without calling Slack", async () => {
    const lines = await checkSlackToken({ ...slack, botToken: "xoxp-user" }, asks);
    expect(lines).toMatchObject([{ status: "fail", message: "SLACK_BOT_TOKEN is not a bot token (xoxb-…)" }]);
  });

  it("never puts the token in what it says", async () => {
    authTest({ ok: false, error: "token_revoked" });
    expect(JSON.stringify(await checkSlackToken(slack, asks))).not.toContain(slack.botToken);
  });
});
