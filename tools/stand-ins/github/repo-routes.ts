import { type CiCheckRuns, ciCheckRunJson } from "./ci-check-runs.js";
import type { StandInContext } from "./context.js";
import { intParam, requireRepository, selfUrl } from "./context.js";
import { HttpError, notFound, paginate, type Router, sendJson } from "./http.js";
import { groupCheckRunJson, type MergeGroup } from "./merge-groups.js";
import type { GitHubMergeQueues } from "./merge-queue-graphql.js";
import { issueJson, pullRequestJson, repositoryJson, userJson } from "./payloads.js";
import { type Issue, legacyPermission } from "./state.js";

/**
 * Repositories, collaborator permissions, pull requests and issues; a commit's check runs (those of GitHub's
 * merge groups, from `mergeQueues`).
 */
export function addRepoRoutes(
  router: Router,
  ctx: StandInContext,
  checks: {
    mergeQueues?: GitHubMergeQueues;
    /** CI's check runs on other commits (Mergify's checks: ci-check-runs.ts). */
    checkRuns?: CiCheckRuns;
    /** The draft pull requests the merge queue opened for its batches (not listed, but readable). */
    drafts?: { draft(fullName: string, number: number): Issue | undefined };
  } = {},
): void {
  const { state, urls } = ctx;
  const { mergeQueues, checkRuns, drafts } = checks;

  router
    .add("GET", "/repos/{owner}/{repo}", (req, res) => {
      const { caller, repository } = requireRepository(ctx, req);
      const role = caller.kind === "user" ? state.roleOf(repository, caller.actor.login) : undefined;
      sendJson(res, 200, {
        ...repositoryJson(urls, repository),
        ...(role
          ? {
              permissions: {
                admin: role === "admin",
                maintain: ["admin", "maintain"].includes(role),
                push: ["admin", "maintain", "write"].includes(role),
                triage: ["admin", "maintain", "write", "triage"].includes(role),
                pull: role !== "none",
              },
            }
          : {}),
      });
    })
    .add("GET", "/repos/{owner}/{repo}/collaborators/{username}/permission", (req, res) => {
      const { repository } = requireRepository(ctx, req);
      const login = req.params.username ?? "";
      const user = state.getUser(login);
      const role = state.roleOf(repository, login);
      if (!user || role === undefined) throw new HttpError(404, `${login} is not a user`);
      sendJson(res, 200, {
        permission: legacyPermission(role),
        role_name: role,
        user: userJson(urls, user),
      });
    })
    .add("GET", "/repos/{owner}/{repo}/pulls", (req, res) => {
      const { repository } = requireRepository(ctx, req);
      const wanted = req.query.get("state") ?? "open";
      const pulls = state
        .pullRequests(repository.fullName)
        .filter((p) => wanted === "all" || p.state === wanted)
        .sort((a, b) => b.number - a.number);
      const { page, headers } = paginate(pulls, req.query, selfUrl(ctx, req));
      sendJson(
        res,
        200,
        page.map((p) => pullRequestJson(urls, state, p)),
        headers,
      );
    })
    .add("GET", "/repos/{owner}/{repo}/pulls/{number}", (req, res) => {
      const { repository } = requireRepository(ctx, req);
      const number = intParam(req.params.number);
      const issue = state.getIssue(repository.fullName, number) ?? drafts?.draft(repository.fullName, number);
      if (!issue?.pull) throw notFound();
      sendJson(res, 200, pullRequestJson(urls, state, issue));
    })
    .add("GET", "/repos/{owner}/{repo}/issues/{number}", (req, res) => {
      const { repository } = requireRepository(ctx, req);
      const issue = state.getIssue(repository.fullName, intParam(req.params.number));
      if (!issue) throw notFound();
      sendJson(res, 200, issueJson(urls, state, issue));
    })
    .add("GET", "/repos/{owner}/{repo}/commits/{ref}/check-runs", (req, res) => {
      const { caller, repository } = requireRepository(ctx, req);
      // GitHub asks for checks: read; an installation that has not granted it is refused.
      if (caller.kind === "installation" && !caller.token.permissions.checks) {
        throw new HttpError(403, "Resource not accessible by integration");
      }
      const ref = req.params.ref ?? "";
      const group = mergeQueues?.groupOfCommit(repository.fullName, ref);
      const wanted = req.query.get("check_name");
      const status = req.query.get("status");
      // A merge group's runs, and those CI reported on the commit (Mergify's checks), oldest first.
      const runs = [
        ...(group?.checkRuns ?? []).map((r) => ({
          id: r.id,
          name: r.name,
          status: r.status as string,
          json: () => groupCheckRunJson(urls, group as MergeGroup, r),
        })),
        ...(checkRuns?.onCommit(repository.fullName, ref) ?? []).map((r) => ({
          id: r.id,
          name: r.name,
          status: "completed",
          json: () => ciCheckRunJson(urls, r),
        })),
      ]
        .filter((r) => (wanted === null || r.name === wanted) && (status === null || r.status === status))
        .sort((a, b) => a.id - b.id);
      const { page, headers } = paginate(runs, req.query, selfUrl(ctx, req));
      sendJson(res, 200, { total_count: runs.length, check_runs: page.map((r) => r.json()) }, headers);
    });
}
