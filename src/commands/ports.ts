import type { PauseState, PullRequestQueueDetails, QueueStatus } from "../merge-queue/index.js";
import type { Repo } from "../repo.js";
import type { PermissionLevel } from "./permission-level.js";

/**
 * What the command core needs from the world, in the core's own terms. The core owns these
 * interfaces: src/github, src/merge-queue and the store implement them, and src/yardmaster.ts wires
 * them in, so nothing in src/commands imports a surface or the store (.dependency-cruiser.cjs).
 * Permission levels are the core's too (permission-level.ts).
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
}

/**
 * The merge-queue API calls commands make: a subset of MergeQueueClient. Failures throw
 * MergeQueueError, which the core turns into its own CommandError.
 */
export interface MergeQueue {
  pause(repo: Repo, reason: string): Promise<PauseState>;
  unpause(repo: Repo): Promise<unknown>;
  getPause(repo: Repo): Promise<PauseState>;
  getStatus(repo: Repo, options?: { branch?: string }): Promise<QueueStatus>;
  getPullRequest(repo: Repo, number: number): Promise<PullRequestQueueDetails>;
  listBranches(repo: Repo): Promise<string[]>;
}

/**
 * Who paused or unpaused through Yardmaster: the merge queue sees only the app's account, so its
 * pause events cannot say (the notifier reads this back).
 */
export interface PauseAttribution {
  repository: Repo;
  action: "pause" | "unpause";
  /** The reason given, for a pause. */
  reason: string | null;
  /** The GitHub login of the person who asked (or how the surface names them). */
  actor: string;
  surface: "github" | "slack";
  at: Date;
}

export interface Subscription {
  channelId: string;
  teamId: string | null;
  repository: Repo;
  branchGlob: string | null;
  groups: string[];
  createdBy: string;
  createdAt: Date;
}

export interface OAuthState {
  state: string;
  teamId: string;
  slackUserId: string;
  channelId: string | null;
  responseUrl: string | null;
  expiresAt: Date;
}

/** What the Slack-only account commands keep: subscriptions, sign-in states and identity links. */
export interface AccountStore {
  /** Upsert per (channel, repository); `created` is false when an existing one was updated. */
  putSubscription(subscription: Subscription): Promise<{ created: boolean }>;
  /** True when a subscription was removed. */
  deleteSubscription(channelId: string, repository: Repo): Promise<boolean>;
  listSubscriptions(filter: { channelId: string }): Promise<Subscription[]>;
  createOAuthState(state: OAuthState): Promise<void>;
  getLink(teamId: string, slackUserId: string): Promise<{ githubLogin: string } | null>;
  /** True when a link was removed. */
  deleteLink(teamId: string, slackUserId: string): Promise<boolean>;
}

export interface AccountPorts {
  store: AccountStore;
  /** The GitHub sign-in URL for a state, or null when identity linking is off. */
  loginUrl: ((state: string) => string) | null;
}

export type Clock = () => Date;

/** Everything a command may call while it runs. */
export interface Ports {
  github: GitHubGateway;
  mergeQueue: MergeQueue;
  /** How relayed commands are addressed (MERGE_QUEUE_COMMAND_PREFIX). */
  commandPrefix: string;
  /** Best effort: remembers who paused or unpaused. */
  attributePause?: (attribution: PauseAttribution) => Promise<void>;
  /** Subscriptions and identity (Slack); absent where there is no Slack. */
  account?: AccountPorts;
  now?: Clock;
}

/** Counts commands by surface, command and outcome (yardmaster_commands_total). */
export interface CommandCounter {
  inc(labels: { surface: string; command: string; outcome: "success" | "refused" | "failed" }): void;
}
