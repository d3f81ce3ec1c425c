import { describe, expect, it } from "vitest";
import { type Config, loadConfig } from "../../src/app/config.js";
import { describeSurfaces } from "../../src/app/start-log.js";
import { ConfigError } from "../../src/settings/read-settings.js";

const KEY = "-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY-----\n";
const base = { MERGE_QUEUE_API_TOKEN: "mq-token" };
const github = { APP_ID: "123", PRIVATE_KEY: KEY, WEBHOOK_SECRET: "whsec" };
const slack = { SLACK_BOT_TOKEN: "xoxb-1", SLACK_SIGNING_SECRET: "signing" };

function problemsOf(env: Record<string, string>, readFile?: (p: string) => string): string[] {
  try {
    loadConfig(env, readFile);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
  it("explains how to begin when nothing is configured", () => {
    try {
      loadConfig({ PATH: "/usr/bin", HOME: "/root" });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).nothingConfigured).toBe(true);
    }
  });

  it("applies the documented defaults", () => {
    const config = loadConfig(base);
    expect(config).toMatchObject<Partial<Config>>({
      github: null,
      slack: null,
      oauth: null,
      githubHost: null,
      mergeQueue: {
        provider: "mergify",
        apiUrl: "https://api.mergify.com/v1",
        token: "mq-token",
        commandPrefix: "@mergifyio",
        botLogin: "mergify[bot]",
        followSeconds: 600,
      },
      database: { kind: "sqlite", path: "./data/yardmaster.db" },
      pollIntervalSeconds: 15,
      publicUrl: "http://localhost:3000",
      port: 3000,
      host: "0.0.0.0",
      logLevel: "info",
      commandClaimSeconds: 30,
      shutdownTimeoutSeconds: 10,
    });
    expect(config.permissions).toMatchObject({
      queue: "write",
      pause: "write",
      subscribe: "read",
      status: "none",
    });
  });

  it("turns a surface on when all of its settings are set", () => {
    const config = loadConfig({ ...base, ...github, ...slack });
    expect(config.github).toEqual({ appId: "123", privateKey: KEY, webhookSecret: "whsec" });
    expect(config.slack).toEqual({
      botToken: "xoxb-1",
      signingSecret: "signing",
      apiUrl: "https://slack.com/api/",
    });
    expect(describeSurfaces(config)[0]).toContain("GitHub App 123 on");
  });

  it("says a surface is off when all of its settings are absent", () => {
    const lines = describeSurfaces(loadConfig({ ...base, ...slack }));
    expect(lines[0]).toMatch(/GitHub surface off/);
    expect(lines[1]).toBe("Slack surface on");
  });

  it("names each missing variable of a partly set surface", () => {
    expect(problemsOf({ ...base, APP_ID: "123" })).toEqual([
      "The GitHub App is partly configured: set PRIVATE_KEY or PRIVATE_KEY_PATH, WEBHOOK_SECRET (or unset the others to turn it off)",
    ]);
    expect(problemsOf({ ...base, SLACK_SIGNING_SECRET: "s" })[0]).toContain("set SLACK_BOT_TOKEN");
    expect(problemsOf({ ...base, GITHUB_CLIENT_ID: "Iv1" })[0]).toContain("set GITHUB_CLIENT_SECRET");
  });

  it("treats empty strings as unset", () => {
    expect(loadConfig({ ...base, APP_ID: "", PRIVATE_KEY: "", WEBHOOK_SECRET: "" }).github).toBeNull();
  });

  it("refuses a GitHub App without a webhook secret instead of Probot's 'development' fallback", () => {
    expect(problemsOf({ ...base, APP_ID: "1", PRIVATE_KEY: KEY })[0]).toContain("WEBHOOK_SECRET");
    expect(problemsOf({ ...base, ...github, WEBHOOK_SECRET: "development" })).toContain(
      'WEBHOOK_SECRET must be a real secret, not "development"',
    );
  });

  it("requires the merge-queue token", () => {
    expect(problemsOf({ ...slack })).toContain("MERGE_QUEUE_API_TOKEN is required (the merge-queue API key)");
  });

  it("needs no merge-queue token for GitHub's own merge queue, and still needs one for auto", () => {
    const config = loadConfig({ ...github, MERGE_QUEUE_PROVIDER: "github" });
    expect(config.mergeQueue).toMatchObject({ provider: "github", token: "" });
    expect(describeSurfaces(config)).toContain("merge queue: GitHub's own (GraphQL, as the GitHub App)");
    expect(problemsOf({ ...github, MERGE_QUEUE_PROVIDER: "auto" })).toContain(
      "MERGE_QUEUE_API_TOKEN is required (the merge-queue API key)",
    );
    expect(problemsOf({ ...slack, MERGE_QUEUE_PROVIDER: "github" })).toEqual([
      "MERGE_QUEUE_PROVIDER=github needs the GitHub App (APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH, WEBHOOK_SECRET): it acts on GitHub's merge queue",
    ]);
    expect(problemsOf({ ...base, MERGE_QUEUE_PROVIDER: "gitlab" })).toContain(
      "MERGE_QUEUE_PROVIDER must be mergify, github or auto",
    );
  });

  it("reads idle repositories no more often than active ones", () => {
    expect(problemsOf({ ...base, POLL_INTERVAL_SECONDS: "60", POLL_IDLE_SECONDS: "30" })).toContain(
      "POLL_IDLE_SECONDS must be at least POLL_INTERVAL_SECONDS (an idle repository is read less often)",
    );
    expect(problemsOf({ ...base, POLL_IDLE_SECONDS: "0" })).toContain(
      "POLL_IDLE_SECONDS must be a positive number of seconds",
    );
    // Left unset, the idle period follows a long interval instead of refusing it.
    expect(loadConfig({ ...base, POLL_INTERVAL_SECONDS: "600" }).pollIdleSeconds).toBe(600);
    expect(loadConfig(base)).toMatchObject({ pollIntervalSeconds: 15, pollIdleSeconds: 300 });
  });

  it("keeps the doorbell's minimum gap at most the interval", () => {
    expect(loadConfig(base).doorbellMinGapSeconds).toBe(2);
    expect(loadConfig({ ...base, DOORBELL_MIN_GAP_SECONDS: "0.5" }).doorbellMinGapSeconds).toBe(0.5);
    expect(
      loadConfig({ ...base, POLL_INTERVAL_SECONDS: "10", DOORBELL_MIN_GAP_SECONDS: "60" })
        .doorbellMinGapSeconds,
    ).toBe(10);
    expect(problemsOf({ ...base, DOORBELL_MIN_GAP_SECONDS: "often" })).toContain(
      "DOORBELL_MIN_GAP_SECONDS must be a number",
    );
  });

  it("refuses bad values, naming the variable", () => {
    const problems = problemsOf({
      ...base,
      MERGE_QUEUE_API_URL: "not a url",
      POLL_INTERVAL_SECONDS: "soon",
      SHUTDOWN_TIMEOUT_SECONDS: "0",
      PORT: "70000",
      PUBLIC_URL: "ftp://x",
      LOG_LEVEL: "loud",
      DATABASE_URL: "mysql://x",
      GHE_PROTOCOL: "gopher",
      APP_ID: "abc",
      PRIVATE_KEY: KEY,
      WEBHOOK_SECRET: "w",
    });
    for (const name of [
      "MERGE_QUEUE_API_URL",
      "POLL_INTERVAL_SECONDS",
      "SHUTDOWN_TIMEOUT_SECONDS",
      "PORT",
      "PUBLIC_URL",
      "LOG_LEVEL",
      "DATABASE_URL",
      "GHE_PROTOCOL",
      "APP_ID",
    ]) {
      expect(
        problems.some((p) => p.startsWith(`${name} `)),
        name,
      ).toBe(true);
    }
  });

  it("reads the private key from PRIVATE_KEY_PATH, and says when it cannot", () => {
    const env = { ...base, APP_ID: "1", PRIVATE_KEY_PATH: "/keys/app.pem", WEBHOOK_SECRET: "w" };
    expect(loadConfig(env, () => KEY).github?.privateKey).toBe(KEY);
    const enoent = () => {
      throw Object.assign(new Error("nope"), { code: "ENOENT" });
    };
    expect(problemsOf(env, enoent)).toEqual(["PRIVATE_KEY_PATH cannot be read (ENOENT)"]);
    expect(problemsOf({ ...env, PRIVATE_KEY: KEY }, () => KEY)).toContain(
      "set PRIVATE_KEY or PRIVATE_KEY_PATH, not both",
    );
  });

  it("accepts a key with escaped newlines and refuses one that is not PEM", () => {
    const oneLine = KEY.replace(/\n/g, "\\n");
    expect(loadConfig({ ...base, ...github, PRIVATE_KEY: oneLine }).github?.privateKey).toBe(KEY);
    expect(problemsOf({ ...base, ...github, PRIVATE_KEY: "abc" })[0]).toContain("not a PEM private key");
  });

  it("points GitHub at a GitHub Enterprise Server host", () => {
    const config = loadConfig({ ...base, GHE_HOST: "127.0.0.1:4020", GHE_PROTOCOL: "http" });
    expect(config.githubHost).toEqual({
      host: "127.0.0.1:4020",
      protocol: "http",
      apiUrl: "http://127.0.0.1:4020/api/v3",
      webUrl: "http://127.0.0.1:4020",
    });
    expect(problemsOf({ ...base, GHE_HOST: "https://ghe.example.com" })[0]).toMatch(/^GHE_HOST /);
  });

  it("reads postgres URLs", () => {
    expect(loadConfig({ ...base, DATABASE_URL: "postgres://u@127.0.0.1:5432/ym" }).database).toEqual({
      kind: "postgres",
      url: "postgres://u@127.0.0.1:5432/ym",
    });
  });

  it("raises a command's permission with PERMISSION_<COMMAND>, never lowers it", () => {
    expect(loadConfig({ ...base, PERMISSION_PAUSE: "maintain" }).permissions.pause).toBe("maintain");
    expect(loadConfig({ ...base, PERMISSION_STATUS: "READ" }).permissions.status).toBe("read");
    expect(problemsOf({ ...base, PERMISSION_PAUSE: "read" })[0]).toBe(
      "PERMISSION_PAUSE can only raise the level: pause needs at least write",
    );
    expect(problemsOf({ ...base, PERMISSION_DEPLOY: "admin" })[0]).toMatch(/does not name a command/);
    expect(problemsOf({ ...base, PERMISSION_QUEUE: "owner" })[0]).toMatch(/^PERMISSION_QUEUE must be one of/);
  });
});
