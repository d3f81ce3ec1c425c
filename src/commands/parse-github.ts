import type { Repo } from "../repo.js";

import { branchName, noArguments, pauseReason, queueName, words } from "./arguments.js";
import type { MergeQueueCommand } from "./command.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import { resolveCommandWord } from "./resolve-word.js";

/** Where a GitHub comment was written. */
export interface CommentPlace {
  repo: Repo;
  /** The issue or pull request number. */
  number: number;
  isPullRequest: boolean;
}

export type GitHubParse =
  /** Not addressed to the app: stay silent. */
  | { kind: "ignored" }
  /** `typed` is what followed the mention, e.g. "queue urgent". */
  | { kind: "command"; command: MergeQueueCommand; typed: string }
  | { kind: "refused"; error: CommandError; typed: string };

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The grammar of PRODUCT.md section 2: the first line starts with `@<app-slug>` (any case), one or
 * more spaces, the command word and its arguments. Everything after the first line is ignored.
 */
export function parseGitHubComment(body: string, appSlug: string, place: CommentPlace): GitHubParse {
  const firstLine = body.replace(/^\uFEFF/, "").split(/\r?\n/, 1)[0] ?? "";
  const mention = new RegExp(`^ {0,3}@${escapeRegExp(appSlug)}(?:\\[bot\\])?(?=\\s|$)(.*)$`, "i");
  const match = mention.exec(firstLine);
  if (!match) return { kind: "ignored" };
  const rest = (match[1] ?? "").trim();
  try {
    const [word = "", ...args] = words(rest);
    if (word === "") throw new CommandError(CommandErrorCode.NotACommand, { surface: "github" });
    const name = resolveCommandWord(word, "github");
    const argText = rest.slice(word.length).trim();
    return { kind: "command", command: build(name, argText, args, place), typed: rest };
  } catch (error) {
    if (error instanceof CommandError) return { kind: "refused", error, typed: rest };
    throw error;
  }
}

function build(name: string, argText: string, args: string[], place: CommentPlace): MergeQueueCommand {
  const { repo } = place;
  const onPullRequest = (command: "queue" | "dequeue" | "requeue") => {
    if (!place.isPullRequest) {
      throw new CommandError(CommandErrorCode.WrongPlace, { command, surface: "github" });
    }
    return place.number;
  };
  switch (name) {
    case "queue": {
      const pull = onPullRequest("queue");
      if (args.length > 1) {
        throw new CommandError(CommandErrorCode.UnexpectedArgument, {
          command: "queue",
          argument: args.slice(1).join(" "),
        });
      }
      return args[0]
        ? { name: "queue", repo, pull, queueName: queueName("queue", args[0]) }
        : { name: "queue", repo, pull };
    }
    case "dequeue":
    case "requeue": {
      const pull = onPullRequest(name);
      noArguments(name, argText);
      return { name, repo, pull };
    }
    case "pause":
      return { name: "pause", repo, reason: pauseReason("pause", argText) };
    case "unpause":
      noArguments("unpause", argText);
      return { name: "unpause", repo };
    case "status": {
      if (args.length > 1) {
        throw new CommandError(CommandErrorCode.UnexpectedArgument, {
          command: "status",
          argument: args.slice(1).join(" "),
        });
      }
      return args[0]
        ? { name: "status", repo, branch: branchName("status", args[0]) }
        : { name: "status", repo };
    }
    case "help":
      return { name: "help" };
    default:
      // The catalog says which commands exist on GitHub; resolveCommandWord refused the others.
      throw new Error(`no GitHub grammar for ${name}`);
  }
}
