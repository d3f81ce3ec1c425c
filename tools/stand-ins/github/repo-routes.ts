import type { StandInContext } from "./context.js";
import { intParam, requireRepository, selfUrl } from "./context.js";
import { HttpError, notFound, paginate, type Router, sendJson } from "./http.js";
import { groupCheckRunJson } from "./merge-groups.js";
import type { GitHubMergeQueues } from "./merge-queue-graphql.js";
import { issueJson, pullRequestJson, repositoryJson, userJson } from "./payloads.js";
import { legacyPermission } from "./state.js";

/**
 * Repositories, collaborator permissions, pull requests and issues; a commit's check runs (those of GitHub's
 * merge groups, from `mergeQueues`).
 */
export function addRepoRoutes(router: Router, ctx: StandInContext, mergeQueues?: GitHubMergeQueues): void {
  const { state, urls } = ctx;

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
      const issue = state.getIssue(repository.fullName, intParam(req.params.number));
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
      const group = mergeQueues?.groupOfCommit(repository.fullName, req.params.ref ?? "");
      const wanted = req.query.get("check_name");
      const status = req.query.get("status");
      const runs = (group?.checkRuns ?? [])
        .filter((r) => (wanted === null || r.name === wanted) && (status === null || r.status === status))
        .sort((a, b) => a.id - b.id);
      const { page, headers } = paginate(runs, req.query, selfUrl(ctx, req));
      sendJson(
        res,
        200,
        {
          total_count: runs.length,
          check_runs: group ? page.map((r) => groupCheckRunJson(urls, group, r)) : [],
        },
        headers,
      );
    });
}
