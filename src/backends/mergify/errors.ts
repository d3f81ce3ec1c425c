import { QueueErrorCode as MergeQueueErrorCode, QueueError } from "../../core/queue-error.js";

/** What went wrong, as a closed set: the core's (src/core/queue-error.ts), under Mergify's client's name. */
export { MergeQueueErrorCode };

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

/** Mergify's client's failure: the core's QueueError, with how long the service asked to wait. */
export class MergeQueueError extends QueueError {
  override readonly name = "MergeQueueError";
  readonly retryAfterSeconds?: number;

  constructor(code: MergeQueueErrorCode, message: string, details: MergeQueueErrorDetails = {}) {
    super(code, message, details);
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
