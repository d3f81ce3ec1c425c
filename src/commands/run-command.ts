import type { PermissionLevel } from "../config/permission-level.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics.js";
import { authorize } from "./authorize.js";
import type { CommandName } from "./catalog.js";
import type { Actor, MergeQueueCommand } from "./command.js";
import { CommandError } from "./errors.js";
import { type ExecuteDeps, execute } from "./execute.js";
import type { CommandOutcome, CommandResult } from "./result.js";

export interface RunDeps extends ExecuteDeps {
  permissions: Readonly<Record<CommandName, PermissionLevel>>;
  metrics?: Metrics;
  logger?: Logger;
}

/**
 * Authorize then execute: the one path every surface's merge-queue commands take. Never throws for
 * anything a person or a remote service caused; an unexpected bug is logged and rethrown.
 */
export async function runCommand(
  command: MergeQueueCommand,
  actor: Actor,
  deps: RunDeps,
): Promise<CommandOutcome> {
  const outcome = await attempt(async () => {
    await authorize(command, actor, deps.permissions, (repo, login) => deps.github.permission(repo, login));
    return execute(command, actor, deps);
  });
  record(deps, actor, command.name, outcome);
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
