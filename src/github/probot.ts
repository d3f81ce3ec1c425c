import { createNodeMiddleware, Probot, ProbotOctokit } from "probot";
import type { Logger } from "../logger.js";
import { type Handler, pathOf } from "../server/http-server.js";
import type { GitHubAppSettings, GitHubHost } from "../settings/read-settings.js";
import { type GitHubSurfaceDeps, githubApp } from "./app.js";
import { keepInstallationClients } from "./installation-clients.js";
import type { WebhookArrivals } from "./webhook-jobs.js";

export const WEBHOOKS_PATH = "/api/github/webhooks";

export interface GitHubSurface {
  probot: Probot;
  appSlug: string;
  handler: Handler;
}

/**
 * A stand-in for a Bottleneck group of @octokit/plugin-throttling that lets every request through at
 * once. Its `write` group spaces writes a second apart and its `notifications` group spaces comment
 * creations three seconds apart, for the whole process: the app's write queue (github-writes.ts) paces
 * writes instead, so the throttle keeps only its part for reads (concurrency, primary rate limit).
 */
const UNPACED = {
  key: () => ({
    schedule: <A extends unknown[], R>(_options: unknown, task: (...args: A) => R, ...args: A): R =>
      task(...args),
  }),
};

/**
 * Probot's Octokit with its throttle's write pacing taken out (see UNPACED), and one client kept per
 * installation (installation-clients.ts).
 */
export function appOctokitClass(Octokit: typeof ProbotOctokit): typeof ProbotOctokit {
  return Octokit.plugin(keepInstallationClients as never).defaults((options: Record<string, unknown>) => ({
    ...options,
    throttle: {
      ...(options.throttle as Record<string, unknown> | undefined),
      write: UNPACED,
      notifications: UNPACED,
    },
  }));
}

/**
 * Starts the GitHub surface: a Probot for the app, its slug read from GitHub (GET /app), and the
 * webhook middleware at POST /api/github/webhooks (signature checked by Probot before anything runs).
 */
export async function startGitHubSurface(
  app: GitHubAppSettings,
  host: GitHubHost,
  deps: Omit<GitHubSurfaceDeps, "appSlug">,
  logger: Logger,
  Octokit: typeof ProbotOctokit = ProbotOctokit,
  arrivals?: WebhookArrivals,
): Promise<GitHubSurface> {
  const probot = new Probot({
    appId: app.appId,
    privateKey: app.privateKey,
    secret: app.webhookSecret,
    log: logger.child({ name: "probot" }),
    Octokit: appOctokitClass(Octokit),
    ...(host ? { baseUrl: host.apiUrl } : {}),
  });
  let appSlug: string;
  try {
    const octokit = await probot.auth();
    const { data } = await octokit.rest.apps.getAuthenticated();
    if (!data?.slug) throw new Error("GET /app answered without a slug");
    appSlug = data.slug;
  } catch (error) {
    throw new Error(
      `Could not read the GitHub App from ${host?.apiUrl ?? "api.github.com"} (${(error as Error).message}): check APP_ID and PRIVATE_KEY${host ? ", GHE_HOST and GHE_PROTOCOL" : ""}.`,
    );
  }
  const middleware = await createNodeMiddleware(githubApp({ ...deps, appSlug }), {
    probot,
    webhooksPath: WEBHOOKS_PATH,
  });
  const handler: Handler = async (req, res) => {
    // Counted from arrival to answer: the jobs webhooks record start once the burst is answered.
    if (arrivals && req.method === "POST" && pathOf(req) === WEBHOOKS_PATH)
      res.once("close", arrivals.begin());
    return (await middleware(req, res)) === true;
  };
  return { probot, appSlug, handler };
}
