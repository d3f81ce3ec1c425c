import type { ProbotOctokit } from "probot";
import type { GitHubGateway, PullRequestInfo } from "../commands/ports.js";
import { PERMISSION_LEVELS, type PermissionLevel } from "../core/permission-level.js";
import type { Repo } from "../repo.js";
import type { GitHubWrites } from "./github-writes.js";

export type Octokit = InstanceType<typeof ProbotOctokit>;

const status = (error: unknown) => (error as { status?: number }).status;

/**
 * The GitHub calls of the command core, made with an installation's Octokit. `octokitFor` gives the
 * Octokit for a repository: the webhook's own on the GitHub surface, the installation's on Slack.
 * Reads go at once; the one write (a relayed command) goes through the app's write queue as part of
 * an answer, and is found again by the hidden marker in its body.
 */
export function octokitGateway(
  octokitFor: (repo: Repo) => Promise<Octokit>,
  writes: GitHubWrites,
): GitHubGateway {
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
      return writes.run({
        kind: "comment",
        priority: "answer",
        what: `relayed command on ${repo.fullName}#${issueNumber}`,
        send: async (request) => {
          const { data } = await octokit.rest.issues.createComment({
            owner: repo.owner,
            repo: repo.name,
            issue_number: issueNumber,
            body,
            request,
          });
          return { id: data.id, url: data.html_url };
        },
      });
    },
    async findComment(repo, issueNumber, marker) {
      const octokit = await octokitFor(repo);
      const params = { owner: repo.owner, repo: repo.name, issue_number: issueNumber, per_page: 100 };
      for await (const page of octokit.paginate.iterator(octokit.rest.issues.listComments, params)) {
        const found = page.data.find((c) => c.user?.type === "Bot" && c.body?.includes(marker));
        if (found) return { id: found.id, url: found.html_url };
      }
      return null;
    },
  };
}
