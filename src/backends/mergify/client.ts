import { Repo } from "../../repo.js";
import { branchesSchema } from "./branches.schema.js";
import { isMergeQueueError, MergeQueueError, MergeQueueErrorCode } from "./errors.js";
import { eventQueryParams } from "./event-query.js";
import { eventsResponseSchema, type LogEvent } from "./events.schema.js";
import { type HttpSend, nodeHttpSend } from "./http-send.js";
import {
  branchSchema,
  checkInput,
  ownerSchema,
  pauseReasonSchema,
  pullNumberSchema,
  repositorySchema,
} from "./limits.js";
import { findLink } from "./link-header.js";
import { type PauseState, pauseStateSchema } from "./pause.schema.js";
import { type PullRequestQueueDetails, pullRequestQueueDetailsSchema } from "./pull-request.schema.js";
import { resolveRetryPolicy } from "./retry.js";
import { type QueueStatus, queueStatusSchema } from "./status.schema.js";
import { HttpTransport } from "./transport.js";
import type { CallRecord, EventQuery, EventsPage } from "./types.js";

export interface MergeQueueClientOptions {
  /** e.g. "https://api.mergify.com/v1"; "/repos/{owner}/{repo}/..." is appended. */
  baseUrl: string;
  /** Sent as "Authorization: Bearer <token>" on every request. */
  token: string;
  /** Per attempt; default 10 000. */
  timeoutMs?: number;
  /** Defaults: retries 3, minDelayMs 200, maxDelayMs 5 000, maxElapsedMs 20 000. */
  retry?: { retries?: number; minDelayMs?: number; maxDelayMs?: number; maxElapsedMs?: number };
  /** How a request is sent; default Node's http and https with keep-alive (http-send.ts). */
  send?: HttpSend;
  /** Called once per attempt, for metrics. */
  onCall?: (call: CallRecord) => void;
  /** Default "yardmaster". */
  userAgent?: string;
}

const REPO_ROUTE = "/repos/{owner}/{repository}";
const ROUTES = {
  branches: `${REPO_ROUTE}/merge-queue/branches`,
  status: `${REPO_ROUTE}/merge-queue/status`,
  pull: `${REPO_ROUTE}/merge-queue/pull/{pr_number}`,
  pause: `${REPO_ROUTE}/merge-queue/pause`,
  logs: `${REPO_ROUTE}/logs`,
} as const;

/** Typed client of the merge-queue service (its interface: docs/merge-queue-api.md; production: Mergify). */
export class MergeQueueClient {
  readonly #base: string;
  readonly #origin: string;
  readonly #http: HttpTransport;

  constructor(options: MergeQueueClientOptions) {
    const base = parseBaseUrl(options.baseUrl);
    this.#origin = base.origin;
    this.#base = `${base.origin}${base.pathname.replace(/\/+$/, "")}`;
    if (typeof options.token !== "string" || options.token === "" || /[\r\n]/.test(options.token)) {
      throw invalidOption("token", "token must be a non-empty string on one line");
    }
    const timeoutMs = options.timeoutMs ?? 10_000;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw invalidOption("timeoutMs", "timeoutMs must be a positive number");
    }
    this.#http = new HttpTransport({
      token: options.token,
      userAgent: options.userAgent ?? "yardmaster",
      timeoutMs,
      retry: resolveRetryPolicy(options.retry),
      send: options.send ?? nodeHttpSend,
      onCall: options.onCall,
    });
  }

  async listBranches(repo: Repo): Promise<string[]> {
    const url = this.#url(`${repoPath(repo)}/merge-queue/branches`);
    const body = await this.#http.sendJson({ method: "GET", route: ROUTES.branches, url }, branchesSchema);
    return body.branches;
  }

  async getStatus(repo: Repo, options: { branch?: string } = {}): Promise<QueueStatus> {
    const path = `${repoPath(repo)}/merge-queue/status`;
    const query = new URLSearchParams();
    if (options.branch !== undefined) query.set("branch", checkInput(branchSchema, options.branch, "branch"));
    const url = this.#url(path, query.toString());
    return this.#http.sendJson({ method: "GET", route: ROUTES.status, url }, queueStatusSchema);
  }

  /** Throws NotInQueue when the pull request is in no merge queue. */
  async getPullRequest(repo: Repo, number: number): Promise<PullRequestQueueDetails> {
    const path = repoPath(repo);
    const pull = checkInput(pullNumberSchema, number, "pull_request");
    const url = this.#url(`${path}/merge-queue/pull/${pull}`);
    try {
      return await this.#http.sendJson(
        { method: "GET", route: ROUTES.pull, url },
        pullRequestQueueDetailsSchema,
      );
    } catch (error) {
      if (!isMergeQueueError(error, MergeQueueErrorCode.NotFound)) throw error;
      throw new MergeQueueError(
        MergeQueueErrorCode.NotInQueue,
        `pull request #${pull} is not in any merge queue`,
        {
          status: error.status,
          detail: error.detail,
          cause: error,
        },
      );
    }
  }

  /** Pauses the queue (or updates the reason of a pause); the reason is sent trimmed. */
  async pause(repo: Repo, reason: string): Promise<PauseState> {
    const path = repoPath(repo);
    const body = { reason: checkInput(pauseReasonSchema, reason, "reason") };
    const url = this.#url(`${path}/merge-queue/pause`);
    return this.#http.sendJson({ method: "PUT", route: ROUTES.pause, url, body }, pauseStateSchema);
  }

  async unpause(repo: Repo): Promise<void> {
    const url = this.#url(`${repoPath(repo)}/merge-queue/pause`);
    await this.#http.send({ method: "DELETE", route: ROUTES.pause, url });
  }

  async getPause(repo: Repo): Promise<PauseState> {
    const url = this.#url(`${repoPath(repo)}/merge-queue/pause`);
    return this.#http.sendJson({ method: "GET", route: ROUTES.pause, url }, pauseStateSchema);
  }

  /** The first page of the event log. */
  async getEventsPage(repo: Repo, query: EventQuery = {}): Promise<EventsPage> {
    const path = repoPath(repo);
    return this.#eventsPage(this.#url(`${path}/logs`, eventQueryParams(query)));
  }

  /** A page from a Link URL; refused (InvalidInput) unless it is on the base URL's origin. */
  async getEventsPageAt(nextUrl: string): Promise<EventsPage> {
    return this.#eventsPage(this.#pageUrl(nextUrl, MergeQueueErrorCode.InvalidInput, "nextUrl"));
  }

  /**
   * Every event of the query, following the Link header's `next` until it ends, or until `enough` says
   * a page read is the last one needed.
   */
  async *iterateEvents(
    repo: Repo,
    query: EventQuery = {},
    options: { enough?: (page: readonly LogEvent[]) => boolean } = {},
  ): AsyncGenerator<LogEvent> {
    let page = await this.getEventsPage(repo, query);
    const visited = new Set<string>();
    for (;;) {
      yield* page.events;
      if (page.next === null || options.enough?.(page.events)) return;
      if (visited.has(page.next)) {
        throw new MergeQueueError(
          MergeQueueErrorCode.MalformedResponse,
          `pagination loops back to ${page.next}`,
          {
            field: "Link",
          },
        );
      }
      visited.add(page.next);
      page = await this.#eventsPage(this.#pageUrl(page.next, MergeQueueErrorCode.MalformedResponse, "Link"));
    }
  }

  async #eventsPage(url: URL): Promise<EventsPage> {
    const request = { method: "GET", route: ROUTES.logs, url } as const;
    const response = await this.#http.send(request);
    const body = this.#http.parseJson(request, response, eventsResponseSchema);
    const link = response.headers.get("link");
    return {
      events: body.events,
      size: body.size,
      perPage: body.per_page,
      next: resolveLink(findLink(link, "next"), url),
      prev: resolveLink(findLink(link, "prev"), url),
    };
  }

  /** A next/prev page URL, refused (with `code`) unless on the base URL's origin: the token goes there. */
  #pageUrl(pageUrl: string, code: MergeQueueErrorCode, field: string): URL {
    let url: URL | undefined;
    try {
      url = new URL(pageUrl);
    } catch {
      url = undefined;
    }
    if (url === undefined || url.origin !== this.#origin) {
      throw new MergeQueueError(code, `page URL must be an absolute URL on ${this.#origin}`, { field });
    }
    return url;
  }

  /** The URL of `path` on the base, with its query text (without "?") if any: parsed once. */
  #url(path: string, query = ""): URL {
    return new URL(`${this.#base}${path}${query ? `?${query}` : ""}`);
  }
}

/**
 * `/repos/{owner}/{repository}` with both checked against the limits and percent-encoded; a Repo is
 * valid already (src/repo.ts checks the same limits as it is made).
 */
function repoPath(repo: Repo): string {
  if (repo instanceof Repo) return pathOf(repo.owner, repo.name);
  const given = repo as { owner?: unknown; name?: unknown } | undefined;
  return pathOf(
    checkInput(ownerSchema, given?.owner, "owner"),
    checkInput(repositorySchema, given?.name, "repository"),
  );
}

const pathOf = (owner: string, repository: string): string =>
  `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repository)}`;

function resolveLink(link: string | null, base: URL): string | null {
  if (link === null) return null;
  try {
    return new URL(link, base).toString();
  } catch {
    return null;
  }
}

function parseBaseUrl(baseUrl: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(baseUrl);
  } catch {
    url = undefined;
  }
  if (
    url === undefined ||
    (url.protocol !== "https:" && url.protocol !== "http:") ||
    url.search ||
    url.hash
  ) {
    throw invalidOption("baseUrl", "baseUrl must be an http(s) URL without query or fragment");
  }
  return url;
}

function invalidOption(field: string, message: string): MergeQueueError {
  return new MergeQueueError(MergeQueueErrorCode.InvalidInput, message, { field });
}
