import type { RepoRef } from "../merge-queue/index.js";
import type { CommandName, Surface } from "./catalog.js";

/** Event groups a subscription can ask for (PRODUCT.md section 5). */
export const EVENT_GROUPS = ["queue", "checks", "bisection", "pause"] as const;
export type EventGroup = (typeof EVENT_GROUPS)[number];

/** A command that reads or changes the merge queue (both surfaces). */
export type MergeQueueCommand =
  | { name: "queue"; repo: RepoRef; pull: number; queueName?: string }
  | { name: "dequeue"; repo: RepoRef; pull: number }
  | { name: "requeue"; repo: RepoRef; pull: number }
  | { name: "pause"; repo: RepoRef; reason: string }
  | { name: "unpause"; repo: RepoRef }
  | { name: "status"; repo: RepoRef; branch?: string }
  | { name: "pr"; repo: RepoRef; pull: number }
  | { name: "branches"; repo: RepoRef }
  | { name: "help" };

/** A command about Slack subscriptions or the person's linked GitHub login (Slack only). */
export type AccountCommand =
  | { name: "subscribe"; repo: RepoRef; branchGlob?: string; groups: EventGroup[] }
  | { name: "unsubscribe"; repo: RepoRef }
  | { name: "subscriptions" }
  | { name: "login" }
  | { name: "logout" }
  | { name: "whoami" };

/** A command as the core understands it, whatever surface it was typed on. */
export type Command = MergeQueueCommand | AccountCommand;

const ACCOUNT_COMMANDS: ReadonlySet<string> = new Set<AccountCommand["name"]>([
  "subscribe",
  "unsubscribe",
  "subscriptions",
  "login",
  "logout",
  "whoami",
]);

export function isAccountCommand(command: Command): command is AccountCommand {
  return ACCOUNT_COMMANDS.has(command.name);
}

export type CommandOf<N extends CommandName> = Extract<Command, { name: N }>;

/** Who asked, and from where. */
export interface Actor {
  surface: Surface;
  /** The GitHub login whose permission counts; null for a Slack user who has not linked one. */
  githubLogin: string | null;
  /** How to name the person in answers (a GitHub login, or a Slack user id rendered as a mention). */
  display: string;
  slack?: { teamId: string; userId: string; channelId: string; responseUrl?: string };
}

export function repoName(repo: RepoRef): string {
  return `${repo.owner}/${repo.repo}`;
}

export function commandRepo(command: Command): RepoRef | undefined {
  return "repo" in command ? command.repo : undefined;
}
