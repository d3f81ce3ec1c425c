import { MergeQueueErrorCode } from "./errors.js";

/** The error code for a final non-2xx answer. */
export function errorCodeForStatus(status: number): MergeQueueErrorCode {
  if (status === 401 || status === 403) return MergeQueueErrorCode.Forbidden;
  if (status === 404) return MergeQueueErrorCode.NotFound;
  if (status === 409) return MergeQueueErrorCode.Conflict;
  if (status === 429) return MergeQueueErrorCode.RateLimited;
  if (status >= 400 && status < 500) return MergeQueueErrorCode.Invalid;
  return MergeQueueErrorCode.Unavailable;
}

/** Answers worth another attempt: the service is overloaded or failing, never a refusal. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

const MAX_DETAIL_LENGTH = 1_000;

/**
 * The service's explanation from an error body: `{"detail": "text"}`, or FastAPI's validation list
 * `{"detail": [{"loc": ["body", "reason"], "msg": "...", "type": "..."}]}` joined as
 * `body.reason: ...; ...`. Anything else (not JSON, no detail) gives undefined, never an exception.
 */
export function extractErrorDetail(bodyText: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    return undefined;
  }
  if (typeof body !== "object" || body === null || !("detail" in body)) return undefined;
  const { detail } = body;
  let text: string | undefined;
  if (typeof detail === "string") text = detail;
  else if (Array.isArray(detail)) {
    const parts = detail.map(describeValidationItem).filter((part) => part !== "");
    text = parts.length > 0 ? parts.join("; ") : undefined;
  }
  if (text === undefined || text.trim() === "") return undefined;
  return text.length > MAX_DETAIL_LENGTH ? `${text.slice(0, MAX_DETAIL_LENGTH)}…` : text;
}

function describeValidationItem(item: unknown): string {
  if (typeof item === "string") return item;
  if (typeof item !== "object" || item === null) return "";
  const msg = "msg" in item && typeof item.msg === "string" ? item.msg : "";
  const loc = "loc" in item && Array.isArray(item.loc) ? item.loc.map(String).join(".") : "";
  if (loc !== "" && msg !== "") return `${loc}: ${msg}`;
  return msg;
}
