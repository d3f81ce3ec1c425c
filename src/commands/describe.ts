import { type Description, sentence, type TextFormat } from "../wording/description.js";
import { clip } from "../wording/words.js";
import { COMMANDS, type CommandName, type CommandResult, moduleOf } from "./catalog.js";
import type { Surface, SurfaceContext } from "./command.js";
import { type CommandError, CommandErrorCode, type CommandErrorDetails } from "./errors.js";
import type { CommandOutcome } from "./run.js";

/**
 * Results and errors in words, for both surfaces: the command's module describes its result, and
 * this file describes every error. A surface lays the description out and adds nothing but layout.
 */
export function describeOutcome(outcome: CommandOutcome, context: SurfaceContext): Description {
  return outcome.ok
    ? describeResult(outcome.result, context)
    : describeFailure(outcome.error, context.surface);
}

export function describeResult(result: CommandResult, context: SurfaceContext): Description {
  return moduleOf(result.name).describe(result, {
    ...context,
    commands: Object.values(COMMANDS),
    error: (error) => (f) => describeError(error, f, context.surface),
  });
}

/** 🚫 when the command was refused before anything was called, ⚠️ when something failed. */
export function describeFailure(error: CommandError, surface: Surface): Description {
  return sentence((f) => `${error.isRefusal ? "🚫" : "⚠️"} ${describeError(error, f, surface)}`);
}

/** Errors that are not CommandErrors are bugs; describe them without leaking internals. */
export function describeUnexpected(): Description {
  return sentence(() => "⚠️ Something went wrong inside Yardmaster; the error is in its logs.");
}

function usage(command: string, f: TextFormat, surface: Surface): string {
  const text = command in COMMANDS ? COMMANDS[command as CommandName].usage[surface] : undefined;
  return f.code(`${f.invocation} ${text ?? command}`);
}

/** What came from outside is cut to a readable length first (the merge queue's `detail` is unbounded). */
function clipped(details: CommandErrorDetails): CommandErrorDetails {
  const out: CommandErrorDetails = { ...details };
  for (const key of ["typed", "suggestion", "argument", "limit", "login", "repository", "detail"] as const) {
    const value = details[key];
    if (value !== undefined) out[key] = clip(value, key === "detail" ? 500 : 200);
  }
  return out;
}

/**
 * One sentence (or two) that tells a person what went wrong and what to do, for every error code.
 * Every detail is escaped (or put in a code span) here, whoever filled it in: callers pass raw text.
 */
export function describeError(error: CommandError, f: TextFormat, surface: Surface): string {
  const d = clipped(error.details);
  const cmd = d.command ?? "";
  const repo = d.repository ? f.code(d.repository) : "this repository";
  const pull = d.pull !== undefined ? `#${d.pull}` : "the pull request";
  const detail = d.detail ? ` The merge queue said: ${f.escape(d.detail)}` : "";
  const help = f.code(`${f.invocation} help`);
  const how = usage(cmd || "help", f, surface);
  switch (error.code) {
    case CommandErrorCode.NotACommand:
      return `Which command? Try ${help} for the list.`;
    case CommandErrorCode.UnknownCommand:
      return d.suggestion
        ? `${f.code(d.typed ?? "")} is not a command. Did you mean ${f.code(d.suggestion)}? Try ${help} for the list.`
        : `${f.code(d.typed ?? "")} is not a command. Try ${help} for the list.`;
    case CommandErrorCode.OtherSurface:
      return surface === "github"
        ? `${f.code(cmd)} is a Slack command: use ${f.code(`/mq ${cmd}`)} in Slack.`
        : `${f.code(cmd)} only works in a pull-request comment.`;
    case CommandErrorCode.MissingArgument:
      return `${f.code(cmd)} needs a ${f.escape(d.argument ?? "argument")}: ${how}.`;
    case CommandErrorCode.InvalidArgument:
      if (d.limit) return `The ${f.escape(d.argument ?? "argument")} must be ${f.escape(d.limit)}: ${how}.`;
      return `${d.detail ? f.escape(d.detail) : `The ${f.escape(d.argument ?? "argument")} is not valid`}: ${how}.`;
    case CommandErrorCode.UnexpectedArgument:
      return `${f.code(cmd)} does not take ${f.code(d.argument ?? "")}: ${how}.`;
    case CommandErrorCode.WrongPlace:
      return d.detail
        ? `Cannot ${cmd} ${pull}: ${f.escape(d.detail)}.`
        : `${f.code(cmd)} works on a pull request, not on an issue.`;
    case CommandErrorCode.NotLinked:
      return `${f.code(cmd)} needs to know who you are on GitHub: link your account with ${f.code("/mq login")} first.`;
    case CommandErrorCode.PermissionDenied:
      // Asked of no one repository (doctor: admin of any subscribed repository).
      if (d.repository === undefined)
        return `${f.code(cmd)} needs ${f.bold(d.needed ?? "")} permission on a subscribed repository; ${f.escape(d.login ?? "you")} has it on none${d.detail ? ` (${f.escape(d.detail)})` : ""}.`;
      return `${f.code(cmd)} needs ${f.bold(d.needed ?? "")} permission on ${repo}; ${f.escape(d.login ?? "you")} has ${f.bold(d.held ?? "none")}.`;
    case CommandErrorCode.UnreadableButton:
      return `This button does not hold a command this version of Yardmaster wrote, so nothing was run: ${cmd ? `type ${how} instead` : `see ${help}`}.`;
    case CommandErrorCode.NotOnThisQueue:
      return `${f.code(cmd)} does not work on ${repo}: ${f.escape(d.detail ?? "its merge queue cannot do it")}.`;
    case CommandErrorCode.MergeQueueForbidden:
      return `The merge queue refused access to ${repo} (403): its API token has no access to this repository.${detail}`;
    case CommandErrorCode.MergeQueueNotFound:
      return `The merge queue does not know ${repo} (404): is it set up for this repository?${detail}`;
    case CommandErrorCode.NotInQueue:
      return `${pull} is not in any merge queue.`;
    case CommandErrorCode.MergeQueueConflict:
      return `The merge queue refused: the queue of ${repo} is in a conflicting state (409).${detail}`;
    case CommandErrorCode.MergeQueueInvalid:
      return `The merge queue rejected the request (422).${detail}`;
    case CommandErrorCode.MergeQueueUnavailable:
      return `The merge queue is unavailable right now${d.status ? ` (${d.status})` : ""}. Try again in a minute.`;
    case CommandErrorCode.MergeQueueTimeout:
      return "The merge queue did not answer in time. Try again in a minute.";
    case CommandErrorCode.MergeQueueRateLimited:
      return "The merge queue is rate limiting Yardmaster; try again in a minute.";
    case CommandErrorCode.MergeQueueMalformed:
      return `The merge queue sent an answer Yardmaster could not read${d.argument ? ` (at ${f.code(d.argument)})` : ""}.`;
    case CommandErrorCode.GitHubFailed:
      return `GitHub did not answer as expected${d.detail ? `: ${f.escape(d.detail)}` : ""}.`;
    case CommandErrorCode.GitHubRepositoryNotFound:
      return `GitHub does not know ${repo}, or Yardmaster's GitHub App is not installed on it (404): check the repository's name (was it renamed or deleted?), and install the app on it, or add it to the app's installation.`;
    case CommandErrorCode.GitHubRepositoryForbidden:
      return `GitHub refused Yardmaster's GitHub App access to ${repo} (403): install the app on it, or add it to the app's installation, and make sure the installation accepted the permissions the app asks for.`;
    case CommandErrorCode.NotAPullRequest:
      return `${pull} is not a pull request of ${repo}.`;
    case CommandErrorCode.NotPaused:
      return `The merge queue of ${repo} is not paused${d.detail ? `: ${f.escape(d.detail)}` : ""}.`;
    case CommandErrorCode.NotSubscribed:
      return `This channel is not subscribed to ${repo}. ${f.code("/mq subscriptions")} lists what it is subscribed to.`;
    case CommandErrorCode.Unavailable:
      return `That is not available here${d.detail ? `: ${f.escape(d.detail)}` : ""}.`;
  }
}
