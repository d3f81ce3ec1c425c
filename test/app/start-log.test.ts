import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/app/config.js";
import { describeSurfaces, HOW_TO_CONFIGURE } from "../../src/app/start-log.js";
import { SECRET_SETTING_NAMES } from "../../src/settings/settings.js";

const KEY = "-----BEGIN RSA PRIVATE KEY-----\nMIIsecretkey\n-----END RSA PRIVATE KEY-----\n";

describe("the start log", () => {
  it("says which surfaces are on and never shows a secret's value", () => {
    const env = {
      APP_ID: "123",
      PRIVATE_KEY: KEY,
      WEBHOOK_SECRET: "whsec-secret",
      GHE_HOST: "ghe.example.com",
      SLACK_BOT_TOKEN: "xoxb-secret",
      SLACK_SIGNING_SECRET: "signing-secret",
      SLACK_APP_TOKEN: "xapp-secret",
      GITHUB_CLIENT_ID: "Iv1.abc",
      GITHUB_CLIENT_SECRET: "client-secret",
      MERGE_QUEUE_API_TOKEN: "mq-secret",
      DATABASE_URL: "postgres://ym:db-password@db:5432/ym",
    };
    const lines = describeSurfaces(loadConfig(env));
    expect(lines).toEqual([
      "GitHub App 123 on (https://ghe.example.com)",
      "Slack surface on",
      "identity linking on",
      "merge queue at https://api.mergify.com/v1",
      "store: postgres",
    ]);
    const text = lines.join("\n");
    for (const name of SECRET_SETTING_NAMES) {
      const value = env[name as keyof typeof env];
      expect(value, name).toBeDefined();
      expect(text).not.toContain(value);
    }
    expect(text).not.toContain("db-password");
  });

  it("names what an off surface lacks, and what that means", () => {
    expect(describeSurfaces(loadConfig({ MERGE_QUEUE_API_TOKEN: "t" })).slice(0, 3)).toEqual([
      "GitHub surface off (APP_ID, PRIVATE_KEY, WEBHOOK_SECRET unset)",
      "Slack surface off (SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET unset)",
      "identity linking off (GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET unset): /mq login is unavailable",
    ]);
  });

  it("tells a newcomer what to set when nothing is", () => {
    expect(HOW_TO_CONFIGURE).toContain("npm run sandbox");
    expect(HOW_TO_CONFIGURE).toContain(
      "MERGE_QUEUE_API_TOKEN, and the GitHub App (APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH, WEBHOOK_SECRET)",
    );
    expect(HOW_TO_CONFIGURE).toContain(
      "and/or the Slack app (SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET or SLACK_APP_TOKEN)",
    );
  });
});
