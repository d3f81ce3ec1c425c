import { describe, expect, it, vi } from "vitest";
import { COMMANDS, type CommandName } from "../../src/commands/catalog.js";
import type { Actor } from "../../src/commands/command.js";
import { CommandError, CommandErrorCode } from "../../src/commands/errors.js";
import { authorize } from "../../src/commands/run.js";
import type { PermissionLevel } from "../../src/core/permission-level.js";
import { Repo } from "../../src/repo.js";

const repo = Repo.of("acme", "widgets");
const defaults = Object.fromEntries(Object.values(COMMANDS).map((c) => [c.name, c.permission])) as Record<
  CommandName,
  PermissionLevel
>;
const alice: Actor = { surface: "github", githubLogin: "alice", display: "alice" };
const unlinked: Actor = {
  surface: "slack",
  githubLogin: null,
  display: "<@U1>",
  slack: { teamId: "T1", userId: "U1", channelId: "C1" },
};

async function refusal(promise: Promise<unknown>): Promise<CommandError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(CommandError);
    return error as CommandError;
  }
  throw new Error("expected a refusal");
}

describe("authorize", () => {
  it("lets a writer change the queue and says what they hold", async () => {
    const lookup = vi.fn(async () => "write" as const);
    await expect(authorize({ name: "pause", repo, reason: "x" }, alice, defaults, lookup)).resolves.toBe(
      "write",
    );
    expect(lookup).toHaveBeenCalledWith(repo, "alice");
  });

  it("ranks admin > maintain > write > triage > read > none", async () => {
    for (const held of ["admin", "maintain"] as const) {
      await expect(
        authorize({ name: "queue", repo, pull: 1 }, alice, defaults, async () => held),
      ).resolves.toBe(held);
    }
    for (const held of ["triage", "read", "none"] as const) {
      const error = await refusal(
        authorize({ name: "queue", repo, pull: 1 }, alice, defaults, async () => held),
      );
      expect(error.code).toBe(CommandErrorCode.PermissionDenied);
      expect(error.details).toMatchObject({
        needed: "write",
        held,
        login: "alice",
        repository: "acme/widgets",
      });
    }
  });

  it("asks nothing for commands that need nothing", async () => {
    const lookup = vi.fn(async () => "none" as const);
    await authorize({ name: "status", repo }, alice, defaults, lookup);
    await authorize({ name: "help" }, unlinked, defaults, lookup);
    await authorize({ name: "status", repo }, unlinked, defaults, lookup);
    expect(lookup).not.toHaveBeenCalled();
  });

  it("honours a raised level", async () => {
    const levels = { ...defaults, pause: "maintain" as const };
    const error = await refusal(
      authorize({ name: "pause", repo, reason: "x" }, alice, levels, async () => "write"),
    );
    expect(error.details.needed).toBe("maintain");
  });

  it("refuses an unlinked Slack user anything that changes something, without asking GitHub", async () => {
    const lookup = vi.fn(async () => "admin" as const);
    for (const command of [
      { name: "queue", repo, pull: 1 },
      { name: "unpause", repo },
      { name: "unsubscribe", repo },
    ] as const) {
      expect((await refusal(authorize(command, unlinked, defaults, lookup))).code).toBe(
        CommandErrorCode.NotLinked,
      );
    }
    expect(lookup).not.toHaveBeenCalled();
  });

  it("reports a failed permission lookup as a GitHub failure", async () => {
    const error = await refusal(
      authorize({ name: "queue", repo, pull: 1 }, alice, defaults, async () => {
        throw new Error("Bad credentials");
      }),
    );
    expect(error.code).toBe(CommandErrorCode.GitHubFailed);
    expect(error.details.detail).toBe("Bad credentials");
  });
});
