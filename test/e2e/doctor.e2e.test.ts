import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { doctor } from "../../src/app/doctor-main.js";
import { Repo } from "../../src/repo.js";
import { openStore } from "../../src/store/index.js";
import { type Servers, type Settings, startServers } from "../../tools/world.js";

/**
 * `npm run doctor` against the simulator and the stand-ins, as an operator runs it: the environment of
 * a deployment (here the stand-ins' settings), a database with two subscribed repositories.
 */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const REPOS = ["acme/widgets", "acme/gadgets"];
let servers: Servers;
let dataDir: string;
let env: Settings;

beforeAll(async () => {
  servers = await startServers({ seed: "demo" });
  servers.sim.state.addRepository("acme/gadgets", { branches: ["main"] });
  for (const name of REPOS) servers.github?.state.addRepository(name);
  dataDir = mkdtempSync(join(tmpdir(), "yardmaster-doctor-"));
  const database = { kind: "sqlite" as const, path: join(dataDir, "yardmaster.db") };
  const store = await openStore(database);
  for (const name of REPOS) {
    await store.putSubscription({
      channelId: "C0OPS",
      teamId: "T0001",
      repository: Repo.from(name),
      branchGlob: null,
      groups: ["queue"],
      createdBy: "ops",
      createdAt: new Date(),
    });
  }
  await store.close();
  env = {
    ...servers.settings,
    DATABASE_URL: `sqlite:${database.path}`,
    PUBLIC_URL: "https://yardmaster.example.com",
    // /metrics apart from the public port: a good setup (the setup check warns otherwise).
    METRICS_PORT: "9090",
  };
});
afterAll(async () => {
  await servers?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function run(overrides: Settings = {}): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await doctor({ ...env, ...overrides }, (line) => lines.push(line));
  return { code, out: lines.join("\n") };
}

const failures = (out: string) => out.split("\n").filter((l) => l.startsWith("FAIL"));

describe("npm run doctor", () => {
  it("passes every check of a good setup and exits 0, as its own process", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/doctor.ts"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += String(chunk);
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(out).toContain("ok   GitHub App: authenticates as yardmaster");
    expect(out).toContain(
      "ok   GitHub installation acme: granted every permission and event app.yml asks for",
    );
    expect(out).toContain("ok   Slack scopes: the token has every scope slack-manifest.yml asks for");
    expect(out).toContain("ok   merge-queue token: acme/gadgets: reads the queue and the event log");
    expect(out).toContain("its migrations are current");
    expect(out).toContain("Ready: every check passed.");
    expect(out).not.toMatch(/^(FAIL|warn)/m);
    for (const secret of [
      "SLACK_BOT_TOKEN",
      "MERGE_QUEUE_API_TOKEN",
      "WEBHOOK_SECRET",
      "SLACK_SIGNING_SECRET",
    ])
      expect(out).not.toContain(env[secret]);
    expect(code).toBe(0);
  }, 60_000);

  it("names a wrong Slack token and where to get the right one, and exits 1 as its own process", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/doctor.ts"], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        ...env,
        SLACK_BOT_TOKEN: "xoxb-not-the-token",
      },
    });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += String(chunk);
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(failures(out)).toEqual([
      "FAIL Slack token: Slack refused the token (invalid_auth). Fix: copy the Bot User OAuth Token (xoxb-…) from the Slack app's OAuth & Permissions page into SLACK_BOT_TOKEN; reinstall the app to the workspace if it was revoked.",
    ]);
    expect(out).toContain("1 required check failed");
    expect(code).toBe(1);
  }, 60_000);

  it("names the repository a merge-queue token cannot read, and one that cannot read the event log", async () => {
    const onlyWidgets = servers.sim.issueToken({ repositories: ["acme/widgets"] });
    const limited = await run({ MERGE_QUEUE_API_TOKEN: onlyWidgets });
    expect(limited.code).toBe(1);
    expect(failures(limited.out)).toEqual([
      expect.stringMatching(
        /^FAIL merge-queue token: acme\/gadgets: the token may not read its queue \(403: .*\)\. Fix: give the merge-queue API key \(MERGE_QUEUE_API_TOKEN\) access to this repository/,
      ),
    ]);
    expect(limited.out).toContain("ok   merge-queue token: acme/widgets: reads the queue and the event log");

    const queueOnly = await run({ MERGE_QUEUE_API_TOKEN: servers.sim.issueToken({ eventLog: false }) });
    expect(queueOnly.code).toBe(1);
    expect(failures(queueOnly.out)).toHaveLength(2);
    expect(queueOnly.out).toContain("acme/widgets: reads the queue but not the event log (403)");
  });

  it("names the permission an installation did not grant and how to have it accepted", async () => {
    const github = servers.github;
    if (!github) throw new Error("no GitHub stand-in");
    const { issues: _, ...withoutIssues } =
      github.state.getInstallation(github.installationId("acme/widgets"))?.permissions ?? {};
    github.state.setInstallationPermissions("acme", withoutIssues);
    try {
      const { code, out } = await run();
      expect(code).toBe(1);
      expect(failures(out)).toEqual([
        expect.stringMatching(
          /^FAIL GitHub installation acme: this installation lacks permissions issues: write\. Fix: have the account accept the app's new permissions/,
        ),
      ]);
    } finally {
      github.state.setInstallationEvents("acme", github.state.installationEvents);
    }
  });

  it("only warns when the installation lacks the doorbell's events, and exits 0", async () => {
    const github = servers.github;
    if (!github) throw new Error("no GitHub stand-in");
    github.state.setInstallationEvents("acme", ["issue_comment"]);
    try {
      const { code, out } = await run();
      expect(out).toMatch(
        /^warn GitHub installation acme: this installation lacks permissions checks: write and statuses: read and events check_run, check_suite, pull_request and status: without them/m,
      );
      expect(code).toBe(0);
    } finally {
      github.state.setInstallationEvents("acme", github.state.installationEvents);
    }
  });

  it("lists the settings' problems when they cannot be read, and exits 1", async () => {
    const { code, out } = await run({ WEBHOOK_SECRET: "development" });
    expect(code).toBe(1);
    expect(out).toContain('FAIL settings: WEBHOOK_SECRET must be a real secret, not "development"');
  });
});
