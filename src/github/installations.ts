import type { Probot } from "probot";
import { CommandError, CommandErrorCode } from "../commands/errors.js";
import type { GitHubGateway } from "../commands/ports.js";
import type { Repo } from "../repo.js";
import { surfaceSettings } from "../settings/surfaces.js";
import type { GitHubWrites } from "./github-writes.js";
import { type Octokit, octokitGateway } from "./octokit-gateway.js";

// Hand-written: a Map with an expiry per repository is the whole cache; no cache package is a dependency.
const INSTALLATION_CACHE_MS = 10 * 60_000;

/**
 * The GitHub calls of commands that do not come from a webhook (Slack): the repository's
 * installation is looked up as the app (GET /repos/{owner}/{repo}/installation), cached a while.
 */
export function installationGateway(probot: Probot, writes: GitHubWrites): GitHubGateway {
  const cache = new Map<string, { id: number; until: number }>();
  return octokitGateway(async (repo: Repo): Promise<Octokit> => {
    const key = repo.key;
    const hit = cache.get(key);
    let id = hit && hit.until > Date.now() ? hit.id : undefined;
    if (id === undefined) {
      const app = await probot.auth();
      try {
        const { data } = await app.rest.apps.getRepoInstallation({ owner: repo.owner, repo: repo.name });
        id = data.id;
      } catch (error) {
        if ((error as { status?: number }).status === 404) {
          throw new Error(`the GitHub App is not installed on ${repo.fullName}`);
        }
        throw error;
      }
      cache.set(key, { id, until: Date.now() + INSTALLATION_CACHE_MS });
    }
    return probot.auth(id);
  }, writes);
}

/** Used when the GitHub surface is off: reads still work, anything needing GitHub is refused clearly. */
export function unavailableGateway(): GitHubGateway {
  const refuse = async (): Promise<never> => {
    throw new CommandError(CommandErrorCode.Unavailable, {
      detail: `this needs the GitHub App, which is not configured (${surfaceSettings("github")})`,
    });
  };
  return { permission: refuse, pullRequest: refuse, comment: refuse };
}
