import { describe, expect, it } from "vitest";
import type { CommentPlace } from "../../../src/commands/command.js";
import { CommandErrorCode } from "../../../src/commands/errors.js";
import { parseGitHubComment } from "../../../src/commands/grammar/parse.js";
import { Repo } from "../../../src/repo.js";

const repo = Repo.of("acme", "widgets");
const onPull: CommentPlace = { repo, number: 42, isPullRequest: true };
const onIssue: CommentPlace = { repo, number: 7, isPullRequest: false };
const parse = (body: string, place = onPull) => parseGitHubComment(body, "yardmaster", place);

function refusal(body: string, place = onPull) {
  const result = parse(body, place);
  if (result.kind !== "refused") throw new Error(`expected a refusal, got ${result.kind}`);
  return result.error;
}

describe("parseGitHubComment", () => {
  it("reads each command with its arguments", () => {
    expect(parse("@yardmaster queue")).toEqual({
      kind: "command",
      command: { name: "queue", repo, pull: 42 },
      typed: "queue",
    });
    expect(parse("@yardmaster queue urgent")).toEqual({
      kind: "command",
      command: { name: "queue", repo, pull: 42, queueName: "urgent" },
      typed: "queue urgent",
    });
    expect(parse("@yardmaster dequeue")).toMatchObject({ command: { name: "dequeue", pull: 42 } });
    expect(parse("@yardmaster requeue")).toMatchObject({ command: { name: "requeue", pull: 42 } });
    expect(parse("@yardmaster pause release freeze, back at 5")).toEqual({
      kind: "command",
      command: { name: "pause", repo, reason: "release freeze, back at 5" },
      typed: "pause release freeze, back at 5",
    });
    expect(parse("@yardmaster pause release freeze until 2026-12-01 09:00")).toMatchObject({
      command: {
        name: "pause",
        reason: "release freeze",
        resume: { kind: "until", date: { year: 2026, month: 12, day: 1 }, hour: 9, minute: 0, zone: null },
      },
    });
    expect(parse("@yardmaster pause waiting for CI")).toMatchObject({
      command: { name: "pause", reason: "waiting for CI" },
    });
    // A version after "for" is the reason's (issue 21): the whole text, no end.
    expect(parse("@yardmaster pause Release freeze for 1.2")).toEqual({
      kind: "command",
      command: { name: "pause", repo, reason: "Release freeze for 1.2" },
      typed: "pause Release freeze for 1.2",
    });
    expect(refusal("@yardmaster pause freeze for 2x").code).toBe(CommandErrorCode.InvalidArgument);
    expect(refusal("@yardmaster pause freeze for 3hrs5").details.detail).toContain(
      '"3hrs5" is not a duration',
    );
    expect(parse("@yardmaster unpause")).toMatchObject({ command: { name: "unpause" } });
    expect(parse("@yardmaster resume")).toMatchObject({ command: { name: "unpause" } });
    // On a pull request, status without a branch means the pull request's base branch.
    expect(parse("@yardmaster status")).toEqual({
      kind: "command",
      command: { name: "status", repo, baseOf: 42 },
      typed: "status",
    });
    expect(parse("@yardmaster status", onIssue)).toEqual({
      kind: "command",
      command: { name: "status", repo },
      typed: "status",
    });
    expect(parse("@yardmaster status release/1.x")).toMatchObject({ command: { branch: "release/1.x" } });
    expect(parse("@yardmaster help")).toEqual({ kind: "command", command: { name: "help" }, typed: "help" });
  });

  it("matches the mention and the command word in any case, with several spaces", () => {
    expect(parse("@YardMaster   QUEUE")).toMatchObject({ kind: "command", command: { name: "queue" } });
    expect(parse("@yardmaster[bot] status")).toMatchObject({ kind: "command" });
  });

  it("reads only the first line", () => {
    expect(parse("@yardmaster pause deploy\n@yardmaster unpause\nmore text")).toMatchObject({
      command: { name: "pause", reason: "deploy" },
    });
    expect(parse("thanks!\n@yardmaster queue")).toEqual({ kind: "ignored" });
  });

  it("ignores comments that do not address the app on their first line", () => {
    for (const body of [
      "> @yardmaster queue",
      "please @yardmaster queue",
      "@yardmaster-dev queue",
      "@yardmasterqueue",
      "`@yardmaster queue`",
      "",
      "@mergifyio queue",
    ]) {
      expect(parse(body), body).toEqual({ kind: "ignored" });
    }
  });

  it("refuses an unknown command with a suggestion for near misses", () => {
    expect(refusal("@yardmaster qeue").details).toMatchObject({ typed: "qeue", suggestion: "queue" });
    expect(refusal("@yardmaster stauts").details.suggestion).toBe("status");
    expect(refusal("@yardmaster unpuase").details.suggestion).toBe("unpause");
    const far = refusal("@yardmaster deploy");
    expect(far.code).toBe(CommandErrorCode.UnknownCommand);
    expect(far.details.suggestion).toBeUndefined();
  });

  it("refuses a mention with no command", () => {
    expect(refusal("@yardmaster").code).toBe(CommandErrorCode.NotACommand);
    expect(parse("@yardmaster   qeue  now")).toMatchObject({ kind: "refused", typed: "qeue  now" });
  });

  it("points Slack-only commands at Slack", () => {
    const error = refusal("@yardmaster subscribe acme/widgets");
    expect(error.code).toBe(CommandErrorCode.OtherSurface);
    expect(error.details.command).toBe("subscribe");
  });

  it("refuses a missing, too long or unexpected argument", () => {
    expect(refusal("@yardmaster pause").code).toBe(CommandErrorCode.MissingArgument);
    expect(refusal("@yardmaster pause    ").code).toBe(CommandErrorCode.MissingArgument);
    expect(parse(`@yardmaster pause ${"x".repeat(255)}`).kind).toBe("command");
    const long = refusal(`@yardmaster pause ${"x".repeat(256)}`);
    expect(long.code).toBe(CommandErrorCode.InvalidArgument);
    expect(long.details).toMatchObject({ argument: "reason", limit: "1 to 255 characters" });
    expect(refusal("@yardmaster dequeue now").code).toBe(CommandErrorCode.UnexpectedArgument);
    expect(refusal("@yardmaster queue a b").code).toBe(CommandErrorCode.UnexpectedArgument);
    expect(refusal("@yardmaster queue <script>").code).toBe(CommandErrorCode.InvalidArgument);
    expect(refusal(`@yardmaster status ${"b".repeat(256)}`).code).toBe(CommandErrorCode.InvalidArgument);
  });

  it("refuses pull-request commands on an issue, but not pause or status", () => {
    for (const word of ["queue", "dequeue", "requeue"]) {
      expect(refusal(`@yardmaster ${word}`, onIssue).code).toBe(CommandErrorCode.WrongPlace);
    }
    expect(parse("@yardmaster pause freeze", onIssue)).toMatchObject({ kind: "command" });
    expect(parse("@yardmaster status", onIssue)).toMatchObject({ kind: "command" });
    expect(parse("@yardmaster help", onIssue)).toMatchObject({ kind: "command" });
  });
});
