import type { PermissionLevel } from "./permission-level.js";

/**
 * The shape every coded error of Yardmaster has (as Bolt's `CodedError`): a code from its own closed enum,
 * which callers switch on, never on the message; what else it carries is its own (the merge queue's
 * status and detail, a command's details). Implemented by `QueueError`
 * (src/core/queue-error.ts; Mergify's `MergeQueueError` is one) and `CommandError` (below). The closed codes
 * live in the core: the commands, the backends and the features throw them (src/commands/errors.ts
 * re-exports them for the commands).
 */
export interface CodedError<Code extends string> extends Error {
  readonly code: Code;
}

/** Why a command did not do what was asked. Surfaces render these; nobody matches on message text. */
export enum CommandErrorCode {
  // Refusals: decided before anything is called.
  NotACommand = "not_a_command",
  UnknownCommand = "unknown_command",
  OtherSurface = "other_surface",
  MissingArgument = "missing_argument",
  InvalidArgument = "invalid_argument",
  UnexpectedArgument = "unexpected_argument",
  WrongPlace = "wrong_place",
  NotLinked = "not_linked",
  PermissionDenied = "permission_denied",
  /** A Slack button whose value is not exactly what this version writes. */
  UnreadableButton = "unreadable_button",
  /** The repository's merge queue cannot do this (GitHub's merge queue has no pause). */
  NotOnThisQueue = "not_on_this_queue",
  // Failures: something was called and said no, or could not be reached.
  MergeQueueForbidden = "merge_queue_forbidden",
  MergeQueueNotFound = "merge_queue_not_found",
  NotInQueue = "not_in_queue",
  MergeQueueConflict = "merge_queue_conflict",
  MergeQueueInvalid = "merge_queue_invalid",
  MergeQueueUnavailable = "merge_queue_unavailable",
  MergeQueueTimeout = "merge_queue_timeout",
  MergeQueueRateLimited = "merge_queue_rate_limited",
  MergeQueueMalformed = "merge_queue_malformed",
  GitHubFailed = "github_failed",
  /** GitHub does not know the repository, or the GitHub App is not installed on it (404). */
  GitHubRepositoryNotFound = "github_repository_not_found",
  /** GitHub refused the GitHub App the repository (403). */
  GitHubRepositoryForbidden = "github_repository_forbidden",
  NotAPullRequest = "not_a_pull_request",
  NotPaused = "not_paused",
  NotSubscribed = "not_subscribed",
  Unavailable = "unavailable",
}

export interface CommandErrorDetails {
  /** The command's name (a CommandName: typed as a string so that command modules can use this file). */
  command?: string;
  /** The word that was typed, for unknown commands. */
  typed?: string;
  suggestion?: string;
  /** Which argument, and what its limit is. */
  argument?: string;
  limit?: string;
  needed?: PermissionLevel;
  held?: PermissionLevel;
  login?: string;
  repository?: string;
  pull?: number;
  /** The merge-queue service's own words (its `detail`), or GitHub's message. */
  detail?: string;
  status?: number;
  surface?: "github" | "slack";
}

export class CommandError extends Error implements CodedError<CommandErrorCode> {
  constructor(
    readonly code: CommandErrorCode,
    readonly details: CommandErrorDetails = {},
    message?: string,
  ) {
    super(message ?? code);
    this.name = "CommandError";
  }

  /** True when nothing was called: the command was refused as typed or for the person. */
  get isRefusal(): boolean {
    return REFUSALS.has(this.code);
  }
}

const REFUSALS = new Set<CommandErrorCode>([
  CommandErrorCode.NotACommand,
  CommandErrorCode.UnknownCommand,
  CommandErrorCode.OtherSurface,
  CommandErrorCode.MissingArgument,
  CommandErrorCode.InvalidArgument,
  CommandErrorCode.UnexpectedArgument,
  CommandErrorCode.WrongPlace,
  CommandErrorCode.NotLinked,
  CommandErrorCode.PermissionDenied,
  CommandErrorCode.UnreadableButton,
  CommandErrorCode.NotOnThisQueue,
]);
