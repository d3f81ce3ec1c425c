import { describe, expect, it } from "vitest";
import type { SlackPlace } from "../../../src/commands/command.js";
import { CommandErrorCode } from "../../../src/commands/errors.js";
import { parseGitHubComment, parseSlackCommand } from "../../../src/commands/grammar/parse.js";
import { splitExcept } from "../../../src/core/exemptions.js";
import { Repo } from "../../../src/repo.js";

/** The grammar of drain, `except label:…` (pause, timed pauses, freeze) and `let … through`. */
const ships = Repo.of("acme", "ships");
const anywhere: SlackPlace = { githubWebUrl: "https://github.com" };
const slack = (text: string) => parseSlackCommand(text, anywhere);
const onPull = (body: string) =>
  parseGitHubComment(body, "yardmaster", { repo: ships, number: 12, isPullRequest: true });
const onIssue = (body: string) =>
  parseGitHubComment(body, "yardmaster", { repo: ships, number: 7, isPullRequest: false });
const refusal = (parsed: ReturnType<typeof slack>) =>
  parsed.kind === "refused" ? { code: parsed.error.code, detail: parsed.error.details.detail ?? "" } : null;

describe("except label:<name> …", () => {
  it("reads the labels at the end of the line, lower case and each once, and leaves the rest", () => {
    expect(splitExcept("pause", "deploy except label:Hotfix label:release label:hotfix")).toEqual({
      rest: "deploy",
      labels: ["hotfix", "release"],
    });
    expect(splitExcept("pause", "deploy")).toEqual({ rest: "deploy", labels: [] });
  });

  it("leaves an except that is not followed by label: to the reason", () => {
    expect(splitExcept("pause", "everything except docs")).toEqual({
      rest: "everything except docs",
      labels: [],
    });
    // Only the last except that starts exemptions counts.
    expect(splitExcept("pause", "all except docs except label:hotfix")).toEqual({
      rest: "all except docs",
      labels: ["hotfix"],
    });
  });

  it.each([
    ["deploy except label:hotfix for 2h", '"for" after except is not a label'],
    ["deploy except label:", "label: needs a name"],
    [`deploy except label:${"x".repeat(51)}`, "a label's name is 1 to 50 characters"],
    [
      `deploy except ${Array.from({ length: 11 }, (_, i) => `label:l${i}`).join(" ")}`,
      "at most 10 labels may be exempt",
    ],
  ])("refuses %j, saying what to write", (text, says) => {
    expect(() => splitExcept("pause", text)).toThrow(
      expect.objectContaining({
        code: CommandErrorCode.InvalidArgument,
        details: expect.objectContaining({ detail: expect.stringContaining(says) }),
      }),
    );
  });

  it("goes with pause and a timed pause, on Slack and on GitHub", () => {
    expect(slack("pause acme/ships release freeze except label:hotfix")).toEqual({
      kind: "command",
      command: { name: "pause", repo: ships, reason: "release freeze", except: ["hotfix"] },
    });
    expect(slack("pause acme/ships release freeze for 2h except label:hotfix label:release")).toMatchObject({
      kind: "command",
      command: {
        name: "pause",
        reason: "release freeze",
        resume: { kind: "for" },
        except: ["hotfix", "release"],
      },
    });
    expect(onPull("@yardmaster pause deploy except label:hotfix")).toMatchObject({
      kind: "command",
      command: { name: "pause", reason: "deploy", except: ["hotfix"] },
    });
    expect(refusal(slack("pause acme/ships deploy except label:hotfix for 2h"))).toMatchObject({
      code: CommandErrorCode.InvalidArgument,
      detail: expect.stringContaining('"deploy for 2h except label:hotfix label:release"'),
    });
    // Exemptions alone are no reason.
    expect(refusal(slack("pause acme/ships except label:hotfix"))?.code).toBe(
      CommandErrorCode.MissingArgument,
    );
  });

  it("goes with freeze, after the window's zone", () => {
    expect(
      slack("freeze acme/ships weekend every fri 18:00 - mon 08:00 UTC except label:hotfix"),
    ).toMatchObject({
      kind: "command",
      command: { name: "freeze", freezeName: "weekend", zone: "UTC", except: ["hotfix"] },
    });
  });
});

describe("drain", () => {
  it("reads a reason and an optional branch=, on Slack and on GitHub", () => {
    expect(slack("drain acme/ships deploy 1.2")).toEqual({
      kind: "command",
      command: { name: "drain", repo: ships, reason: "deploy 1.2" },
    });
    expect(slack("drain acme/ships branch=release/2.0 migration")).toEqual({
      kind: "command",
      command: { name: "drain", repo: ships, reason: "migration", branch: "release/2.0" },
    });
    expect(onIssue("@yardmaster drain deploy")).toMatchObject({
      kind: "command",
      command: { name: "drain", repo: ships, reason: "deploy" },
    });
  });

  it("needs a reason, and a repository in a channel without one", () => {
    expect(refusal(slack("drain acme/ships"))?.code).toBe(CommandErrorCode.MissingArgument);
    expect(refusal(slack("drain"))?.code).toBe(CommandErrorCode.MissingArgument);
  });
});

describe("let … through", () => {
  it("reads the pull request and confirm on Slack", () => {
    expect(slack("let acme/ships#12 through")).toEqual({
      kind: "command",
      command: { name: "let", repo: ships, pull: 12, confirm: false },
    });
    expect(slack("let https://github.com/acme/ships/pull/12 through confirm")).toEqual({
      kind: "command",
      command: { name: "let", repo: ships, pull: 12, confirm: true },
    });
  });

  it("takes the pull request commented on, or the one named, on GitHub", () => {
    expect(onPull("@yardmaster let through")).toMatchObject({
      command: { name: "let", repo: ships, pull: 12, confirm: false },
    });
    expect(onPull("@yardmaster let through confirm")).toMatchObject({
      command: { name: "let", pull: 12, confirm: true },
    });
    expect(onIssue("@yardmaster let #15 through confirm")).toMatchObject({
      command: { name: "let", pull: 15, confirm: true },
    });
  });

  it("refuses a missing through, words after confirm, and an issue without a number", () => {
    expect(refusal(slack("let acme/ships#12"))).toMatchObject({
      code: CommandErrorCode.InvalidArgument,
      detail: expect.stringContaining('"let <pull request> through"'),
    });
    expect(refusal(slack("let acme/ships#12 through confirm now"))?.code).toBe(
      CommandErrorCode.UnexpectedArgument,
    );
    expect(refusal(slack("let acme/ships through"))?.code).toBe(CommandErrorCode.MissingArgument);
    const issue = onIssue("@yardmaster let through");
    expect(issue.kind === "refused" ? issue.error.code : null).toBe(CommandErrorCode.WrongPlace);
  });
});
