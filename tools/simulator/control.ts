// Control endpoints under /__sim (same Bearer token), for out-of-process use: the sandbox, benchmarks.
//   GET  /__sim/clock                                         {kind, now}
//   POST /__sim/clock/advance            {"seconds": n}       advance the clock (runs the engine)
//   GET  /__sim/repos                                         repositories and their branches
//   POST /__sim/repos                    {"repository", "branches"?, "mode"?}
//   GET  /__sim/repos/{o}/{r}/pulls                           known pull requests
//   POST /__sim/repos/{o}/{r}/pulls      {number, title, url?, author, base_ref, head_sha?, ...}
//   PUT  /__sim/repos/{o}/{r}/pulls/{n}/checks {"outcome": "failure"|"success", "check"?, "times"?}
//   PUT  /__sim/repos/{o}/{r}/pulls/{n}/conditions {"unmet": ["label=ready", ...]} queue conditions not met
//   POST /__sim/repos/{o}/{r}/pulls/{n}/merged-outside         merged on GitHub without the queue: leaves it
//                                        (PR_MANUALLY_MERGED) if queued; {"was_queued"}
//   PUT  /__sim/repos/{o}/{r}/pause      {"reason", "by"?: {id, login}, "started_seconds_ago"?}  a person's pause,
//                                        begun that long ago (its paused_at); DELETE {"by"?} unpauses
//   PUT  /__sim/repos/{o}/{r}/commands-restrictions {"refuse_bots": true|false}  Mergify's default, or not
//   POST /__sim/repos/{o}/{r}/commands   the command hook (see CommandInput)
//   GET|PUT|DELETE /__sim/repos/{o}/{r}/faults               faults (PUT replaces, DELETE clears)
//   GET|DELETE /__sim/requests                                API request counts (DELETE resets)

import { z } from "zod";
import type { Faults } from "./faults.js";
import { checkFaultConfig, type FaultConfig } from "./faults.js";
import { detail, json, type Reply, type Route, route, validationFailed } from "./http.js";
import type { KnownPullRequest } from "./model.js";
import type { RequestStats } from "./request-stats.js";
import { type CommandInput, type PullRequestInput, SimError, type SimState } from "./state.js";
import type { Actor, ValidationErrorItem } from "./types.js";

export interface ControlContext {
  state: SimState;
  faults: Faults;
  stats: RequestStats;
  body(): Promise<string>;
}

const author = z.object({ id: z.number().int(), login: z.string().min(1) });
const label = z.object({ id: z.number().int(), name: z.string(), color: z.string(), default: z.boolean() });
const pullRequest = z.object({
  number: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  title: z.string().optional(),
  url: z.string().optional(),
  author: author.optional(),
  base_ref: z.string().min(1).max(255).optional(),
  head_sha: z.string().optional(),
  labels: z.array(z.string()).optional(),
  github_labels: z.array(label).nullable().optional(),
  scopes: z.array(z.string()).optional(),
  checks: z.enum(["success", "failure"]).optional(),
});
const schemas = {
  advance: z.object({
    seconds: z
      .number()
      .min(0)
      .max(366 * 24 * 3600),
  }),
  repository: z.object({
    repository: z.string().regex(/^[A-Za-z0-9-]{1,40}\/[\w\-.]{1,100}$/, "owner/repository"),
    branches: z.array(z.string().min(1).max(255)).min(1).optional(),
    mode: z.enum(["serial", "parallel"]).optional(),
  }),
  checks: z.object({
    outcome: z.enum(["success", "failure"]),
    check: z.string().min(1).optional(),
    times: z.number().int().min(1).max(1000).optional(),
  }),
  conditions: z.object({ unmet: z.array(z.string().min(1).max(255)).max(50) }),
  restrictions: z.object({ refuse_bots: z.boolean() }),
  pause: z.object({
    reason: z.string().max(255),
    by: author.optional(),
    started_seconds_ago: z
      .number()
      .min(0)
      .max(366 * 24 * 3600)
      .optional(),
  }),
  unpause: z.object({ by: author.optional() }).optional(),
  command: z.object({
    body: z.string(),
    comment_id: z.number().int().min(0).optional(),
    author: author.optional(),
    pull_request: z.union([z.number().int().min(0), pullRequest]),
  }),
};

async function parseBody<T>(context: ControlContext, schema: z.ZodType<T>): Promise<T | Reply> {
  const text = await context.body();
  let payload: unknown;
  try {
    payload = text.trim() === "" ? undefined : JSON.parse(text);
  } catch {
    return validationFailed([{ loc: ["body"], msg: "JSON decode error", type: "json_invalid" }]);
  }
  const result = schema.safeParse(payload);
  if (result.success) return result.data;
  const items: ValidationErrorItem[] = result.error.issues.map((issue) => ({
    loc: ["body", ...issue.path.map((part) => (typeof part === "symbol" ? String(part) : part))],
    msg: issue.message,
    type: issue.code,
  }));
  return validationFailed(items);
}

function isReply(value: unknown): value is Reply {
  return typeof value === "object" && value !== null && "status" in value && typeof value.status === "number";
}

function fullName(params: Record<string, string>): string {
  return `${params.owner}/${params.repository}`;
}

/** Runs a state operation, answering a SimError with its status. */
function guarded(operation: () => Reply): Reply {
  try {
    return operation();
  } catch (error) {
    if (error instanceof SimError) return detail(error.status, error.message);
    throw error;
  }
}

function pullView(pull: KnownPullRequest) {
  return {
    number: pull.number,
    title: pull.title,
    url: pull.url,
    author: pull.author,
    base_ref: pull.baseRef,
    head_sha: pull.headSha,
    labels: pull.labels,
    scopes: pull.scopes,
    checks: pull.checks,
  };
}

const REPO = "/__sim/repos/:owner/:repository";

export const controlRoutes: Route<ControlContext>[] = [
  route("GET", "/__sim/clock", (context) =>
    json(200, { kind: context.state.clock.kind, now: context.state.clock.nowIso() }),
  ),
  route("POST", "/__sim/clock/advance", async (context) => {
    const body = await parseBody(context, schemas.advance);
    if (isReply(body)) return body;
    context.state.clock.advance(Math.round(body.seconds * 1000));
    return json(200, { kind: context.state.clock.kind, now: context.state.clock.nowIso() });
  }),
  route("GET", "/__sim/repos", (context) =>
    json(200, {
      repositories: context.state.listRepositories().map((repo) => ({
        repository: repo.fullName,
        branches: repo.branches,
        paused: repo.pause !== null,
      })),
    }),
  ),
  route("POST", "/__sim/repos", async (context) => {
    const body = await parseBody(context, schemas.repository);
    if (isReply(body)) return body;
    return guarded(() => {
      const options =
        body.mode === undefined ? { branches: body.branches } : { branches: body.branches, mode: body.mode };
      const repo = context.state.addRepository(body.repository, options);
      return json(201, { repository: repo.fullName, branches: repo.branches });
    });
  }),
  route("GET", `${REPO}/pulls`, (context, params) =>
    guarded(() =>
      json(200, {
        pull_requests: [...context.state.requireRepository(fullName(params)).pulls.values()].map(pullView),
      }),
    ),
  ),
  route("POST", `${REPO}/pulls`, async (context, params) => {
    const body = await parseBody(context, pullRequest);
    if (isReply(body)) return body;
    return guarded(() =>
      json(201, pullView(context.state.knowPullRequest(fullName(params), body as PullRequestInput))),
    );
  }),
  route("PUT", `${REPO}/pulls/:number/checks`, async (context, params) => {
    const body = await parseBody(context, schemas.checks);
    if (isReply(body)) return body;
    const number = pullNumberParam(params.number);
    if (number === null) return invalidPullNumber();
    return guarded(() => {
      context.state.setChecks(fullName(params), number, body.outcome, body.check, body.times);
      return json(200, { number, checks: body.outcome });
    });
  }),
  route("PUT", `${REPO}/pulls/:number/conditions`, async (context, params) => {
    const body = await parseBody(context, schemas.conditions);
    if (isReply(body)) return body;
    const number = pullNumberParam(params.number);
    if (number === null) return invalidPullNumber();
    return guarded(() => {
      context.state.setConditions(fullName(params), number, body.unmet);
      return json(200, { number, unmet: body.unmet });
    });
  }),
  route("POST", `${REPO}/pulls/:number/merged-outside`, (context, params) => {
    const number = pullNumberParam(params.number);
    if (number === null) return invalidPullNumber();
    return guarded(() =>
      json(200, { number, was_queued: context.state.mergedOutside(fullName(params), number) }),
    );
  }),
  route("PUT", `${REPO}/commands-restrictions`, async (context, params) => {
    const body = await parseBody(context, schemas.restrictions);
    if (isReply(body)) return body;
    return guarded(() => {
      context.state.setCommandsRestrictions(fullName(params), body.refuse_bots);
      return json(200, body);
    });
  }),
  route("PUT", `${REPO}/pause`, async (context, params) => {
    const body = await parseBody(context, schemas.pause);
    if (isReply(body)) return body;
    const { state } = context;
    return guarded(() => {
      const ago = body.started_seconds_ago;
      const { created, pause } = state.pause(fullName(params), body.reason, actorOf(state, body.by), {
        ...(ago === undefined ? {} : { startedAt: state.clock.now() - Math.round(ago * 1000) }),
      });
      return json(200, { created, reason: pause.reason, paused_at: new Date(pause.pausedAt).toISOString() });
    });
  }),
  route("DELETE", `${REPO}/pause`, async (context, params) => {
    const body = await parseBody(context, schemas.unpause);
    if (isReply(body)) return body;
    const { state } = context;
    return guarded(() =>
      state.unpause(fullName(params), actorOf(state, body?.by))
        ? { status: 204 }
        : detail(404, "The merge queue is not paused"),
    );
  }),
  route("POST", `${REPO}/commands`, async (context, params) => {
    const body = await parseBody(context, schemas.command);
    if (isReply(body)) return body;
    return guarded(() => json(200, context.state.relayCommand(fullName(params), body as CommandInput)));
  }),
  route("GET", `${REPO}/faults`, (context, params) => json(200, context.faults.get(fullName(params)))),
  route("PUT", `${REPO}/faults`, async (context, params) => {
    const text = await context.body();
    let payload: unknown;
    try {
      payload = text.trim() === "" ? {} : JSON.parse(text);
    } catch {
      return validationFailed([{ loc: ["body"], msg: "JSON decode error", type: "json_invalid" }]);
    }
    const problems = checkFaultConfig(payload);
    if (problems.length > 0) {
      return validationFailed(problems.map((msg) => ({ loc: ["body"], msg, type: "value_error" })));
    }
    context.faults.set(fullName(params), payload as FaultConfig);
    return json(200, context.faults.get(fullName(params)));
  }),
  route("DELETE", `${REPO}/faults`, (context, params) => {
    context.faults.clear(fullName(params));
    return { status: 204 };
  }),
  route("GET", "/__sim/requests", (context) => json(200, context.stats.snapshot())),
  route("DELETE", "/__sim/requests", (context) => {
    context.stats.reset();
    return { status: 204 };
  }),
];

/** A person named in a control request, else the application (as through the API). */
function actorOf(state: SimState, by: { id: number; login: string } | undefined): Actor {
  return by ? { type: "user", id: by.id, name: by.login } : state.applicationActor;
}

/** The `:number` of a pull request route, or null when it is not a whole number. */
function pullNumberParam(text: string | undefined): number | null {
  const number = Number(text);
  return /^\d+$/.test(text ?? "") && Number.isSafeInteger(number) ? number : null;
}

function invalidPullNumber() {
  return validationFailed([
    { loc: ["path", "number"], msg: "Input should be a valid integer", type: "int_parsing" },
  ]);
}
