import type { CommandPorts } from "../app/command-ports.js";
import type { Infrastructure } from "../app/infrastructure.js";
import type { Service, Wired } from "../app/service.js";
import { type GitHubGate, registerGateWebhooks } from "../backends/github/gate/index.js";
import { cachedPermission } from "../commands/cached-permission.js";
import type { GitHubGateway, PermissionLookup } from "../commands/ports.js";
import type { RelayFollower } from "../relays/follower.js";
import { CheckRunReader } from "./check-runs.js";
import { GitHubWrites } from "./github-writes.js";
import { unavailableGateway } from "./installations.js";
import { type GitHubAppConnection, startGitHubSurface } from "./probot.js";
import { WebhookArrivals, WebhookJobs } from "./webhook-jobs.js";
import { StoreWritePace } from "./write-pace.js";

export interface GitHubWiring extends Wired {
  /** The app's one write queue; null when the GitHub App is off. */
  writes: GitHubWrites | null;
  /** The commands' GitHub, acting as the repository's installation; refuses clearly when the app is off. */
  gateway: GitHubGateway;
  /** Who may read a repository, cached a while: personal notices and the Home tab (commands ask at the time). */
  readPermission: PermissionLookup;
}

export interface GitHubDeps {
  infra: Pick<
    Infrastructure,
    "config" | "options" | "logger" | "metrics" | "store" | "owner" | "urls" | "trackWebhookWork" | "work"
  > &
    Pick<Infrastructure, "rings" | "happenings" | "merges" | "now">;
  /** The connected GitHub App; null when it is not configured (then only the refusing gateway). */
  app: GitHubAppConnection | null;
  commands: CommandPorts;
  /** Relayed commands' answers, followed where they were asked; null: not followed. */
  follower: RelayFollower | null;
  /** GitHub's own merge queue may serve some repository: its webhooks are heard. */
  hearsQueue: boolean;
  /** The app's write queue and the commands' GitHub (githubWrites); null when the app is off. */
  writing: GitHubWriting | null;
  /** The gate check of GitHub's merge queue, fed its webhooks; null where there is none. */
  gate: GitHubGate | null;
}

/** The app's one write queue and the commands' GitHub over it. */
export interface GitHubWriting {
  writes: GitHubWrites;
  gateway: GitHubGateway;
  /**
   * GitHub's check runs as the repository's installation, read within the shared pace and cached: a merge
   * group's failed checks and a removal's details read them once (src/github/check-runs.ts).
   */
  checkRuns: CheckRunReader;
}

/**
 * The app's write queue on the pace every replica shares in the store, and the commands' GitHub acting
 * as the repository's installation over it: built before the backends (the gate writes through it).
 */
export function githubWrites(
  infra: Pick<Infrastructure, "config" | "options" | "logger" | "metrics" | "store" | "owner" | "urls">,
  app: GitHubAppConnection | null,
): GitHubWriting | null {
  const config = infra.config.github;
  if (!config || !app) return null;
  const { logger, metrics, store, owner } = infra;
  const answers = infra.options.githubAnswers ?? {};
  const writes = new GitHubWrites({
    logger: logger.child({ name: "github-writes" }),
    ...(answers.limits ? { limits: answers.limits } : {}),
    ...(answers.retry ? { retry: answers.retry } : {}),
    // GitHub's limits count per app: every replica of it keeps one pace, in the store they share.
    pace: new StoreWritePace(store, config.appId, owner),
    onRateLimited: (status) => metrics.githubRateLimited.inc({ status: String(status) }),
  });
  const { installations } = app;
  const checkRuns = new CheckRunReader({
    octokitFor: (repo) => installations.rest(repo),
    githubWebUrl: infra.urls.webUrl,
    pace: writes,
  });
  return { writes, gateway: installations.gateway(writes), checkRuns };
}

/**
 * The GitHub surface (src/github): the write queue on the app's shared pace, comment commands recorded
 * as webhook jobs and run after their answer, GitHub's activity ringing the notifier, GitHub's merge
 * queue's webhooks told to it.
 */
export async function wireGitHub(deps: GitHubDeps): Promise<GitHubWiring> {
  const { infra, app, writing } = deps;
  if (!app || !writing) {
    const gateway = unavailableGateway();
    return { writes: null, gateway, readPermission: readCache(gateway) };
  }
  const { logger, store, owner } = infra;
  const answers = infra.options.githubAnswers ?? {};
  const { writes, gateway } = writing;
  const arrivals = new WebhookArrivals();
  const made: { jobs?: WebhookJobs } = {};
  const handler = await startGitHubSurface(
    app,
    {
      ...deps.commands,
      // A comment command is recorded and answered at once; it runs after (src/github/webhook-jobs.ts).
      jobs: (run) => {
        made.jobs = new WebhookJobs({
          store,
          work: infra.work,
          owner,
          run,
          track: infra.trackWebhookWork,
          arrivals,
          logger: logger.child({ name: "webhook-jobs" }),
          leaseMs: answers.jobLeaseMs ?? infra.config.commandClaimSeconds * 1000,
        });
        return made.jobs;
      },
      writes,
      summaryClaims: { records: store, owner },
      commandSteps: store,
      githubWebUrl: infra.urls.webUrl,
      ...(answers.seenAfterMs !== undefined ? { seenAfterMs: answers.seenAfterMs } : {}),
      ...(answers.answerRetryDelayMs !== undefined ? { answerRetryDelayMs: answers.answerRetryDelayMs } : {}),
      // GitHub's events ring the notifier (once Slack is configured, it listens).
      onRepositoryActivity: (repository) => infra.rings.tell(repository),
      ...(deps.follower
        ? { relays: { follower: deps.follower, botLogin: infra.config.mergeQueue.botLogin } }
        : {}),
      // Merged pull requests are judged through their queue or outside it (once Slack is configured).
      onPullMerged: (merge, deliveryId) => infra.merges.tell(merge, deliveryId),
      now: infra.now,
      // GitHub's queue webhooks feed the notifier's pushed notices (once Slack is configured).
      ...(deps.hearsQueue
        ? { onQueueHappening: (happening, deliveryId) => infra.happenings.tell(happening, deliveryId) }
        : {}),
    },
    arrivals,
  );
  // The gate hears merge groups and pull requests' heads after the surface (src/backends/github/gate/).
  if (deps.gate) registerGateWebhooks(app.probot, deps.gate);
  return {
    handlers: [handler],
    services: [
      ...jobsService(made.jobs),
      // The gate's kinds of durable work: its check runs, completions, decisions again and sweep.
      ...(deps.gate ? [gateService(deps.gate)] : []),
    ],
    writes,
    gateway,
    readPermission: readCache(gateway),
  };
}

/** The gate's runs on this replica, from the app's start to its stop. */
function gateService(gate: Pick<GitHubGate, "start" | "stop">): Service {
  return { name: "gate", start: () => gate.start(), stop: () => gate.stop() };
}

function readCache(gateway: GitHubGateway): PermissionLookup {
  return cachedPermission((repo, login) => gateway.permission(repo, login));
}

/**
 * A command whose replica stopped or died before it ran is run by another's runner once its claim
 * lapses; on stop, the commands under way here are waited for.
 */
function jobsService(jobs: WebhookJobs | undefined): Service[] {
  return jobs ? [{ name: "webhook-jobs", start: () => jobs.start(), stop: () => jobs.stop() }] : [];
}
