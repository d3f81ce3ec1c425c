import { STATUS_CODES } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { z } from "zod";
import { formatFieldPath, MergeQueueError, MergeQueueErrorCode } from "./errors.js";
import type { AnswerHeaders, HttpSend } from "./http-send.js";
import { errorCodeForStatus, extractErrorDetail, isRetryableStatus } from "./http-status.js";
import { parseRetryAfterMs, planRetry, type RetryPolicy } from "./retry.js";
import type { CallRecord } from "./types.js";

export interface TransportOptions {
  token: string;
  userAgent: string;
  timeoutMs: number;
  retry: RetryPolicy;
  send: HttpSend;
  onCall?: ((call: CallRecord) => void) | undefined;
}

export interface HttpRequest {
  method: "GET" | "PUT" | "DELETE";
  /** Templated path, for metrics. */
  route: string;
  url: URL;
  body?: unknown;
}

export interface HttpResponse {
  status: number;
  headers: AnswerHeaders;
  text: string;
}

type Attempt =
  | ({ kind: "response" } & HttpResponse)
  | { kind: "network"; error: unknown }
  | { kind: "timeout"; error: unknown };

/**
 * Sends requests with the bearer token, a timeout per attempt, and retries (network errors, timeouts,
 * 5xx, 429) within the retry policy. Every request of this interface is safe to repeat.
 */
export class HttpTransport {
  readonly #options: TransportOptions;

  constructor(options: TransportOptions) {
    this.#options = options;
  }

  /** The 2xx answer, or a MergeQueueError for anything else. */
  async send(request: HttpRequest): Promise<HttpResponse> {
    const started = performance.now();
    for (let retriesDone = 0; ; retriesDone++) {
      const attempt = await this.#attempt(request);
      if (attempt.kind === "response" && attempt.status >= 200 && attempt.status < 300) return attempt;
      if (attempt.kind === "response" && !isRetryableStatus(attempt.status)) {
        throw this.#failure(request, attempt);
      }
      const retryAfterMs =
        attempt.kind === "response" ? parseRetryAfterMs(attempt.headers.get("retry-after")) : undefined;
      const decision = planRetry(this.#options.retry, {
        retriesDone,
        elapsedMs: performance.now() - started,
        retryAfterMs,
      });
      if (!decision.retry) throw this.#failure(request, attempt, decision.retryAfterMs);
      await sleep(decision.delayMs);
    }
  }

  /** Sends, then parses the JSON answer with `schema`. */
  async sendJson<T extends z.ZodType>(request: HttpRequest, schema: T): Promise<z.output<T>> {
    return this.parseJson(request, await this.send(request), schema);
  }

  /** The answer's JSON body parsed with `schema`; a body that is not JSON or does not fit is MalformedResponse. */
  parseJson<T extends z.ZodType>(request: HttpRequest, response: HttpResponse, schema: T): z.output<T> {
    const what = describe(request);
    let body: unknown;
    try {
      body = JSON.parse(response.text);
    } catch (cause) {
      throw new MergeQueueError(
        MergeQueueErrorCode.MalformedResponse,
        `${what} answered with a body that is not JSON`,
        {
          status: response.status,
          field: formatFieldPath([]),
          cause,
        },
      );
    }
    const result = schema.safeParse(body);
    if (result.success) return result.data;
    const issue = result.error.issues[0];
    const field = formatFieldPath(issue?.path ?? []);
    throw new MergeQueueError(
      MergeQueueErrorCode.MalformedResponse,
      `${what} answered with an unexpected body: ${field}: ${issue?.message ?? "invalid"}`,
      { status: response.status, field, cause: result.error },
    );
  }

  async #attempt(request: HttpRequest): Promise<Attempt> {
    const { token, userAgent, timeoutMs } = this.#options;
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      accept: "application/json",
      "user-agent": userAgent,
    };
    let body: string | undefined;
    if (request.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(request.body);
    }
    const started = performance.now();
    let attempt: Attempt;
    try {
      const answer = await this.#options.send(request.url, {
        method: request.method,
        headers,
        body,
        timeoutMs,
      });
      attempt = { kind: "response", ...answer };
    } catch (error) {
      attempt =
        (error as Error)?.name === "TimeoutError" ? { kind: "timeout", error } : { kind: "network", error };
    }
    this.#report({
      method: request.method,
      route: request.route,
      status: attempt.kind === "response" ? attempt.status : attempt.kind,
      durationMs: performance.now() - started,
    });
    return attempt;
  }

  #report(call: CallRecord): void {
    try {
      this.#options.onCall?.(call);
    } catch {
      // Metrics must never break a call.
    }
  }

  #failure(request: HttpRequest, attempt: Attempt, retryAfterMs?: number): MergeQueueError {
    const what = describe(request);
    const retryAfterSeconds = retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000);
    if (attempt.kind === "timeout") {
      return new MergeQueueError(
        MergeQueueErrorCode.Timeout,
        `${what} timed out after ${this.#options.timeoutMs} ms`,
        { cause: attempt.error },
      );
    }
    if (attempt.kind === "network") {
      return new MergeQueueError(
        MergeQueueErrorCode.Unavailable,
        // Some failures echo the request, headers included: the token never reaches a message.
        `${what} could not reach the merge queue: ${describeNetworkError(attempt.error).replaceAll(this.#options.token, "[redacted]")}`,
        { cause: attempt.error },
      );
    }
    const detail = extractErrorDetail(attempt.text);
    const reason = STATUS_CODES[attempt.status] ?? "Unexpected status";
    return new MergeQueueError(
      errorCodeForStatus(attempt.status),
      `${what} failed: ${attempt.status} ${reason}${detail === undefined ? "" : `: ${detail}`}`,
      { status: attempt.status, detail, retryAfterSeconds },
    );
  }
}

function describe(request: HttpRequest): string {
  return `${request.method} ${request.url.pathname}`;
}

function describeNetworkError(error: unknown): string {
  if (typeof error !== "object" || error === null) return String(error);
  const message = "message" in error && typeof error.message === "string" ? error.message : "network error";
  const cause = "cause" in error ? error.cause : undefined;
  const code = errorCode(cause) ?? errorCode(error);
  return code === undefined || message.includes(code) ? message : `${message} (${code})`;
}

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined;
}
