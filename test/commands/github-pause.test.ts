import { describe, expect, it } from "vitest";
import type { SlackPlace } from "../../src/commands/command.js";
import { CommandErrorCode } from "../../src/commands/errors.js";
import { parseGitHubComment, parseSlackCommand } from "../../src/commands/grammar/parse.js";
import { Repo } from "../../src/repo.js";

/** `branch=<name>` of pause and unpause, named as `subscribe` names a branch. */
const ships = Repo.of("acme", "ships");
const anywhere: SlackPlace = { githubWebUrl: "https://github.com" };
const slack = (text: string) => parseSlackCommand(text, anywhere);
const github = (body: string) =>
  parseGitHubComment(body, "yardmaster", { repo: ships, number: 4, isPullRequest: true });

describe("pause and unpause with branch=<name>", () => {
  it("reads the branch before the reason, on Slack and on GitHub", () => {
    expect(slack("pause acme/ships branch=release/2.0 deploy freeze")).toEqual({
      kind: "command",
      command: { name: "pause", repo: ships, reason: "deploy freeze", branch: "release/2.0" },
    });
    expect(github("@yardmaster pause branch=release/2.0 deploy")).toMatchObject({
      kind: "command",
      command: { name: "pause", reason: "deploy", branch: "release/2.0" },
    });
    expect(slack("unpause acme/ships branch=release/2.0")).toEqual({
      kind: "command",
      command: { name: "unpause", repo: ships, branch: "release/2.0" },
    });
    expect(github("@yardmaster unpause branch=main")).toMatchObject({
      kind: "command",
      command: { name: "unpause", branch: "main" },
    });
  });

  it("keeps the default branch without it, and a reason that merely mentions a branch", () => {
    expect(slack("pause acme/ships deploy branch=x")).toMatchObject({
      command: { name: "pause", reason: "deploy branch=x" },
    });
    expect(slack("unpause acme/ships")).toEqual({
      kind: "command",
      command: { name: "unpause", repo: ships },
    });
  });

  it("refuses an empty branch, a timed pause of a named branch, and more after unpause's branch", () => {
    const code = (parsed: ReturnType<typeof slack>) => (parsed.kind === "refused" ? parsed.error.code : null);
    expect(code(slack("pause acme/ships branch= deploy"))).toBe(CommandErrorCode.InvalidArgument);
    expect(code(slack("pause acme/ships branch=release/2.0 deploy for 2h"))).toBe(
      CommandErrorCode.InvalidArgument,
    );
    expect(code(slack("unpause acme/ships branch=main now"))).toBe(CommandErrorCode.UnexpectedArgument);
  });
});
