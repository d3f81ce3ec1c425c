import pLimit from "p-limit";
import type { QueueProvider } from "../backends/choose.js";
import { GitHubQueueClient, type GraphQL } from "../backends/github/client.js";
import type { BranchRule } from "../backends/github/gate/index.js";
import type { SetupLine } from "../commands/setup-report.js";
import { CommandError } from "../core/errors.js";
import type { Repo } from "../repo.js";
import type { GitHubAppSettings } from "../settings/read-settings.js";
import { gateRulesLine } from "./gate-rules.js";
import { appJwt } from "./github-app.js";
import { CALL_TIMEOUT_MS, fail, pass, reason, skip, warn } from "./line.js";
import { MOST_REPOSITORIES } from "./merge-queue-token.js";

/**
 * Which merge queue serves each subscribed repository: Mergify for all with MERGE_QUEUE_PROVIDER=mergify;
 * otherwise the GitHub App asks GitHub (as the repository's installation, the GraphQL read `auto` makes)
 * whether the default branch has a merge queue. With `github` a repository without one is a warning
 * (its commands are refused); with `auto` it is served by Mergify, and only those repositories are given
 * to the merge-queue token check.
 */

const CHECK = "merge queue";
/** Repositories asked at once (one GraphQL call each, and a token per installation). */
const AT_ONCE = 4;
const READ_FIX =
  "install the GitHub App on the repository with the permissions app.yml asks for (see the GitHub App lines), then run npm run doctor again";

export interface MergeQueueBackendsOptions {
  provider: QueueProvider;
  /** The GitHub App (null when not configured). */
  app: GitHubAppSettings | null;
  apiUrl: string;
  /** Every subscribed repository, or why they cannot be listed. */
  repositories: readonly Repo[] | Error;
  /** The merge-queue token check (checkMergeQueueToken), given the repositories Mergify serves. */
  checkToken(repositories: readonly Repo[] | Error): Promise<SetupLine[]>;
  /** How the app reaches a repository's GraphQL (default: as its installation, with fetch). */
  graphqlFor?: (repo: Repo) => Promise<GraphQL>;
  /**
   * The gate check (GATE_CHECK_NAME) whose place in each GitHub queue's branch rules is checked; how the
   * rules are read (default: as the installation, with fetch). Absent: not checked.
   */
  gate?: { name: string; rulesFor?: (repo: Repo, branch: string) => Promise<BranchRule[]> };
  now?: () => Date;
}

type Served = { repo: Repo; line: SetupLine; mergify: boolean; gate?: SetupLine };

export async function checkMergeQueueBackends(options: MergeQueueBackendsOptions): Promise<SetupLine[]> {
  const { provider, repositories, checkToken } = options;
  if (provider === "mergify") {
    const named = repositories instanceof Error ? [] : repositories.slice(0, MOST_REPOSITORIES);
    return [...named.map((r) => pass(CHECK, `${r.fullName}: Mergify`)), ...(await checkToken(repositories))];
  }
  // With `auto` the token is checked on what Mergify serves; with `github` it is not asked for.
  const token = async (of: readonly Repo[] | Error) => (provider === "auto" ? checkToken(of) : []);
  if (repositories instanceof Error)
    return [
      skip(CHECK, `the subscribed repositories cannot be listed (${repositories.message})`),
      ...(await token(repositories)),
    ];
  if (repositories.length === 0)
    return provider === "auto"
      ? checkToken(repositories)
      : [
          pass(
            CHECK,
            "no repository is subscribed yet: nothing to read (/mq subscribe owner/repo in a channel)",
          ),
        ];
  const { app } = options;
  if (!app && !options.graphqlFor)
    return [
      fail(
        CHECK,
        `MERGE_QUEUE_PROVIDER=${provider} asks GitHub which branches have a merge queue, through the GitHub App, which is not configured`,
        "set APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH and WEBHOOK_SECRET, or use MERGE_QUEUE_PROVIDER=mergify",
      ),
      ...(await token(repositories)),
    ];
  const access = app ? installationAccess(app, options.apiUrl, options.now ?? (() => new Date())) : null;
  const graphqlFor = options.graphqlFor ?? (access as InstallationAccess).graphqlFor;
  const client = new GitHubQueueClient(graphqlFor);
  const rulesFor = options.gate?.rulesFor ?? access?.rulesFor;
  const gate =
    options.gate && rulesFor && app
      ? { name: options.gate.name, appId: Number(app.appId), rulesFor }
      : undefined;
  const limit = pLimit(AT_ONCE);
  const served = await Promise.all(
    repositories
      .slice(0, MOST_REPOSITORIES)
      .map((repo) => limit(() => readOne(client, repo, provider === "auto", gate))),
  );
  const rest = repositories.length - MOST_REPOSITORIES;
  const lines = [
    ...served.flatMap((s) => (s.gate ? [s.line, s.gate] : [s.line])),
    ...(rest > 0 ? [skip(CHECK, `${rest} more subscribed repositories not checked`)] : []),
  ];
  if (provider === "github") return lines;
  const mergify = served.filter((s) => s.mergify).map((s) => s.repo);
  return [
    ...lines,
    ...(mergify.length > 0
      ? await checkToken(mergify)
      : [skip("merge-queue token", "not needed: no subscribed repository checked uses Mergify")]),
  ];
}

interface GateReading {
  name: string;
  appId: number;
  rulesFor: (repo: Repo, branch: string) => Promise<BranchRule[]>;
}

async function readOne(
  client: GitHubQueueClient,
  repo: Repo,
  auto: boolean,
  gate: GateReading | undefined,
): Promise<Served> {
  const name = repo.fullName;
  let branch: string | null;
  let queue: boolean;
  try {
    ({ branch, queue } = await client.defaultBranchQueue(repo));
  } catch (error) {
    const detail = error instanceof CommandError ? (error.details.detail ?? error.message) : reason(error);
    return {
      repo,
      mergify: false,
      line: fail(
        CHECK,
        `${name}: the GitHub App cannot read whether its default branch has a merge queue (${detail.slice(0, 200)})`,
        READ_FIX,
      ),
    };
  }
  const where = branch ?? "its default branch";
  if (queue) {
    const line = pass(CHECK, `${name}: GitHub's merge queue (${where})`);
    if (!gate || !branch) return { repo, mergify: false, line };
    const rules = await gate.rulesFor(repo, branch).catch((error: unknown) => error as Error);
    const target = { repo, branch, gateName: gate.name, appId: gate.appId };
    return { repo, mergify: false, line, gate: gateRulesLine(target, rules) };
  }
  if (auto)
    return { repo, mergify: true, line: pass(CHECK, `${name}: Mergify (no GitHub merge queue on ${where})`) };
  return {
    repo,
    mergify: false,
    line: warn(
      CHECK,
      `${name}: ${where} has no merge queue on GitHub`,
      "turn one on in a branch ruleset, or use MERGE_QUEUE_PROVIDER=auto",
    ),
  };
}

/**
 * GraphQL as each repository's installation, the way GitHub asks of an app: its JWT finds the
 * installation (`GET /repos/{owner}/{repo}/installation`) and gets a token for it
 * (`POST /app/installations/{id}/access_tokens`, one per installation); the token calls `POST /graphql`.
 */
interface InstallationAccess {
  graphqlFor: (repo: Repo) => Promise<GraphQL>;
  /** `GET /repos/{owner}/{repo}/rules/branches/{branch}` as the installation. */
  rulesFor: (repo: Repo, branch: string) => Promise<BranchRule[]>;
}

function installationAccess(app: GitHubAppSettings, apiUrl: string, now: () => Date): InstallationAccess {
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
