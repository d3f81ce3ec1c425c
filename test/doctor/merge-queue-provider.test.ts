import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/app/config.js";
import { runSetupCheck } from "../../src/doctor/run-setup-check.js";

/** The merge-queue lines of the setup check, with no subscribed repository and GitHub unreachable. */
async function mergeQueueLines(env: Record<string, string>) {
  const settings = loadConfig({ ...env, PUBLIC_URL: "https://yardmaster.example.com" });
  const report = await runSetupCheck({
    settings: { ...settings, github: null },
    database: async () => ({ where: "SQLite test", applied: [] }),
    knownMigrations: [],
    subscribedRepositories: async () => [],
  });
  return report.lines
    .filter((l) => l.check.startsWith("merge-queue"))
    .map((l) => [l.check, l.status, l.message]);
}

const github = {
  APP_ID: "1",
  PRIVATE_KEY: "-----BEGIN RSA PRIVATE KEY-----\nx\n-----END RSA PRIVATE KEY-----",
  WEBHOOK_SECRET: "s".repeat(32),
};

describe("the setup check's merge-queue lines", () => {
  it("skips the token with MERGE_QUEUE_PROVIDER=github, saying why", async () => {
    expect(await mergeQueueLines({ ...github, MERGE_QUEUE_PROVIDER: "github" })).toEqual([
      [
        "merge-queue token",
        "skip",
        "not needed: MERGE_QUEUE_PROVIDER=github drives GitHub's own merge queue through the GitHub App",
      ],
    ]);
  });

  it("with auto and no subscription, checks the token (nothing to read); no generic provider line", async () => {
    const auto = await mergeQueueLines({
      ...github,
      MERGE_QUEUE_PROVIDER: "auto",
      MERGE_QUEUE_API_TOKEN: "t",
    });
    expect(auto).toEqual([
      [
        "merge-queue token",
        "pass",
        "no repository is subscribed yet: nothing to read (/mq subscribe owner/repo in a channel)",
      ],
    ]);
    const mergify = await mergeQueueLines({ ...github, MERGE_QUEUE_API_TOKEN: "t" });
    expect(mergify).toEqual(auto);
  });
});
