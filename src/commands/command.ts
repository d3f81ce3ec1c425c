import type { PermissionLevel } from "../core/permission-level.js";
import type { Repo } from "../repo.js";
import type { Description, Text } from "../wording/description.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import type { AccountPorts, Ports } from "./ports.js";

/**
 * What every command module provides (one file per command in this folder, listed in catalog.ts):
 * its grammar on each surface, the permission it needs, what it does and how its result reads.
 */

export type Surface = "github" | "slack";

/** Who asked, and from where. */
export interface Actor {
  surface: Surface;
  /** The GitHub login whose permission counts; null for a Slack user who has not linked one. */
  githubLogin: string | null;
  /** How to name the person in answers (a GitHub login, or a Slack user id rendered as a mention). */
  display: string;
  slack?: { teamId: string; userId: string; channelId: string; responseUrl?: string };
}

/** Where a GitHub comment was written. */
export interface CommentPlace {
  repo: Repo;
  /** The issue or pull request number. */
  number: number;
  isPullRequest: boolean;
}

/** Where a Slack command was typed, and what its grammar must know of the installation. */
export interface SlackPlace {
  /** The repository when the channel is subscribed to exactly one; it may then be left out. */
  defaultRepo?: Repo;
  /**
   * The web address of the GitHub Yardmaster serves (https://github.com, or GHE_HOST with its
   * protocol): the only one whose pull request and repository URLs are accepted.
   */
  githubWebUrl: string;
}

/** What followed the command word: split on white space, and as typed (trimmed). */
export interface Typed {
  words: string[];
  text: string;
}

/** How a command is written on one surface. */
export interface Grammar<C, P> {
  /** What follows the invocation, e.g. "pause [repo] <reason>" (help and error messages show it). */
  usage: string;
  /** Reads the arguments; throws CommandError to refuse them, before anything is called. */
  read(typed: Typed, place: P): C;
}

/** The facts about a command that help, "did you mean", authorization and settings read. */
export interface CommandSpec<N extends string = string> {
  name: N;
  aliases: readonly string[];
  surfaces: readonly Surface[];
  /** Default permission on the repository; PERMISSION_<NAME> may raise it (docs/permissions.md). */
  permission: PermissionLevel;
  /** Which repository the permission is asked on, as help says it (default "the repository"). */
  permissionOn: string;
  /** On Slack: whether the person must have linked a GitHub login first. */
  needsLink: boolean;
  /** Whether the command changes something (its result is posted in the channel on Slack). */
  changes: boolean;
  usage: { github?: string; slack?: string };
  summary: string;
}

/** What a surface knows when it asks for a description. */
export interface SurfaceContext {
  surface: Surface;
  now: Date;
  /** e.g. "https://github.com", for links to repositories and pull requests. */
  githubWebUrl: string;
  /**
   * The person who ran the command, already in the surface's markup: set when the answer is posted
   * for others to see, so that it says who did it.
   */
  by?: string;
}

export interface DescribeContext extends SurfaceContext {
  /** Every command, for help. */
  commands: readonly CommandSpec[];
  /** An error in words, for results that carry one (a queue state that could not be read). */
  error(error: CommandError): Text;
}

/**
 * A command module. Its spec's facts are fields here; its surfaces and usage are its grammar's (the
 * catalog builds the CommandSpec from both).
 */
export interface CommandModule<C extends { name: string }, R extends { name: string }> {
  name: C["name"];
  aliases?: readonly string[];
  summary: string;
  permission: PermissionLevel;
  /** Which repository the permission is asked on, when it is not the command's ("a subscribed repository"). */
  permissionOn?: string;
  needsLink: boolean;
  changes: boolean;
  grammar: { github?: Grammar<C, CommentPlace>; slack?: Grammar<C, SlackPlace> };
  /** Runs the command once authorized; throws CommandError (or MergeQueueError) when it cannot. */
  execute(command: C, actor: Actor, ports: Ports): Promise<R>;
  /**
   * Whether a result of a command that changes things is shown only to the person (a question, such as
   * `let`'s asking to confirm, changes nothing yet); absent: never.
   */
  answersPrivately?(result: R): boolean;
  describe(result: R, context: DescribeContext): Description;
}

/** Keeps a module's own command and result types while checking it against CommandModule. */
export function defineCommand<C extends { name: string }, R extends { name: string }>(
  module: CommandModule<C, R>,
): CommandModule<C, R> {
  return module;
}

/**
 * The account commands (subscriptions, identity) exist only in Slack: they act on the channel and
 * the Slack user, and keep what they know in the store.
 */
export function slackAccount(
  actor: Actor,
  ports: Ports,
  command: string,
): { slack: NonNullable<Actor["slack"]>; account: AccountPorts } {
  if (!actor.slack || !ports.account) {
    throw new CommandError(CommandErrorCode.OtherSurface, { command, surface: "github" });
  }
  return { slack: actor.slack, account: ports.account };
}
