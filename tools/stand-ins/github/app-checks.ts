import type { StandInContext } from "./context.js";
import { intParam, requireRepository } from "./context.js";
import { bodyFields, HttpError, notFound, type Router, sendJson, validationFailed } from "./http.js";
import { CI_APP } from "./merge-groups.js";
import type { GitHubMergeQueues } from "./merge-queue-graphql.js";
import { nodeId } from "./payloads.js";
import type { Repository } from "./state.js";

/**
 * Check runs an app reports itself (`POST /repos/{owner}/{repo}/check-runs`, `PATCH .../check-runs/{id}`,
 * the installation's `checks: write`), as Yardmaster's gate check is; GitHub reads the latest run of a
 * name on a commit. And the rules that apply to a branch (`GET /repos/{owner}/{repo}/rules/branches/{branch}`):
 * a branch with a merge queue (merge-queue-graphql.ts) has a ruleset with a `merge_queue` rule and a
 * `required_status_checks` rule listing its required checks, each with the app expected to report it.
 */

export interface AppCheckRun {
  id: number;
  repository: Repository;
  name: string;
  headSha: string;
  status: "queued" | "in_progress" | "completed";
  conclusion: string | null;
  title: string | null;
  summary: string | null;
  /** The app that reported it (the installation's). */
  appId: number;
  createdAt: string;
  completedAt: string | null;
}

const STATUSES = new Set(["queued", "in_progress", "completed"]);
const CONCLUSIONS = new Set([
  "success",
  "failure",
  "neutral",
  "cancelled",
  "skipped",
  "timed_out",
  "action_required",
]);

export class AppCheckRuns {
  private nextId = 6_000_001;
  private readonly runs: AppCheckRun[] = [];

  /** Every run reported on a repository, oldest first (what a test reads). */
  all(fullName: string): AppCheckRun[] {
    return this.runs.filter((r) => r.repository.fullName.toLowerCase() === fullName.toLowerCase());
  }

  /** The latest run of a name on a commit: the one GitHub reads. */
  latest(fullName: string, sha: string, name: string): AppCheckRun | undefined {
    return this.all(fullName)
      .filter((r) => r.headSha === sha.toLowerCase() && r.name === name)
      .at(-1);
  }

  create(repository: Repository, appId: number, at: string, fields: Record<string, unknown>): AppCheckRun {
    const name = fields.name;
    const headSha = fields.head_sha;
    if (typeof name !== "string" || name === "")
      throw validationFailed({ field: "name", code: "missing_field" });
    if (typeof headSha !== "string" || !/^[0-9a-f]{40}$/i.test(headSha))
      throw validationFailed({ field: "head_sha", code: "invalid" });
    const run: AppCheckRun = {
      id: this.nextId++,
      repository,
      name,
      headSha: headSha.toLowerCase(),
      status: "queued",
      conclusion: null,
      title: null,
      summary: null,
      appId,
      createdAt: at,
      completedAt: null,
    };
    this.apply(run, fields, at);
    this.runs.push(run);
    return run;
  }

  update(
    repository: Repository,
    id: number,
    appId: number,
    at: string,
    fields: Record<string, unknown>,
  ): AppCheckRun {
    const run = this.runs.find((r) => r.id === id && r.repository.id === repository.id);
    if (!run) throw notFound();
    if (run.appId !== appId)
      throw new HttpError(
        403,
        `Invalid app_id \`${appId}\` - check run can only be modified by the GitHub App that created it.`,
      );
    this.apply(run, fields, at);
    return run;
  }

  private apply(run: AppCheckRun, fields: Record<string, unknown>, at: string): void {
    const { status, conclusion, output } = fields as {
      status?: unknown;
      conclusion?: unknown;
      output?: unknown;
    };
    if (status !== undefined && (typeof status !== "string" || !STATUSES.has(status)))
      throw validationFailed({ field: "status", code: "invalid" });
    if (conclusion !== undefined && (typeof conclusion !== "string" || !CONCLUSIONS.has(conclusion)))
      throw validationFailed({ field: "conclusion", code: "invalid" });
    if (typeof conclusion === "string") {
      run.status = "completed";
      run.conclusion = conclusion;
      run.completedAt = at;
    } else if (status === "completed") {
      throw validationFailed({ field: "conclusion", code: "missing_field" });
    } else if (typeof status === "string") {
      run.status = status as AppCheckRun["status"];
    }
    if (output && typeof output === "object") {
      const o = output as { title?: unknown; summary?: unknown };
      if (typeof o.title === "string") run.title = o.title;
      if (typeof o.summary === "string") run.summary = o.summary;
    }
  }
}

export function appCheckRunJson(api: string, web: string, run: AppCheckRun): Record<string, unknown> {
  const fullName = run.repository.fullName;
  return {
    id: run.id,
    node_id: nodeId("CR", run.id),
    name: run.name,
    head_sha: run.headSha,
    status: run.status,
    conclusion: run.conclusion,
    started_at: run.createdAt,
    completed_at: run.completedAt,
    url: `${api}/repos/${fullName}/check-runs/${run.id}`,
    html_url: `${web}/${fullName}/runs/${run.id}`,
    output: { title: run.title, summary: run.summary, text: null, annotations_count: 0 },
    app: { id: run.appId },
  };
}

/** The check-run and branch-rules routes. */
export function addAppCheckRoutes(
  router: Router,
  ctx: StandInContext,
  checks: AppCheckRuns,
  mergeQueues: GitHubMergeQueues,
): void {
  const { state, urls } = ctx;
  const writer = (req: Parameters<typeof requireRepository>[1]) => {
    const { caller, repository } = requireRepository(ctx, req);
    if (caller.kind !== "installation" || caller.token.permissions.checks !== "write") {
      throw new HttpError(403, "Resource not accessible by integration");
    }
    return repository;
  };
  router
    .add("POST", "/repos/{owner}/{repo}/check-runs", (req, res) => {
      const repository = writer(req);
      const run = checks.create(repository, ctx.app.id, state.timestamp(), bodyFields(req.body));
      sendJson(res, 201, appCheckRunJson(urls.api, urls.web, run));
    })
    .add("PATCH", "/repos/{owner}/{repo}/check-runs/{id}", (req, res) => {
      const repository = writer(req);
      const run = checks.update(
        repository,
        intParam(req.params.id),
        ctx.app.id,
        state.timestamp(),
        bodyFields(req.body),
      );
      sendJson(res, 200, appCheckRunJson(urls.api, urls.web, run));
    })
    .add("GET", "/repos/{owner}/{repo}/rules/branches/{branch}", (req, res) => {
      const { repository } = requireRepository(ctx, req);
      const queue = mergeQueues.queueOf(repository.fullName, req.params.branch ?? "");
      if (!queue) {
        sendJson(res, 200, []);
        return;
      }
      const c = queue.configuration;
      const source = {
        ruleset_source_type: "Repository",
        ruleset_source: repository.fullName,
        ruleset_id: 4_200,
      };
      sendJson(res, 200, [
        {
          type: "merge_queue",
          ...source,
          parameters: {
            check_response_timeout_minutes: Math.round(c.checkResponseTimeout / 60),
            grouping_strategy: c.mergingStrategy,
            max_entries_to_build: c.maximumEntriesToBuild,
            max_entries_to_merge: c.maximumEntriesToMerge,
            merge_method: c.mergeMethod,
            min_entries_to_merge: c.minimumEntriesToMerge,
            min_entries_to_merge_wait_minutes: 5,
          },
        },
        {
          type: "required_status_checks",
          ...source,
          parameters: {
            strict_required_status_checks_policy: false,
            do_not_enforce_on_create: false,
            required_status_checks: [
              ...c.requiredChecks.map((context) => ({ context, integration_id: CI_APP.id })),
              ...c.appRequiredChecks.map((context) => ({ context, integration_id: ctx.app.id })),
              // No source chosen: GitHub lists the check without an integration_id.
              ...c.anySourceChecks.map((context) => ({ context })),
            ],
          },
        },
      ]);
    });
}
