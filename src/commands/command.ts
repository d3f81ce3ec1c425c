import type { Repo } from "../repo.js";

import type { CommandName, Surface } from "./catalog.js";

/** Event groups a subscription can ask for (PRODUCT.md section 5). */
export const EVENT_GROUPS = ["queue", "checks", "bisection", "pause"] as const;
export type EventGroup = (typeof EVENT_GROUPS)[number];

/** A command that reads or changes the merge queue (both surfaces). */
export type MergeQueueCommand =
  | { name: "queue"; repo: Repo; pull: number; queueName?: string }
  | { name: "dequeue"; repo: Repo; pull: number }
  | { name: "requeue"; repo: Repo; pull: number }
  | { name: "pause"; repo: Repo; reason: string }
  | { name: "unpause"; repo: Repo }
  | { name: "status"; repo: Repo; branch?: string }
  | { name: "pr"; repo: Repo; pull: number }
  | { name: "branches"; repo: Repo }
  | { name: "help" };

/** A command about Slack subscriptions or the person's linked GitHub login (Slack only). */
export type AccountCommand =
  | { name: "subscribe"; repo: Repo; branchGlob?: string; groups: EventGroup[] }
  | { name: "unsubscribe"; repo: Repo }
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

export function commandRepo(command: Command): Repo | undefined {
  return "repo" in command ? command.repo : undefined;
}
