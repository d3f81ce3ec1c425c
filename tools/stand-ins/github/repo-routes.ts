import type { StandInContext } from "./context.js";
import { intParam, requireRepository, selfUrl } from "./context.js";
import { HttpError, notFound, paginate, type Router, sendJson } from "./http.js";
import { issueJson, pullRequestJson, repositoryJson, userJson } from "./payloads.js";
import { legacyPermission } from "./state.js";

/** Repositories, collaborator permissions, pull requests and issues. */
export function addRepoRoutes(router: Router, ctx: StandInContext): void {
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
    });
}
