import type { CodedError } from "../../core/errors.js";

/** What went wrong, as a closed set: callers switch on `code`, never on the message. */
export enum MergeQueueErrorCode {
  /** An argument is outside the interface's limits; nothing was sent. */
  InvalidInput = "invalid_input",
  /** 401 or 403: the token may not do this. */
  Forbidden = "forbidden",
  /** 404. */
  NotFound = "not_found",
  /** 404 on the single-pull-request endpoint: the pull request is in no merge queue. */
  NotInQueue = "not_in_queue",
  /** 409. */
  Conflict = "conflict",
  /** 422 (or another 4xx): the service refused the request as invalid. */
  Invalid = "invalid",
  /** 5xx, a network failure, or an unexpected answer. */
  Unavailable = "unavailable",
  /** An attempt did not finish within `timeoutMs`. */
  Timeout = "timeout",
  /** 429, still after the retries. */
  RateLimited = "rate_limited",
  /** A success answer that is not JSON or does not fit the schema. */
  MalformedResponse = "malformed_response",
}

export interface MergeQueueErrorDetails {
  /** HTTP status of the last answer, when there was one. */
  status?: number;
  /** The service's own explanation (`detail` of the error body), when it gave one. */
  detail?: string;
  /** For InvalidInput and MalformedResponse: the path of the field at fault, e.g. `batches[0].status.code`. */
  field?: string;
  /** For RateLimited (and 5xx with Retry-After): how long the service asked to wait. */
  retryAfterSeconds?: number;
  cause?: unknown;
}

export class MergeQueueError extends Error implements CodedError<MergeQueueErrorCode> {
  override readonly name = "MergeQueueError";
  readonly code: MergeQueueErrorCode;
  readonly status?: number;
  readonly detail?: string;
  readonly field?: string;
  readonly retryAfterSeconds?: number;

  constructor(code: MergeQueueErrorCode, message: string, details: MergeQueueErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    if (details.status !== undefined) this.status = details.status;
    if (details.detail !== undefined) this.detail = details.detail;
    if (details.field !== undefined) this.field = details.field;
    if (details.retryAfterSeconds !== undefined) this.retryAfterSeconds = details.retryAfterSeconds;
  }
}

export function isMergeQueueError(error: unknown, code?: MergeQueueErrorCode): error is MergeQueueError {
  return error instanceof MergeQueueError && (code === undefined || error.code === code);
}

/** `["batches", 0, "status", "code"]` → `batches[0].status.code`; the empty path is `(root)`. */
export function formatFieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out === "" ? "(root)" : out;
}
