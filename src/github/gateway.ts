import type { PermissionLevel } from "../commands/permission-level.js";
import type { RepoRef } from "../merge-queue/index.js";

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
  permission(repo: RepoRef, login: string): Promise<PermissionLevel>;
  /** null when the number is not a pull request of the repository. */
  pullRequest(repo: RepoRef, number: number): Promise<PullRequestInfo | null>;
  comment(repo: RepoRef, issueNumber: number, body: string): Promise<{ id: number; url: string }>;
}
