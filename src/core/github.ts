import type { Repo } from "../repo.js";
import type { PermissionLevel } from "./permission-level.js";

/**
 * GitHub as the core, its features and the backends ask it (the platform Yardmaster is an app of, not a
 * merge queue): a login's permission, a pull request, a comment. The commands' port (src/commands/ports.ts
 * re-exports it); the GitHub surface implements it (src/github/octokit-gateway.ts, installations.ts) and
 * the composition root gives it to whoever asks.
 */

/** Asks GitHub what a login may do on a repository, at the time of asking. */
export type PermissionLookup = (repo: Repo, login: string) => Promise<PermissionLevel>;

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

/** GitHub, whichever surface the command came from (the webhook's installation, or looked up). */
export interface GitHubGateway {
  permission: PermissionLookup;
  /** null when the number is not a pull request of the repository. */
  pullRequest(repo: Repo, number: number): Promise<PullRequestInfo | null>;
  comment(repo: Repo, issueNumber: number, body: string): Promise<{ id: number; url: string }>;
  /**
   * A comment an app (a bot) wrote on the issue whose body holds `marker` (a hidden mark a command's step
   * put there), or null when there is none: a comment posted by a run that died before recording it.
   */
  findComment(repo: Repo, issueNumber: number, marker: string): Promise<{ id: number; url: string } | null>;
}
