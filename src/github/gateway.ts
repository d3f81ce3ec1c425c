import type { PermissionLevel } from "../commands/permission-level.js";
import type { Repo } from "../repo.js";

export interface PullRequestInfo {
  number: number;
  title: string;
  url: string;
  state: "open" | "closed";
  merged: boolean;
  baseRef: string;
  headSha: string;
  author: { login: string; id: number };
}

/** What the command core needs from GitHub, whichever surface the command came from. */
export interface GitHubGateway {
  permission(repo: Repo, login: string): Promise<PermissionLevel>;
  /** null when the number is not a pull request of the repository. */
  pullRequest(repo: Repo, number: number): Promise<PullRequestInfo | null>;
  comment(repo: Repo, issueNumber: number, body: string): Promise<{ id: number; url: string }>;
}
