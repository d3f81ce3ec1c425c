import type { PermissionLevel } from "./permission-level.js";

/**
 * Every command Yardmaster knows, on which surface, and what it needs by default (PRODUCT.md sections
 * 2 to 4). Parsing, help, "did you mean", authorization and the PERMISSION_<COMMAND> settings all read
 * this one table.
 */
export type Surface = "github" | "slack";

export const COMMAND_NAMES = [
  "queue",
  "dequeue",
  "requeue",
  "pause",
  "unpause",
  "status",
  "pr",
  "branches",
  "subscribe",
  "unsubscribe",
  "subscriptions",
  "login",
  "logout",
  "whoami",
  "help",
] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

export interface CommandSpec {
  name: CommandName;
  aliases: readonly string[];
  surfaces: readonly Surface[];
  /** Default permission on the repository; PERMISSION_<NAME> may raise it. */
  permission: PermissionLevel;
  /** On Slack: whether the person must have linked a GitHub login first. */
  needsLink: boolean;
  /** Whether the command changes something (its result is posted in the channel on Slack). */
  changes: boolean;
  usage: { github?: string; slack?: string };
  summary: string;
}

const spec = (s: CommandSpec): CommandSpec => s;

export const COMMANDS: Readonly<Record<CommandName, CommandSpec>> = {
  queue: spec({
    name: "queue",
    aliases: [],
    surfaces: ["github", "slack"],
    permission: "write",
    needsLink: true,
    changes: true,
    usage: { github: "queue [queue-name]", slack: "queue <pr> [queue-name]" },
    summary: "add the pull request to the merge queue",
  }),
  dequeue: spec({
    name: "dequeue",
    aliases: [],
    surfaces: ["github", "slack"],
    permission: "write",
    needsLink: true,
    changes: true,
    usage: { github: "dequeue", slack: "dequeue <pr>" },
    summary: "remove the pull request from the merge queue",
  }),
  requeue: spec({
    name: "requeue",
    aliases: [],
    surfaces: ["github", "slack"],
    permission: "write",
    needsLink: true,
    changes: true,
    usage: { github: "requeue", slack: "requeue <pr>" },
    summary: "put a pull request that left the queue back in it",
  }),
  pause: spec({
    name: "pause",
    aliases: [],
    surfaces: ["github", "slack"],
    permission: "write",
    needsLink: true,
    changes: true,
    usage: { github: "pause <reason>", slack: "pause [repo] <reason>" },
    summary: "pause the repository's merge queue",
  }),
  unpause: spec({
    name: "unpause",
    aliases: ["resume"],
    surfaces: ["github", "slack"],
    permission: "write",
    needsLink: true,
    changes: true,
    usage: { github: "unpause", slack: "unpause [repo]" },
    summary: "resume the repository's merge queue",
  }),
  status: spec({
    name: "status",
    aliases: [],
    surfaces: ["github", "slack"],
    permission: "none",
    needsLink: false,
    changes: false,
    usage: { github: "status [branch]", slack: "status [repo] [branch]" },
    summary: "show the merge queue: batches, waiting pull requests, pause",
  }),
  pr: spec({
    name: "pr",
    aliases: [],
    surfaces: ["slack"],
    permission: "none",
    needsLink: false,
    changes: false,
    usage: { slack: "pr <pr>" },
    summary: "show a pull request's place in the merge queue",
  }),
  branches: spec({
    name: "branches",
    aliases: [],
    surfaces: ["slack"],
    permission: "none",
    needsLink: false,
    changes: false,
    usage: { slack: "branches [repo]" },
    summary: "list the branches with an active merge queue",
  }),
  subscribe: spec({
    name: "subscribe",
    aliases: [],
    surfaces: ["slack"],
    permission: "read",
    needsLink: true,
    changes: true,
    usage: { slack: "subscribe <repo> [branch=<glob>] [events=<group,...>]" },
    summary: "post this repository's merge-queue events in this channel",
  }),
  unsubscribe: spec({
    name: "unsubscribe",
    aliases: [],
    surfaces: ["slack"],
    permission: "none",
    needsLink: true,
    changes: true,
    usage: { slack: "unsubscribe <repo>" },
    summary: "stop posting this repository's events in this channel",
  }),
  subscriptions: spec({
    name: "subscriptions",
    aliases: [],
    surfaces: ["slack"],
    permission: "none",
    needsLink: false,
    changes: false,
    usage: { slack: "subscriptions" },
    summary: "list this channel's subscriptions",
  }),
  login: spec({
    name: "login",
    aliases: [],
    surfaces: ["slack"],
    permission: "none",
    needsLink: false,
    changes: false,
    usage: { slack: "login" },
    summary: "link your Slack account to your GitHub login",
  }),
  logout: spec({
    name: "logout",
    aliases: [],
    surfaces: ["slack"],
    permission: "none",
    needsLink: false,
    changes: false,
    usage: { slack: "logout" },
    summary: "forget the link to your GitHub login",
  }),
  whoami: spec({
    name: "whoami",
    aliases: [],
    surfaces: ["slack"],
    permission: "none",
    needsLink: false,
    changes: false,
    usage: { slack: "whoami" },
    summary: "show which GitHub login you are linked to",
  }),
  help: spec({
    name: "help",
    aliases: [],
    surfaces: ["github", "slack"],
    permission: "none",
    needsLink: false,
    changes: false,
    usage: { github: "help", slack: "help" },
    summary: "list the commands",
  }),
};

/** Commands whose permission an operator may set with PERMISSION_<COMMAND>. */
export const PERMISSION_CONFIGURABLE: readonly CommandName[] = COMMAND_NAMES.filter(
  (n) => !["help", "login", "logout", "whoami"].includes(n),
);
