import type { CodedError } from "./errors.js";

/**
 * How a merge queue's API failed, as a closed set, whatever the backend: callers switch on `code`, never
 * on the message. A backend's client throws a QueueError (Mergify's MergeQueueError is one); the command
 * core turns it into its own CommandError (src/core/from-merge-queue-error.ts).
 */
export enum QueueErrorCode {
  /** An argument is outside the interface's limits; nothing was sent. */
  InvalidInput = "invalid_input",
  /** 401 or 403: the token may not do this. */
  Forbidden = "forbidden",
  /** 404. */
  NotFound = "not_found",
  /** The pull request is in no merge queue. */
  NotInQueue = "not_in_queue",
  /** 409. */
  Conflict = "conflict",
  /** 422 (or another 4xx): the service refused the request as invalid. */
  Invalid = "invalid",
  /** 5xx, a network failure, or an unexpected answer. */
  Unavailable = "unavailable",
  /** An attempt did not finish in time. */
  Timeout = "timeout",
  /** 429, still after the retries. */
  RateLimited = "rate_limited",
  /** A success answer that is not JSON or does not fit the schema. */
  MalformedResponse = "malformed_response",
  /**
   * GitHub answered 404 for the repository itself (or the GitHub App's installation on it): the app is not
   * installed there, or the repository was renamed or deleted.
   */
  RepositoryNotFound = "repository_not_found",
  /** GitHub answered 403 for the repository itself: the app's installation may not read it. */
  RepositoryForbidden = "repository_forbidden",
}

export interface QueueErrorDetails {
  /** HTTP status of the last answer, when there was one. */
  status?: number;
  /** The service's own explanation, when it gave one. */
  detail?: string;
  /** For InvalidInput and MalformedResponse: the path of the field at fault, e.g. `batches[0].status.code`. */
  field?: string;
  cause?: unknown;
}

export class QueueError extends Error implements CodedError<QueueErrorCode> {
  override readonly name: string = "QueueError";
  readonly code: QueueErrorCode;
  readonly status?: number;
  readonly detail?: string;
  readonly field?: string;

  constructor(code: QueueErrorCode, message: string, details: QueueErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    if (details.status !== undefined) this.status = details.status;
    if (details.detail !== undefined) this.detail = details.detail;
    if (details.field !== undefined) this.field = details.field;
  }
}
