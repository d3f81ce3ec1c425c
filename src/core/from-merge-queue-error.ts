import { CommandError, CommandErrorCode } from "./errors.js";
import { QueueErrorCode as MergeQueueErrorCode, QueueError } from "./queue-error.js";

const CODES: Record<MergeQueueErrorCode, CommandErrorCode> = {
  [MergeQueueErrorCode.InvalidInput]: CommandErrorCode.InvalidArgument,
  [MergeQueueErrorCode.Forbidden]: CommandErrorCode.MergeQueueForbidden,
  [MergeQueueErrorCode.NotFound]: CommandErrorCode.MergeQueueNotFound,
  [MergeQueueErrorCode.NotInQueue]: CommandErrorCode.NotInQueue,
  [MergeQueueErrorCode.Conflict]: CommandErrorCode.MergeQueueConflict,
  [MergeQueueErrorCode.Invalid]: CommandErrorCode.MergeQueueInvalid,
  [MergeQueueErrorCode.Unavailable]: CommandErrorCode.MergeQueueUnavailable,
  [MergeQueueErrorCode.Timeout]: CommandErrorCode.MergeQueueTimeout,
  [MergeQueueErrorCode.RateLimited]: CommandErrorCode.MergeQueueRateLimited,
  [MergeQueueErrorCode.MalformedResponse]: CommandErrorCode.MergeQueueMalformed,
  [MergeQueueErrorCode.RepositoryNotFound]: CommandErrorCode.GitHubRepositoryNotFound,
  [MergeQueueErrorCode.RepositoryForbidden]: CommandErrorCode.GitHubRepositoryForbidden,
};

/** Turns what a merge queue's client threw (a QueueError) into the core's error; anything else is rethrown. */
export function fromMergeQueueError(
  error: unknown,
  context: { command: string; repository: string; pull?: number },
): CommandError {
  if (error instanceof CommandError) return error;
  if (!(error instanceof QueueError)) throw error;
  return new CommandError(
    CODES[error.code],
    {
      ...context,
      ...(error.detail !== undefined ? { detail: error.detail } : {}),
      ...(error.status !== undefined ? { status: error.status } : {}),
      ...(error.field !== undefined ? { argument: error.field } : {}),
      // For input the client refused, its message names the field and the limit.
      ...(error.code === MergeQueueErrorCode.InvalidInput ? { detail: error.message } : {}),
    },
    error.message,
  );
}
