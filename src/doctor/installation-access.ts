import type { BranchRule, GraphQL } from "../backends/setup-check.js";
import { CALL_TIMEOUT_MS, reason } from "../core/setup-line.js";
import type { Repo } from "../repo.js";
import type { GitHubAppSettings } from "../settings/read-settings.js";
import { appJwt } from "./github-app.js";

/**
 * How the setup check reaches GitHub as the app where the running server lends it no installations
 * (`npm run doctor`), for the merge queue's lines (src/backends/setup-check.ts) to read through.
 * GraphQL as each repository's installation, the way GitHub asks of an app: its JWT finds the
 * installation (`GET /repos/{owner}/{repo}/installation`) and gets a token for it
 * (`POST /app/installations/{id}/access_tokens`, one per installation); the token calls `POST /graphql`.
 */
export interface InstallationAccess {
  graphqlFor: (repo: Repo) => Promise<GraphQL>;
  /** `GET /repos/{owner}/{repo}/rules/branches/{branch}` as the installation. */
  rulesFor: (repo: Repo, branch: string) => Promise<BranchRule[]>;
}

export function installationAccess(
  app: GitHubAppSettings,
  apiUrl: string,
  now: () => Date,
): InstallationAccess {
  // GitHub.com's GraphQL is https://api.github.com/graphql; GitHub Enterprise Server's <host>/api/graphql.
  const graphqlUrl = `${apiUrl.replace(/\/api\/v3\/?$/, "/api").replace(/\/$/, "")}/graphql`;
  const tokens = new Map<number, Promise<string>>();
  const request = async (path: string, init: { method?: string; auth: string; body?: unknown }) => {
    const response = await fetch(path.startsWith("http") ? path : `${apiUrl}${path}`, {
      method: init.method ?? "GET",
      headers: {
        authorization: init.auth,
        accept: "application/vnd.github+json",
        "user-agent": "yardmaster-doctor",
        ...(init.body ? { "content-type": "application/json" } : {}),
      },
      ...(init.body ? { body: JSON.stringify(init.body) } : {}),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok) {
      const said = typeof body.message === "string" ? `: ${body.message.slice(0, 200)}` : "";
      throw Object.assign(new Error(`${response.status}${said}`), { status: response.status });
    }
    return body;
  };
  const tokenFor = (id: number) => {
    let token = tokens.get(id);
    if (!token) {
      token = request(`/app/installations/${id}/access_tokens`, {
        method: "POST",
        auth: `Bearer ${appJwt(app, now())}`,
      }).then((body) => String(body.token));
      tokens.set(id, token);
    }
    return token;
  };
  const tokenOf = async (repo: Repo): Promise<string> => {
    let installation: number;
    try {
      const body = await request(`/repos/${repo.owner}/${repo.name}/installation`, {
        auth: `Bearer ${appJwt(app, now())}`,
      });
      installation = Number(body.id);
    } catch (error) {
      if ((error as { status?: number }).status === 404)
        throw new Error(`the GitHub App is not installed on ${repo.fullName}`);
      throw new Error(`its installation cannot be read (${reason(error)})`);
    }
    try {
      return await tokenFor(installation);
    } catch (error) {
      throw new Error(`no token for its installation (${reason(error)})`);
    }
  };
  const graphqlFor = async (repo: Repo): Promise<GraphQL> => {
    const token = await tokenOf(repo);
    return async (query, variables) => {
      const body = await request(graphqlUrl, {
        method: "POST",
        auth: `token ${token}`,
        body: { query, variables },
      });
      const errors = body.errors;
      if (Array.isArray(errors) && errors.length > 0)
        throw Object.assign(new Error((errors as { message?: string }[]).map((e) => e.message).join("; ")), {
          errors,
        });
      return body.data;
    };
  };
  const rulesFor = async (repo: Repo, branch: string): Promise<BranchRule[]> => {
    const token = await tokenOf(repo);
    const path = `/repos/${repo.owner}/${repo.name}/rules/branches/${encodeURIComponent(branch)}?per_page=100`;
    const body: unknown = await request(path, { auth: `token ${token}` });
    return Array.isArray(body) ? (body as BranchRule[]) : [];
  };
  return { graphqlFor, rulesFor };
}
