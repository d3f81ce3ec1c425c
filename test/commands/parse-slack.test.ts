import { describe, expect, it } from "vitest";
import type { SlackPlace } from "../../src/commands/command.js";
import { CommandErrorCode } from "../../src/commands/errors.js";
import { parseSlackCommand } from "../../src/commands/parse.js";
import { Repo } from "../../src/repo.js";

const widgets = Repo.of("acme", "widgets");
const subscribed: SlackPlace = { defaultRepo: widgets };
const command = (text: string, place: SlackPlace = {}) => {
  const parsed = parseSlackCommand(text, place);
  if (parsed.kind !== "command") throw new Error(`refused: ${parsed.error.code}`);
  return parsed.command;
};
const refusal = (text: string, place: SlackPlace = {}) => {
  const parsed = parseSlackCommand(text, place);
  if (parsed.kind !== "refused") throw new Error("expected a refusal");
  return parsed.error;
};

describe("parseSlackCommand", () => {
  it("reads every target form", () => {
    expect(command("pr acme/widgets#42")).toEqual({ name: "pr", repo: widgets, pull: 42 });
    expect(command("pr https://github.com/acme/widgets/pull/42")).toEqual({
      name: "pr",
      repo: widgets,
      pull: 42,
    });
    expect(command("pr <https://github.com/acme/widgets/pull/42|acme/widgets#42>")).toEqual({
      name: "pr",
      repo: widgets,
      pull: 42,
    });
    expect(command("pr https://ghe.example.com/acme/widgets/pull/42/files")).toMatchObject({ pull: 42 });
    expect(command("pr #42", subscribed)).toEqual({ name: "pr", repo: widgets, pull: 42 });
    expect(command("dequeue 42", subscribed)).toEqual({ name: "dequeue", repo: widgets, pull: 42 });
  });

  it("reads each command", () => {
    expect(command("")).toEqual({ name: "help" });
    expect(command("HELP")).toEqual({ name: "help" });
    expect(command("status acme/widgets release/1.x")).toEqual({
      name: "status",
      repo: widgets,
      branch: "release/1.x",
    });
    expect(command("status acme/widgets")).toEqual({ name: "status", repo: widgets });
    expect(command("branches acme/widgets")).toEqual({ name: "branches", repo: widgets });
    expect(command("queue acme/widgets#42 urgent")).toEqual({
      name: "queue",
      repo: widgets,
      pull: 42,
      queueName: "urgent",
    });
    expect(command("requeue acme/widgets#42")).toEqual({ name: "requeue", repo: widgets, pull: 42 });
    expect(command("pause acme/widgets release freeze, back at 5")).toEqual({
      name: "pause",
      repo: widgets,
      reason: "release freeze, back at 5",
    });
    expect(command("resume acme/widgets")).toEqual({ name: "unpause", repo: widgets });
    expect(command("subscribe acme/widgets")).toEqual({
      name: "subscribe",
      repo: widgets,
      groups: ["queue", "pause"],
    });
    expect(command("subscribe acme/widgets branch=release/* events=checks,pause,checks")).toEqual({
      name: "subscribe",
      repo: widgets,
      branchGlob: "release/*",
      groups: ["checks", "pause"],
    });
    expect(command("unsubscribe acme/widgets")).toEqual({ name: "unsubscribe", repo: widgets });
    for (const name of ["subscriptions", "login", "logout", "whoami"])
      expect(command(name)).toEqual({ name });
  });

  it("leaves the repository out in a channel subscribed to exactly one", () => {
    expect(command("status", subscribed)).toEqual({ name: "status", repo: widgets });
    expect(command("status release/1.x", subscribed)).toEqual({
      name: "status",
      repo: widgets,
      branch: "release/1.x",
    });
    expect(command("pause deploy in progress", subscribed)).toEqual({
      name: "pause",
      repo: widgets,
      reason: "deploy in progress",
    });
    expect(command("unpause", subscribed)).toEqual({ name: "unpause", repo: widgets });
    expect(command("branches", subscribed)).toEqual({ name: "branches", repo: widgets });
    expect(refusal("status").code).toBe(CommandErrorCode.MissingArgument);
    expect(refusal("pause deploy").code).toBe(CommandErrorCode.MissingArgument);
    expect(refusal("queue #42").code).toBe(CommandErrorCode.MissingArgument);
    expect(refusal("subscribe", subscribed).code).toBe(CommandErrorCode.MissingArgument);
  });

  it("refuses pull request numbers beyond 2^53-1 instead of rounding them", () => {
    expect(command("pr acme/widgets#9007199254740991")).toMatchObject({ pull: 9007199254740991 });
    const error = refusal("pr acme/widgets#9007199254740992");
    expect(error.code).toBe(CommandErrorCode.InvalidArgument);
    expect(error.details.limit).toBe("a whole number from 0 to 9007199254740991");
    expect(refusal("pr acme/widgets#1.5").code).toBe(CommandErrorCode.InvalidArgument);
  });

  it("refuses bad names, arguments and options with what is expected", () => {
    expect(refusal(`status ${"a".repeat(41)}/widgets`).code).toBe(CommandErrorCode.MissingArgument);
    expect(refusal(`pause acme/widgets ${"x".repeat(256)}`).details).toMatchObject({ argument: "reason" });
    expect(refusal("subscribe acme/widgets events=deploys").details).toMatchObject({ argument: "events" });
    expect(refusal("subscribe acme/widgets colour=blue").details).toMatchObject({ argument: "option" });
    expect(refusal("dequeue acme/widgets#1 now").code).toBe(CommandErrorCode.UnexpectedArgument);
    expect(refusal("whoami please").code).toBe(CommandErrorCode.UnexpectedArgument);
    expect(refusal("unsubscribe acme/widgets#4").code).toBe(CommandErrorCode.InvalidArgument);
  });

  it("suggests near misses", () => {
    expect(refusal("stauts").details.suggestion).toBe("status");
    expect(refusal("subscibe acme/widgets").details.suggestion).toBe("subscribe");
    expect(refusal("frobnicate").details.suggestion).toBeUndefined();
  });
});
