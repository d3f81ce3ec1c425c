import { COMMANDS, type CommandName } from "./catalog.js";
import { type Actor, type Command, commandRepo } from "./command.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import { type PermissionLevel, satisfies } from "./permission-level.js";
import type { PermissionLookup } from "./ports.js";

/**
 * PRODUCT.md section 4: GitHub's permission, asked at the time, against the command's level (the
 * catalog's default, raised by PERMISSION_<COMMAND>). Throws a refusal; returns the level held.
 */
export async function authorize(
  command: Command,
  actor: Actor,
  levels: Readonly<Record<CommandName, PermissionLevel>>,
  lookup: PermissionLookup,
): Promise<PermissionLevel | undefined> {
  const spec = COMMANDS[command.name];
  const needed = levels[command.name];
  const needsLink = actor.surface === "slack" && spec.needsLink;
  if (needsLink && actor.githubLogin === null) {
    throw new CommandError(CommandErrorCode.NotLinked, { command: command.name, needed });
  }
  const repo = commandRepo(command);
  if (needed === "none" || !repo) return undefined;
  if (actor.githubLogin === null) {
    throw new CommandError(CommandErrorCode.NotLinked, { command: command.name, needed });
  }
  let held: PermissionLevel;
  try {
    held = await lookup(repo, actor.githubLogin);
  } catch (error) {
    if (error instanceof CommandError) throw error;
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
