import { createNodeMiddleware, Probot, ProbotOctokit } from "probot";
import type { Logger } from "../logger.js";
import { type Handler, pathOf } from "../server/http-server.js";
import type { GitHubAppSettings, GitHubHost } from "../settings/read-settings.js";
import { type GitHubSurfaceDeps, githubApp } from "./app.js";
import { keepInstallationClients } from "./installation-clients.js";
import { Installations } from "./installations.js";
import type { WebhookArrivals } from "./webhook-jobs.js";

export const WEBHOOKS_PATH = "/api/github/webhooks";

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

/** The GitHub App, connected: its Probot, its slug and its installations (for what no webhook brings). */
export interface GitHubAppConnection {
  probot: Probot;
  appSlug: string;
  installations: Installations;
}

/**
 * Connects to the GitHub App: a Probot for the app and its slug read from GitHub (GET /app). Comes
 * before the surface, since GitHub's merge queue acts as the app's installations too.
 */
export async function connectGitHubApp(
  app: GitHubAppSettings,
  host: GitHubHost,
  logger: Logger,
  Octokit: typeof ProbotOctokit = ProbotOctokit,
  /** The clock an installation's cached copy ages on (YardmasterOptions.now). */
  now: () => Date = () => new Date(),
): Promise<GitHubAppConnection> {
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
  return { probot, appSlug, installations: new Installations(probot, { now: () => now().getTime() }) };
}

/**
 * The GitHub surface: the webhook middleware at POST /api/github/webhooks (signature checked by Probot
 * before anything runs), on the connected app.
 */
export async function startGitHubSurface(
  app: Pick<GitHubAppConnection, "probot" | "appSlug">,
  deps: Omit<GitHubSurfaceDeps, "appSlug">,
  arrivals?: WebhookArrivals,
): Promise<Handler> {
  const middleware = await createNodeMiddleware(githubApp({ ...deps, appSlug: app.appSlug }), {
    probot: app.probot,
    webhooksPath: WEBHOOKS_PATH,
  });
  return async (req, res) => {
    // Counted from arrival to answer: the jobs webhooks record start once the burst is answered.
    if (arrivals && req.method === "POST" && pathOf(req) === WEBHOOKS_PATH)
      res.once("close", arrivals.begin());
    return (await middleware(req, res)) === true;
  };
}
