import type { ProbotOctokit } from "probot";
import { PERMISSION_LEVELS, type PermissionLevel } from "../commands/permission-level.js";
import type { GitHubGateway, PullRequestInfo } from "../commands/ports.js";
import type { Repo } from "../repo.js";

export type Octokit = InstanceType<typeof ProbotOctokit>;

const status = (error: unknown) => (error as { status?: number }).status;

/**
 * The GitHub calls of the command core, made with an installation's Octokit. `octokitFor` gives the
 * Octokit for a repository: the webhook's own on the GitHub surface, the installation's on Slack.
 */
export function octokitGateway(octokitFor: (repo: Repo) => Promise<Octokit>): GitHubGateway {
  return {
    async permission(repo, login) {
      const octokit = await octokitFor(repo);
      try {
        const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
          owner: repo.owner,
          repo: repo.name,
          username: login,
        });
        // role_name keeps maintain and triage, which `permission` folds into write and read.
        const level = (data.role_name ?? data.permission) as string;
        return (PERMISSION_LEVELS as readonly string[]).includes(level) ? (level as PermissionLevel) : "none";
      } catch (error) {
        if (status(error) === 404) return "none";
        throw error;
      }
    },
    async pullRequest(repo, number): Promise<PullRequestInfo | null> {
      const octokit = await octokitFor(repo);
      try {
        const { data } = await octokit.rest.pulls.get({
          owner: repo.owner,
          repo: repo.name,
          pull_number: number,
        });
        return {
          number: data.number,
          title: data.title,
          url: data.html_url,
          state: data.state === "open" ? "open" : "closed",
          merged: Boolean(data.merged),
          baseRef: data.base.ref,
          headSha: data.head.sha,
          author: { login: data.user?.login ?? "ghost", id: data.user?.id ?? 0 },
        };
      } catch (error) {
        if (status(error) === 404) return null;
        throw error;
      }
    },
    async comment(repo, issueNumber, body) {
      const octokit = await octokitFor(repo);
      const { data } = await octokit.rest.issues.createComment({
        owner: repo.owner,
        repo: repo.name,
        issue_number: issueNumber,
        body,
      });
      return { id: data.id, url: data.html_url };
    },
  };
}
