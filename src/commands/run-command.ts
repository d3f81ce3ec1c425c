import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics.js";
import { type AccountDeps, executeAccount } from "./account.js";
import { authorize } from "./authorize.js";
import type { CommandName } from "./catalog.js";
import { type Actor, type Command, isAccountCommand } from "./command.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import { type ExecuteDeps, execute } from "./execute.js";
import type { PermissionLevel } from "./permission-level.js";
import type { CommandOutcome, CommandResult } from "./result.js";

export interface RunDeps extends ExecuteDeps {
  permissions: Readonly<Record<CommandName, PermissionLevel>>;
  /** Subscriptions and identity (Slack); absent on the GitHub surface. */
  account?: AccountDeps;
  metrics?: Metrics;
  logger?: Logger;
}

/**
 * Authorize then execute: the one path every command of every surface takes. Never throws for
 * anything a person or a remote service caused; an unexpected bug is rethrown.
 */
export async function runCommand(command: Command, actor: Actor, deps: RunDeps): Promise<CommandOutcome> {
  const outcome = await attempt(async () => {
    await authorize(command, actor, deps.permissions, (repo, login) => deps.github.permission(repo, login));
    if (!isAccountCommand(command)) return execute(command, actor, deps);
    if (!deps.account)
      throw new CommandError(CommandErrorCode.OtherSurface, { command: command.name, surface: "github" });
    return executeAccount(command, actor, deps.account);
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

export async function attempt(work: () => Promise<CommandResult>): Promise<CommandOutcome> {
  try {
    return { ok: true, result: await work() };
  } catch (error) {
    if (error instanceof CommandError) return { ok: false, error };
    throw error;
  }
}

/** Counts the command in /metrics and logs one line about it. */
export function record(
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
