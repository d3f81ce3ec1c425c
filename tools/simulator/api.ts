// The served interface (docs/merge-queue-api.md, "Endpoints"), under /v1. Errors behave like the real service: 422 with
// FastAPI-style details (checked before the repository is looked up), 404 {"detail"} for an unknown
// repository or a pull request in no queue.

import { decodeCursor, encodeCursor, type LogCursor } from "./cursor.js";
import { detail, json, type Reply, type Route, route, validationFailed } from "./http.js";
import { serializeEvent } from "./log.js";
import type { Repository } from "./model.js";
import type { SimState } from "./state.js";
import { EVENT_OUTCOMES, type EventOutcome, type EventType } from "./types.js";
import { MAX_PULL_NUMBER, ValidationErrors, validatePathRepository } from "./validation.js";

export interface ApiContext {
  state: SimState;
  url: URL;
  /** Absolute origin the client used, e.g. "http://127.0.0.1:4010" (for Link headers). */
  origin: string;
  body(): Promise<string>;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const REPO_PATH = "/v1/repos/:owner/:repository";

function repositoryOrNotFound(state: SimState, params: Record<string, string>): Repository | Reply {
  const fullName = `${params.owner}/${params.repository}`;
  const repo = state.getRepository(fullName);
  return repo ?? detail(404, `Repository ${fullName} not found`);
}

function isReply(value: Repository | Reply): value is Reply {
  return "status" in value;
}

/** Validates the path and finds the repository: a 422 or 404 reply, or the repository. */
function resolve(context: ApiContext, params: Record<string, string>, errors = new ValidationErrors()) {
  validatePathRepository(errors, params.owner ?? "", params.repository ?? "");
  if (!errors.empty) return validationFailed(errors.items);
  return repositoryOrNotFound(context.state, params);
}

const branches = route<ApiContext>("GET", `${REPO_PATH}/merge-queue/branches`, (context, params) => {
  const repo = resolve(context, params);
  if (isReply(repo)) return repo;
  return json(200, { branches: [...repo.branches] });
});

// Without `branch`, the status is the one of the repository's default branch (its first branch). A branch
// without a merge queue has an empty status (no batches, nothing waiting), not a 404.
const status = route<ApiContext>("GET", `${REPO_PATH}/merge-queue/status`, (context, params) => {
  const repo = resolve(context, params);
  if (isReply(repo)) return repo;
  const branch = context.url.searchParams.get("branch");
  return json(200, context.state.status(repo.fullName, branch ?? undefined));
});

const pull = route<ApiContext>("GET", `${REPO_PATH}/merge-queue/pull/:pr_number`, (context, params) => {
  const errors = new ValidationErrors();
  const number = errors.integer(["path", "pr_number"], params.pr_number ?? "", {
    min: 0n,
    max: MAX_PULL_NUMBER,
  });
  const repo = resolve(context, params, errors);
  if (isReply(repo)) return repo;
  const details = number === null ? null : context.state.pullDetails(repo.fullName, number);
  if (details === null) return detail(404, `Pull request #${params.pr_number} is not in any merge queue`);
  return json(200, details);
});

const getPause = route<ApiContext>("GET", `${REPO_PATH}/merge-queue/pause`, (context, params) => {
  const repo = resolve(context, params);
  if (isReply(repo)) return repo;
  return json(200, context.state.pauseData(repo.fullName));
});

const putPause = route<ApiContext>("PUT", `${REPO_PATH}/merge-queue/pause`, async (context, params) => {
  const errors = new ValidationErrors();
  validatePathRepository(errors, params.owner ?? "", params.repository ?? "");
  const text = await context.body();
  let reason: string | null = null;
  if (text.trim().length === 0) {
    errors.missing(["body"]);
  } else {
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch (error) {
      errors.add({
        loc: ["body", 0],
        msg: "JSON decode error",
        type: "json_invalid",
        input: {},
        ctx: { error: error instanceof Error ? error.message : "invalid JSON" },
      });
    }
    if (payload !== undefined) {
      if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
        errors.add({
          loc: ["body"],
          msg: "Input should be a valid dictionary or object to extract fields from",
          type: "model_attributes_type",
          input: payload,
        });
      } else if (!("reason" in payload)) {
        errors.missing(["body", "reason"]);
      } else {
        const value = (payload as { reason: unknown }).reason;
        if (errors.string(["body", "reason"], value, { max: 255 })) reason = value;
      }
    }
  }
  if (!errors.empty || reason === null) return validationFailed(errors.items);
  const repo = repositoryOrNotFound(context.state, params);
  if (isReply(repo)) return repo;
  context.state.pause(repo.fullName, reason);
  return json(200, context.state.pauseData(repo.fullName));
});

// Unpausing a queue that is not paused answers 404 {"detail": "The merge queue is not paused"}.
const deletePause = route<ApiContext>("DELETE", `${REPO_PATH}/merge-queue/pause`, (context, params) => {
  const repo = resolve(context, params);
  if (isReply(repo)) return repo;
  if (!context.state.unpause(repo.fullName)) return detail(404, "The merge queue is not paused");
  return { status: 204 };
});

const logs = route<ApiContext>("GET", `${REPO_PATH}/logs`, (context, params) => {
  const errors = new ValidationErrors();
  validatePathRepository(errors, params.owner ?? "", params.repository ?? "");
  const query = context.url.searchParams;

  const pullRequests: number[] = [];
  query.getAll("pull_request").forEach((raw, index) => {
    const value = errors.integer(["query", "pull_request", index], raw, { min: 0n, max: MAX_PULL_NUMBER });
    if (value !== null) pullRequests.push(value);
  });
  const eventTypes: EventType[] = [];
  query.getAll("event_type").forEach((raw, index) => {
    const value = errors.eventType(["query", "event_type", index], raw);
    if (value !== null) eventTypes.push(value);
  });
  const outcomes: EventOutcome[] = [];
  query.getAll("outcome").forEach((raw, index) => {
    if ((EVENT_OUTCOMES as readonly string[]).includes(raw)) outcomes.push(raw as EventOutcome);
    else {
      errors.add({
        loc: ["query", "outcome", index],
        msg: "Input should be 'success', 'failure', 'pending' or 'neutral'",
        type: "enum",
        input: raw,
        ctx: { expected: "'success', 'failure', 'pending' or 'neutral'" },
      });
    }
  });
  let baseRef: string | null = null;
  const rawBaseRef = query.get("base_ref");
  if (rawBaseRef !== null && errors.string(["query", "base_ref"], rawBaseRef, { min: 1, max: 255 })) {
    baseRef = rawBaseRef;
  }
  let perPage = 10;
  const rawPerPage = query.get("per_page");
  if (rawPerPage !== null) {
    const value = errors.integer(["query", "per_page"], rawPerPage, { min: 1n, max: 100n });
    if (value !== null) perPage = value;
  }
  const rawFrom = query.get("received_from");
  const rawTo = query.get("received_to");
  const from = rawFrom === null ? null : errors.dateTime(["query", "received_from"], rawFrom);
  const to = rawTo === null ? null : errors.dateTime(["query", "received_to"], rawTo);
  const rawCursor = query.get("cursor");
  let cursor: LogCursor | null = null;
  if (rawCursor !== null && rawCursor !== "") {
    cursor = decodeCursor(rawCursor);
    if (cursor === null) {
      errors.add({ loc: ["query", "cursor"], msg: "Invalid cursor", type: "value_error", input: rawCursor });
    }
  }
  if (!errors.empty) return validationFailed(errors.items);
  const repo = repositoryOrNotFound(context.state, params);
  if (isReply(repo)) return repo;

  if (cursor === null) {
    const end = to ?? context.state.clock.now();
    cursor = {
      snapshot: context.state.log.maxId,
      from: from ?? end - DAY_MS,
      to: end,
      direction: "first",
      key: null,
    };
  }
  const page = context.state.log.query(repo.key, {
    pullRequests: query.has("pull_request") ? pullRequests : null,
    eventTypes: query.has("event_type") ? eventTypes : null,
    outcomes: query.has("outcome") ? outcomes : null,
    baseRef,
    perPage,
    cursor,
  });
  const headers: Record<string, string> = {};
  if (page.next !== null || page.prev !== null) {
    const link = (target: LogCursor, rel: string) => {
      const params = new URLSearchParams(query);
      params.delete("cursor");
      params.set("cursor", encodeCursor(target));
      return `<${context.origin}${context.url.pathname}?${params.toString()}>; rel="${rel}"`;
    };
    const links = [link(page.first, "first")];
    if (page.prev !== null) links.push(link(page.prev, "prev"));
    if (page.next !== null) links.push(link(page.next, "next"));
    headers.link = links.join(", ");
  }
  return json(
    200,
    { size: page.events.length, per_page: perPage, events: page.events.map(serializeEvent) },
    headers,
  );
});

export const apiRoutes: Route<ApiContext>[] = [branches, status, pull, getPause, putPause, deletePause, logs];
