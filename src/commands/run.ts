import { fromMergeQueueError } from "../core/from-merge-queue-error.js";
import { type PermissionLevel, satisfies } from "../core/permission-level.js";
import { QueueError } from "../core/queue-error.js";
import type { Logger } from "../logger.js";
import { COMMANDS, type Command, type CommandName, type CommandResult, moduleOf } from "./catalog.js";
import type { Actor } from "./command.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import type { CommandCounter, CommandTimer, GitHubGateway, PermissionLookup, Ports } from "./ports.js";

/** A command run to its end: done, or an error (refused before any call, or failed). */
export type CommandOutcome = { ok: true; result: CommandResult } | { ok: false; error: CommandError };

export interface RunDeps extends Ports {
  /** The level each command needs: the catalog's default, raised by PERMISSION_<COMMAND>. */
  permissions: Readonly<Record<CommandName, PermissionLevel>>;
  metrics?: { commands: CommandCounter; commandDuration?: CommandTimer };
  logger?: Logger;
}

/**
 * Authorize, execute, count: the one path every command of every surface takes. Never throws for
 * anything a person or a remote service caused; an unexpected bug is rethrown.
 */
export async function runCommand(command: Command, actor: Actor, deps: RunDeps): Promise<CommandOutcome> {
  const startedAt = performance.now();
  const outcome = await attempt(async () => {
    await authorize(command, actor, deps.permissions, (repo, login) => deps.github.permission(repo, login));
    return execute(command, actor, deps);
  });
  deps.metrics?.commandDuration?.observe((performance.now() - startedAt) / 1000, {
    surface: actor.surface,
    command: command.name,
  });
  record(deps, actor, command.name, outcome);
  return outcome;
}

/** A command refused as typed (by a grammar): nothing is called; counted and logged like the others. */
export function refuse(
  error: CommandError,
  actor: Actor,
  deps: Pick<RunDeps, "metrics" | "logger">,
): CommandOutcome {
  const outcome: CommandOutcome = { ok: false, error };
  record(deps, actor, error.details.command ?? "unknown", outcome);
  return outcome;
}

/**
 * GitHub's permission, asked at the time, against the command's level (docs/permissions.md). Throws
 * a refusal; returns the level held, or undefined when nothing was asked.
 */
export async function authorize(
  command: Command,
  actor: Actor,
  levels: Readonly<Record<CommandName, PermissionLevel>>,
  lookup: PermissionLookup,
): Promise<PermissionLevel | undefined> {
  const needed = levels[command.name];
  if (actor.surface === "slack" && COMMANDS[command.name].needsLink && actor.githubLogin === null) {
    throw new CommandError(CommandErrorCode.NotLinked, { command: command.name, needed });
  }
  const repo = "repo" in command ? command.repo : undefined;
  if (needed === "none" || !repo) return undefined;
  if (actor.githubLogin === null) {
    throw new CommandError(CommandErrorCode.NotLinked, { command: command.name, needed });
  }
  let held: PermissionLevel;
  try {
    held = await lookup(repo, actor.githubLogin);
  } catch (error) {
    if (error instanceof CommandError) throw error;
    // A repository GitHub does not know, or refuses the app (its closed codes say what to do).
    if (error instanceof QueueError)
      throw fromMergeQueueError(error, { command: command.name, repository: repo.fullName });
    throw new CommandError(
      CommandErrorCode.GitHubFailed,
      { command: command.name, repository: repo.fullName, detail: (error as Error).message },
      "permission lookup failed",
    );
  }
  if (!satisfies(held, needed)) {
    throw new CommandError(CommandErrorCode.PermissionDenied, {
      command: command.name,
      needed,
      held,
      login: actor.githubLogin,
      repository: repo.fullName,
    });
  }
  return held;
}

/** Runs an authorized command in its module; what the merge-queue client threw becomes a CommandError. */
export async function execute(command: Command, actor: Actor, ports: Ports): Promise<CommandResult> {
  try {
    return await moduleOf(command.name).execute(command, actor, {
      ...ports,
      github: readsOnce(ports.github),
    });
  } catch (error) {
    const repository = "repo" in command ? command.repo.fullName : "";
    throw fromMergeQueueError(error, { command: command.name, repository });
  }
}

/**
 * The GitHub gateway for one command: a pull request is read once however many steps need it (choosing
 * its queue by its base branch, then acting on it), so they all see the same pull request.
 */
function readsOnce(github: GitHubGateway): GitHubGateway {
  const pulls = new Map<string, ReturnType<GitHubGateway["pullRequest"]>>();
  return {
    ...github,
    pullRequest(repo, number) {
      const key = `${repo.key}#${number}`;
      let read = pulls.get(key);
      if (!read) {
        read = github.pullRequest(repo, number);
        pulls.set(key, read);
      }
      return read;
    },
  };
}

async function attempt(work: () => Promise<CommandResult>): Promise<CommandOutcome> {
  try {
    return { ok: true, result: await work() };
  } catch (error) {
    if (error instanceof CommandError) return { ok: false, error };
    throw error;
  }
}

/** Counts the command in /metrics and logs one line about it. */
function record(
  deps: Pick<RunDeps, "metrics" | "logger">,
  actor: Actor,
  name: string,
  outcome: CommandOutcome,
) {
  const result = outcome.ok ? "success" : outcome.error.isRefusal ? "refused" : "failed";
  deps.metrics?.commands.inc({ surface: actor.surface, command: name, outcome: result });
  deps.logger?.info(
    {
      surface: actor.surface,
      command: name,
      actor: actor.githubLogin ?? actor.display,
      outcome: result,
      ...(outcome.ok ? {} : { code: outcome.error.code }),
    },
    `command ${name}: ${result}`,
  );
}
