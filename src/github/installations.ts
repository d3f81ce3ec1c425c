import { LRUCache } from "lru-cache";
import type { Probot } from "probot";
import type { GraphQL } from "../backends/github/client.js";
import { repositoryError } from "../backends/github/repository-error.js";
import { CommandError, CommandErrorCode } from "../commands/errors.js";
import type { GitHubGateway } from "../commands/ports.js";
import { QueueError, QueueErrorCode } from "../core/queue-error.js";
import type { Repo } from "../repo.js";
import { surfaceSettings } from "../settings/surfaces.js";
import { ANNOUNCING_EVENTS } from "./doorbell.js";
import type { GitHubWrites } from "./github-writes.js";
import { type Octokit, octokitGateway } from "./octokit-gateway.js";

/** How long the app's installation on a repository is trusted (it changes when the app is reinstalled). */
const INSTALLATION_CACHE_MS = 10 * 60_000;
/** At most this many repositories' installations are remembered; the least recently used go first. */
const KEPT_REPOSITORIES = 5_000;

interface Installation {
  id: number;
  /** The webhook events the installation receives. */
  events: readonly string[];
}

/**
 * The app's installation on each repository, looked up as the app (GET /repos/{owner}/{repo}/installation)
 * and cached a while: for the GitHub calls of commands that do not come from a webhook (Slack), and to
 * know whether GitHub announces a repository's activity to the app (the notifier's doorbell).
 */
export class Installations {
  private readonly cache: LRUCache<string, Installation>;

  /** `now`: the clock the cache's time to live is read on (tests move it). */
  constructor(
    private readonly probot: Probot,
    options: { now?: () => number } = {},
  ) {
    this.cache = new LRUCache({
      max: KEPT_REPOSITORIES,
      ttl: INSTALLATION_CACHE_MS,
      ...(options.now ? { perf: { now: options.now }, ttlResolution: 0 } : {}),
    });
  }

  async of(repo: Repo): Promise<Installation> {
    const hit = this.cache.get(repo.key);
    if (hit) return hit;
    const app = await this.probot.auth();
    let installation: Installation;
    try {
      const { data } = await app.rest.apps.getRepoInstallation({ owner: repo.owner, repo: repo.name });
      installation = { id: data.id, events: data.events ?? [] };
    } catch (error) {
      if ((error as { status?: number }).status === 404) {
        throw new QueueError(
          QueueErrorCode.RepositoryNotFound,
          `the GitHub App is not installed on ${repo.fullName}`,
          { status: 404, cause: error },
        );
      }
      throw repositoryError(repo, error);
    }
    this.cache.set(repo.key, installation);
    return installation;
  }

  /** An Octokit acting as the repository's installation. */
  private async octokitFor(repo: Repo): Promise<Octokit> {
    return this.probot.auth((await this.of(repo)).id);
  }

  /**
   * Whether GitHub tells the app when the repository's merge queue acts: the installation receives the
   * events the merge queue always causes (ANNOUNCING_EVENTS).
   */
  async announcesActivity(repo: Repo): Promise<boolean> {
    const { events } = await this.of(repo);
    return ANNOUNCING_EVENTS.every((e) => events.includes(e));
  }

  /** REST as the repository's installation (the gate check of GitHub's own merge queue). */
  async rest(repo: Repo): Promise<Octokit> {
    return this.octokitFor(repo);
  }

  /** GraphQL as the repository's installation (GitHub's own merge queue). */
  async graphql(repo: Repo): Promise<GraphQL> {
    const octokit = await this.octokitFor(repo);
    return (query, variables) => octokit.graphql(query, variables);
  }

  /** The commands' GitHub gateway, acting as the repository's installation. */
  gateway(writes: GitHubWrites): GitHubGateway {
    return octokitGateway((repo: Repo): Promise<Octokit> => this.octokitFor(repo), writes);
  }
}

/** Used when the GitHub surface is off: reads still work, anything needing GitHub is refused clearly. */
export function unavailableGateway(): GitHubGateway {
  const refuse = async (): Promise<never> => {
    throw new CommandError(CommandErrorCode.Unavailable, {
      detail: `this needs the GitHub App, which is not configured (${surfaceSettings("github")})`,
    });
  };
  return { permission: refuse, pullRequest: refuse, comment: refuse, findComment: refuse };
}
