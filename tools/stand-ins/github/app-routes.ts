import type { StandInContext } from "./context.js";
import { intParam, requireApp, requireToken, selfUrl } from "./context.js";
import { bodyFields, HttpError, notFound, paginate, type Router, sendEmpty, sendJson } from "./http.js";
import { appJson, installationJson, repositoryJson } from "./payloads.js";
import type { Installation } from "./state.js";

const LEVELS = ["read", "write", "admin"];

/** The permissions a token asks for, which must be within the installation's. */
function requestedPermissions(value: unknown, installation: Installation): Record<string, string> {
  if (value === undefined || value === null) return { ...installation.permissions };
  if (typeof value !== "object" || Array.isArray(value)) throw new HttpError(422, "Invalid permissions");
  const out: Record<string, string> = {};
  for (const [name, level] of Object.entries(value)) {
    const granted = installation.permissions[name];
    if (typeof level !== "string" || !granted || LEVELS.indexOf(level) > LEVELS.indexOf(granted)) {
      throw new HttpError(422, "The permissions requested are not granted to this installation.");
    }
    out[name] = level;
  }
  return out;
}

export function addAppRoutes(router: Router, ctx: StandInContext): void {
  const { state, urls, app } = ctx;
  const installationOr404 = (installation: Installation | undefined): Installation => {
    if (!installation) throw notFound();
    return installation;
  };

  router
    .add("GET", "/app", (req, res) => {
      requireApp(ctx, req);
      sendJson(res, 200, appJson(urls, app, state.listInstallations().length));
    })
    .add("GET", "/app/installations", (req, res) => {
      requireApp(ctx, req);
      const all = state.listInstallations().map((i) => installationJson(urls, app, i));
      const { page, headers } = paginate(all, req.query, selfUrl(ctx, req));
      sendJson(res, 200, page, headers);
    })
    .add("GET", "/app/installations/{id}", (req, res) => {
      requireApp(ctx, req);
      const installation = installationOr404(state.getInstallation(intParam(req.params.id)));
      sendJson(res, 200, installationJson(urls, app, installation));
    })
    .add("GET", "/repos/{owner}/{repo}/installation", (req, res) => {
      requireApp(ctx, req);
      const repository = state.getRepository(`${req.params.owner}/${req.params.repo}`);
      if (!repository) throw notFound();
      const installation = installationOr404(state.installationForAccount(repository.owner.login));
      sendJson(res, 200, installationJson(urls, app, installation));
    })
    .add("GET", "/orgs/{org}/installation", (req, res) => {
      requireApp(ctx, req);
      const installation = installationOr404(state.installationForAccount(req.params.org ?? ""));
      if (installation.account.type !== "Organization") throw notFound();
      sendJson(res, 200, installationJson(urls, app, installation));
    })
    .add("GET", "/users/{username}/installation", (req, res) => {
      requireApp(ctx, req);
      const installation = installationOr404(state.installationForAccount(req.params.username ?? ""));
      sendJson(res, 200, installationJson(urls, app, installation));
    })
    .add("POST", "/app/installations/{id}/access_tokens", (req, res) => {
      requireApp(ctx, req);
      const installation = installationOr404(state.getInstallation(intParam(req.params.id)));
      const fields = bodyFields(req.body);
      const permissions = requestedPermissions(fields.permissions, installation);
      const repositories = state.repositoriesOf(installation);
      let selected: typeof repositories | null = null;
      const names = fields.repositories;
      const ids = fields.repository_ids;
      if (names !== undefined || ids !== undefined) {
        const wantedNames = Array.isArray(names) ? names : [];
        const wantedIds = Array.isArray(ids) ? ids : [];
        selected = repositories.filter(
          (r) =>
            wantedNames.some((n) => typeof n === "string" && n.toLowerCase() === r.name.toLowerCase()) ||
            wantedIds.includes(r.id),
        );
        if (selected.length !== wantedNames.length + wantedIds.length) {
          throw new HttpError(
            422,
            "There is at least one repository that does not exist or is not accessible to the parent installation.",
          );
        }
      }
      const issued = ctx.installationTokens.issue(
        installation.id,
        permissions,
        selected?.map((r) => r.id) ?? null,
      );
      sendJson(res, 201, {
        token: issued.token,
        expires_at: issued.expiresAt.toISOString().replace(/\.\d{3}Z$/, "Z"),
        permissions,
        repository_selection: selected ? "selected" : "all",
        ...(selected ? { repositories: selected.map((r) => repositoryJson(urls, r)) } : {}),
      });
    })
    .add("GET", "/installation/repositories", (req, res) => {
      const caller = requireToken(ctx, req);
      if (caller.kind !== "installation") throw new HttpError(403, "Resource not accessible by integration");
      const restricted = caller.token.repositoryIds;
      const repositories = state
        .repositoriesOf(caller.installation)
        .filter((r) => restricted === null || restricted.includes(r.id));
      const { page, headers } = paginate(repositories, req.query, selfUrl(ctx, req));
      sendJson(
        res,
        200,
        {
          total_count: repositories.length,
          repository_selection: restricted === null ? "all" : "selected",
          repositories: page.map((r) => repositoryJson(urls, r)),
        },
        headers,
      );
    })
    .add("DELETE", "/installation/token", (req, res) => {
      const caller = requireToken(ctx, req);
      if (caller.kind !== "installation") throw new HttpError(403, "Resource not accessible by integration");
      ctx.installationTokens.revoke(caller.token.token);
      sendEmpty(res, 204);
    });
}
