import { describe, expect, it } from "vitest";
import { CommandErrorCode } from "../../src/commands/errors.js";
import { unavailableGateway } from "../../src/github/installations.js";
import { Repo } from "../../src/repo.js";

describe("GitHub off", () => {
  it("refuses what needs GitHub, naming the settings that turn it on", async () => {
    const refusal = unavailableGateway().permission(Repo.of("acme", "widgets"), "alice");
    await expect(refusal).rejects.toMatchObject({
      code: CommandErrorCode.Unavailable,
      details: {
        detail: "this needs the GitHub App, which is not configured (APP_ID, PRIVATE_KEY, WEBHOOK_SECRET)",
      },
    });
  });
});
