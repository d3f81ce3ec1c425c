import { describe, expect, it } from "vitest";
import type { SlackPlace } from "../../../src/commands/command.js";
import { CommandErrorCode } from "../../../src/commands/errors.js";
import { parseSlackCommand } from "../../../src/commands/grammar/parse.js";
import { Repo } from "../../../src/repo.js";

const widgets = Repo.of("acme", "widgets");
/** A channel subscribed to no repository, or to more than one, on github.com. */
const anywhere: SlackPlace = { githubWebUrl: "https://github.com" };
const subscribed: SlackPlace = { defaultRepo: widgets, githubWebUrl: "https://github.com" };
const command = (text: string, place: SlackPlace = anywhere) => {
  const parsed = parseSlackCommand(text, place);
  if (parsed.kind !== "command") throw new Error(`refused: ${parsed.error.code}`);
  return parsed.command;
};
const refusal = (text: string, place: SlackPlace = anywhere) => {
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
    expect(command("pr https://github.com/acme/widgets/pull/42/files#diff-1")).toMatchObject({ pull: 42 });
    expect(command("pr https://GitHub.com:443/acme/widgets/pull/42?w=1")).toMatchObject({ pull: 42 });
    const ghe: SlackPlace = { githubWebUrl: "http://ghe.example.com:8080" };
    expect(command("pr http://ghe.example.com:8080/acme/widgets/pull/42/files", ghe)).toMatchObject({
      pull: 42,
    });
    expect(command("status http://ghe.example.com:8080/acme/widgets", ghe)).toEqual({
      name: "status",
      repo: widgets,
    });
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
      groups: ["queue", "pause", "health"],
    });
    expect(command("subscribe acme/widgets branch=release/* events=checks,pause,checks")).toEqual({
      name: "subscribe",
      repo: widgets,
      branchGlob: "release/*",
      groups: ["checks", "pause"],
    });
    expect(command("subscribe acme/widgets digest=weekly")).toEqual({
      name: "subscribe",
      repo: widgets,
      groups: ["queue", "pause", "health"],
      digest: "weekly",
    });
    expect(command("subscribe acme/widgets events=queue digest=off")).toEqual({
      name: "subscribe",
      repo: widgets,
      groups: ["queue"],
    });
    expect(command("stats acme/widgets")).toEqual({ name: "stats", repo: widgets, period: "7d" });
    expect(command("stats acme/widgets 24H")).toEqual({ name: "stats", repo: widgets, period: "24h" });
    expect(command("stats 30d", subscribed)).toEqual({ name: "stats", repo: widgets, period: "30d" });
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
    expect(command("pause deploy in progress until 18:00 Europe/Paris", subscribed)).toEqual({
      name: "pause",
      repo: widgets,
      reason: "deploy in progress",
      resume: { kind: "until", date: null, hour: 18, minute: 0, zone: "Europe/Paris" },
    });
    expect(command("pause acme/widgets release freeze for 1h30m")).toEqual({
      name: "pause",
      repo: widgets,
      reason: "release freeze",
      resume: { kind: "for", ms: 90 * 60_000 },
    });
    expect(refusal("pause acme/widgets for 2h").code).toBe(CommandErrorCode.MissingArgument);
    expect(refusal("pause acme/widgets freeze until 24:00").code).toBe(CommandErrorCode.InvalidArgument);
    expect(command("unpause", subscribed)).toEqual({ name: "unpause", repo: widgets });
    expect(command("branches", subscribed)).toEqual({ name: "branches", repo: widgets });
    expect(refusal("status").code).toBe(CommandErrorCode.MissingArgument);
    expect(refusal("pause deploy").code).toBe(CommandErrorCode.MissingArgument);
    expect(refusal("queue #42").code).toBe(CommandErrorCode.MissingArgument);
    expect(refusal("subscribe", subscribed).code).toBe(CommandErrorCode.MissingArgument);
  });

  it("accepts URLs of the configured GitHub only, and names it when refusing another", () => {
    const refusedUrl = (text: string, place: SlackPlace = anywhere) => {
      const error = refusal(text, place);
      expect(error.code, text).toBe(CommandErrorCode.InvalidArgument);
      expect(error.details, text).toMatchObject({ argument: "URL" });
      return error.details.limit;
    };
    expect(refusedUrl("pr https://evil.example/acme/widgets/pull/1")).toBe(
      "on https://github.com, the GitHub this Yardmaster serves",
    );
    for (const text of [
      "pr <https://evil.example/acme/widgets/pull/1|acme/widgets#1>",
      "pr http://github.com/acme/widgets/pull/1",
      "pr https://github.com:8443/acme/widgets/pull/1",
      "pr https://www.github.com/acme/widgets/pull/1",
      "pr https://github.com.evil.example/acme/widgets/pull/1",
      "pr https://github.com@evil.example/acme/widgets/pull/1",
      "pr https://octocat@github.com/acme/widgets/pull/1",
      "queue https://evil.example/acme/widgets/pull/1",
      "status https://evil.example/acme/widgets",
      "pause https://evil.example/acme/widgets freeze",
      "subscribe https://evil.example/acme/widgets",
    ]) {
      refusedUrl(text);
    }
    // In a channel with a default repository, a URL is never read as a branch or a reason.
    refusedUrl("status https://evil.example/acme/widgets", subscribed);
    refusedUrl("pause https://evil.example/acme/widgets freeze", subscribed);
    // On GitHub Enterprise Server, github.com is another host.
    const ghe: SlackPlace = { githubWebUrl: "https://ghe.example.com" };
    expect(refusedUrl("pr https://github.com/acme/widgets/pull/1", ghe)).toBe(
      "on https://ghe.example.com, the GitHub this Yardmaster serves",
    );
    // A URL of the right host that is not a repository or pull request is no target.
    expect(refusal("pr https://github.com/acme/widgets/../../x/pull/1").code).toBe(
      CommandErrorCode.MissingArgument,
    );
    expect(refusal("pr https://github.com/acme/widgets/issues/1").code).toBe(
      CommandErrorCode.MissingArgument,
    );
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
    expect(refusal("subscribe acme/widgets digest=daily").details).toMatchObject({ argument: "option" });
    expect(refusal("stats acme/widgets 90d").details).toMatchObject({
      argument: "period",
      limit: "24h, 7d or 30d",
    });
    expect(refusal("stats acme/widgets 7d extra").code).toBe(CommandErrorCode.UnexpectedArgument);
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
