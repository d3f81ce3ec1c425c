import { type AnnotationInput, type CheckOutput, outputJson } from "./check-output.js";
import type { StandInContext } from "./context.js";
import { intParam, requireRepository, selfUrl } from "./context.js";
import { HttpError, notFound, paginate, type Router, sendJson } from "./http.js";
import { CI_APP, groupCheckRunJson, type MergeGroup } from "./merge-groups.js";
import type { GitHubMergeQueues } from "./merge-queue-graphql.js";
import { nodeId, type Urls } from "./payloads.js";
import { appJson, type CheckConclusion } from "./queue-payloads.js";
import type { Repository } from "./state.js";

export type { AnnotationInput, CheckOutput } from "./check-output.js";

/**
 * What CI says when a check fails (README.md, "Check runs' output and annotations"): a test (or the
 * sandbox) sets, per repository and check name, the run's `output` (title, summary, text) and its
 * annotations (`checkRuns.failWith`); the check runs CI then reports failed carry them: a merge group's
 * (GitHub's queue, `completeChecks`) and those on the commits Mergify's checks ran on (followed from its
 * log: merge-queue-webhooks.ts). Served as GitHub serves them: `GET .../commits/{ref}/check-runs`,
 * `GET .../check-runs/{id}` and `GET .../check-runs/{id}/annotations` (paged, 30 a page by default, 100 at
 * most), with `checks: read`.
 */

export interface CiCheckRun {
  id: number;
  suiteId: number;
  repository: Repository;
  name: string;
  headSha: string;
  conclusion: CheckConclusion;
  startedAt: string;
  completedAt: string;
  output: CheckOutput | null;
}

const FAILING = new Set<string>(["failure", "timed_out", "cancelled", "action_required"]);

export class CiCheckRuns {
  private nextId = 7_000_000_001;
  private nextSuiteId = 7_500_000_001;
  private readonly outputs = new Map<string, CheckOutput>();
  private readonly runs: CiCheckRun[] = [];

  /** What the check's run says (its output and annotations) whenever CI fails it in this repository. */
  failWith(repository: string, name: string, output: CheckOutput): void {
    this.outputs.set(`${repository.toLowerCase()}|${name}`, output);
  }

  /** The output a failed run of the check carries; undefined when none was set or it did not fail. */
  outputFor(repository: string, name: string, conclusion: string | null): CheckOutput | undefined {
    return conclusion && FAILING.has(conclusion)
      ? this.outputs.get(`${repository.toLowerCase()}|${name}`)
      : undefined;
  }

  /** CI reports a completed run of a check on a commit (unless it already did: the same run). */
  report(
    repository: Repository,
    headSha: string,
    name: string,
    conclusion: CheckConclusion,
    at: string,
  ): CiCheckRun {
    const sha = headSha.toLowerCase();
    const known = this.runs.find(
      (r) =>
        r.repository.id === repository.id &&
        r.headSha === sha &&
        r.name === name &&
        r.conclusion === conclusion,
    );
    if (known) return known;
    const run: CiCheckRun = {
      id: this.nextId++,
      suiteId: this.nextSuiteId++,
      repository,
      name,
      headSha: sha,
      conclusion,
      startedAt: at,
      completedAt: at,
      output: this.outputFor(repository.fullName, name, conclusion) ?? null,
    };
    this.runs.push(run);
    return run;
  }

  /** The runs CI reported on a commit, oldest first. */
  onCommit(fullName: string, sha: string): CiCheckRun[] {
    return this.runs.filter(
      (r) =>
        r.repository.fullName.toLowerCase() === fullName.toLowerCase() && r.headSha === sha.toLowerCase(),
    );
  }

  /** Every run CI reported on a repository, oldest first (what a test reads). */
  all(fullName: string): CiCheckRun[] {
    return this.runs.filter((r) => r.repository.fullName.toLowerCase() === fullName.toLowerCase());
  }

  byId(fullName: string, id: number): CiCheckRun | undefined {
    return this.all(fullName).find((r) => r.id === id);
  }
}

export function ciCheckRunJson(urls: Urls, run: CiCheckRun): Record<string, unknown> {
  const fullName = run.repository.fullName;
  return {
    id: run.id,
    name: run.name,
    node_id: nodeId("CR", run.id),
    head_sha: run.headSha,
    external_id: "",
    url: `${urls.api}/repos/${fullName}/check-runs/${run.id}`,
    html_url: `${urls.web}/${fullName}/runs/${run.id}`,
    details_url: `${urls.web}/${fullName}/actions/runs/${run.suiteId}/job/${run.id}`,
    status: "completed",
    conclusion: run.conclusion,
    started_at: run.startedAt,
    completed_at: run.completedAt,
    output: outputJson(urls, fullName, run.id, run.output),
    check_suite: { id: run.suiteId },
    app: appJson(urls, CI_APP),
    pull_requests: [],
  };
}

/** One annotation as `GET .../check-runs/{id}/annotations` lists it. */
function annotationJson(urls: Urls, fullName: string, headSha: string, a: AnnotationInput) {
  return {
    path: a.path,
    blob_href: `${urls.web}/${fullName}/blob/${headSha}/${a.path}`,
    start_line: a.line,
    end_line: a.line,
    start_column: null,
    end_column: null,
    annotation_level: a.level ?? "failure",
    title: a.title ?? "",
    message: a.message,
    raw_details: null,
  };
}

/** A run by id, whichever reported it: CI on a commit, or CI on a merge group. */
function findRun(
  checks: CiCheckRuns,
  mergeQueues: GitHubMergeQueues,
  fullName: string,
  id: number,
):
  | { json: (urls: Urls) => Record<string, unknown>; headSha: string; output: CheckOutput | null }
  | undefined {
  const ci = checks.byId(fullName, id);
  if (ci) return { json: (urls) => ciCheckRunJson(urls, ci), headSha: ci.headSha, output: ci.output };
  for (const group of mergeQueues.groups(fullName)) {
    const run = group.checkRuns.find((r) => r.id === id);
    if (run)
      return {
        json: (urls) => groupCheckRunJson(urls, group as MergeGroup, run),
        headSha: run.headSha,
        output: run.output ?? null,
      };
  }
  return undefined;
}

/** `GET .../check-runs/{id}` and `GET .../check-runs/{id}/annotations`. */
export function addCiCheckRoutes(
  router: Router,
  ctx: StandInContext,
  checks: CiCheckRuns,
  mergeQueues: GitHubMergeQueues,
): void {
  const { urls } = ctx;
  const reader = (req: Parameters<typeof requireRepository>[1]) => {
    const { caller, repository } = requireRepository(ctx, req);
    // GitHub asks for checks: read; an installation that has not granted it is refused.
    if (caller.kind === "installation" && !caller.token.permissions.checks) {
      throw new HttpError(403, "Resource not accessible by integration");
    }
    return repository;
  };
  router
    .add("GET", "/repos/{owner}/{repo}/check-runs/{id}", (req, res) => {
      const repository = reader(req);
      const run = findRun(checks, mergeQueues, repository.fullName, intParam(req.params.id));
      if (!run) throw notFound();
      sendJson(res, 200, run.json(urls));
    })
    .add("GET", "/repos/{owner}/{repo}/check-runs/{id}/annotations", (req, res) => {
      const repository = reader(req);
      const run = findRun(checks, mergeQueues, repository.fullName, intParam(req.params.id));
      if (!run) throw notFound();
      const all = (run.output?.annotations ?? []).map((a) =>
        annotationJson(urls, repository.fullName, run.headSha, a),
      );
      const { page, headers } = paginate(all, req.query, selfUrl(ctx, req));
      sendJson(res, 200, page, headers);
    });
}
