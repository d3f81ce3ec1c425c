import type { Repo } from "../repo.js";

import { branchName, pauseReason, queueName, words } from "./arguments.js";
import type { COMMANDS } from "./catalog.js";
import { type Command, EVENT_GROUPS, type EventGroup } from "./command.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import { resolveCommandWord } from "./resolve-word.js";
import { parseTarget } from "./targets.js";

export interface SlackPlace {
  /** The repository when the channel is subscribed to exactly one; it may then be left out. */
  defaultRepo?: Repo;
}

export type SlackParse = { kind: "command"; command: Command } | { kind: "refused"; error: CommandError };

export const DEFAULT_EVENT_GROUPS: EventGroup[] = ["queue", "pause"];

/**
 * The grammar of PRODUCT.md section 3: `/mq <command> [arguments]`. An empty text is `help`.
 * Where a repository may be left out and one word could be a repository or a branch (`status x/y`),
 * it is a repository unless the channel has a default repository and the word does not start with
 * that repository's owner, in which case it is a branch.
 */
export function parseSlackCommand(text: string, place: SlackPlace = {}): SlackParse {
  try {
    const [word, ...args] = words(text);
    if (!word) return { kind: "command", command: { name: "help" } };
    const name = resolveCommandWord(word, "slack");
    return { kind: "command", command: build(name, args, text.trim().slice(word.length).trim(), place) };
  } catch (error) {
    if (error instanceof CommandError) return { kind: "refused", error };
    throw error;
  }
}

function missing(command: keyof typeof COMMANDS, argument: string): never {
  throw new CommandError(CommandErrorCode.MissingArgument, { command, argument, surface: "slack" });
}

function unexpected(command: keyof typeof COMMANDS, rest: string[]): void {
  if (rest.length)
    throw new CommandError(CommandErrorCode.UnexpectedArgument, { command, argument: rest.join(" ") });
}

function build(name: keyof typeof COMMANDS, args: string[], argText: string, place: SlackPlace): Command {
  /** A repository: the first argument if it is one, else the channel's default. */
  const repoArg = (requireExplicit = false): { repo: Repo; rest: string[] } => {
    const first = args[0];
    const target = first === undefined ? undefined : parseTarget(name, first);
    if (target?.repo && target.pull === undefined) return { repo: target.repo, rest: args.slice(1) };
    if (target?.pull !== undefined) {
      throw new CommandError(CommandErrorCode.InvalidArgument, {
        command: name,
        argument: "repository",
        limit: "owner/repo (without a pull request number)",
      });
    }
    if (!requireExplicit && place.defaultRepo) return { repo: place.defaultRepo, rest: args };
    return missing(name, "repository (owner/repo)");
  };
  /** A pull request: owner/repo#123, a URL, or #123 with the channel's default repository. */
  const pullArg = (): { repo: Repo; pull: number; rest: string[] } => {
    const first = args[0];
    if (first === undefined) return missing(name, "pull request (owner/repo#123 or its URL)");
    const target = parseTarget(name, first);
    if (target?.pull === undefined) return missing(name, "pull request (owner/repo#123 or its URL)");
    const repo = target.repo ?? place.defaultRepo;
    if (!repo) return missing(name, "repository: write owner/repo#123");
    return { repo, pull: target.pull, rest: args.slice(1) };
  };

  switch (name) {
    case "status": {
      if (args.length >= 2) {
        const { repo, rest } = repoArg(true);
        const [branch, ...extra] = rest;
        unexpected(name, extra);
        return { name, repo, branch: branchName(name, branch ?? "") };
      }
      if (args.length === 1 && place.defaultRepo && !namesRepository(args[0] ?? "", place.defaultRepo)) {
        return { name, repo: place.defaultRepo, branch: branchName(name, args[0] ?? "") };
      }
      const { repo, rest } = repoArg();
      unexpected(name, rest);
      return { name, repo };
    }
    case "branches":
    case "unpause": {
      const { repo, rest } = repoArg();
      unexpected(name, rest);
      return { name, repo };
    }
    case "unsubscribe": {
      const { repo, rest } = repoArg(true);
      unexpected(name, rest);
      return { name, repo };
    }
    case "pr":
    case "dequeue":
    case "requeue": {
      const { repo, pull, rest } = pullArg();
      unexpected(name, rest);
      return { name, repo, pull };
    }
    case "queue": {
      const { repo, pull, rest } = pullArg();
      const [queue, ...extra] = rest;
      unexpected(name, extra);
      return queue ? { name, repo, pull, queueName: queueName(name, queue) } : { name, repo, pull };
    }
    case "pause": {
      const first = args[0] ? parseTarget(name, args[0]) : undefined;
      if (first?.repo && first.pull === undefined) {
        return { name, repo: first.repo, reason: pauseReason(name, argText.slice(args[0]?.length ?? 0)) };
      }
      if (!place.defaultRepo) return missing(name, "repository (owner/repo)");
      return { name, repo: place.defaultRepo, reason: pauseReason(name, argText) };
    }
    case "subscribe": {
      const { repo, rest } = repoArg(true);
      let branchGlob: string | undefined;
      let groups: EventGroup[] = DEFAULT_EVENT_GROUPS;
      for (const option of rest) {
        const [key, value = ""] = option.split(/=(.*)/s, 2) as [string, string?];
        if (key === "branch" && value) branchGlob = branchName(name, value);
        else if (key === "events" && value) groups = eventGroups(value);
        else {
          throw new CommandError(CommandErrorCode.InvalidArgument, {
            command: name,
            argument: "option",
            limit: "branch=<glob> or events=<group,...>",
          });
        }
      }
      return branchGlob ? { name, repo, branchGlob, groups } : { name, repo, groups };
    }
    case "subscriptions":
    case "login":
    case "logout":
    case "whoami":
    case "help":
      if (name !== "help") unexpected(name, args);
      return { name };
  }
}

/**
 * Whether one word after `status`, in a channel with a default repository, names a repository rather
 * than a branch: a URL, or `owner/repo` whose owner is the default repository's (branches such as
 * `release/1.x` rarely start with the organization's name).
 */
function namesRepository(word: string, defaultRepo: Repo): boolean {
  if (/^<|^https?:/.test(word)) return true;
  const target = parseTarget("status", word);
  return target?.repo?.owner.toLowerCase() === defaultRepo.owner.toLowerCase();
}

function eventGroups(value: string): EventGroup[] {
  const groups = value.split(",").filter(Boolean);
  const unknown = groups.filter((g) => !(EVENT_GROUPS as readonly string[]).includes(g));
  if (unknown.length || groups.length === 0) {
    throw new CommandError(CommandErrorCode.InvalidArgument, {
      command: "subscribe",
      argument: "events",
      limit: `a comma-separated list of ${EVENT_GROUPS.join(", ")}`,
    });
  }
  return [...new Set(groups)] as EventGroup[];
}
