import { z } from "zod";
import { PERMISSION_LEVELS, type PermissionLevel, permissionRank } from "../core/permission-level.js";
import { COMMANDS, type CommandName, PERMISSION_CONFIGURABLE } from "./catalog.js";

export type CommandPermissions = Readonly<Record<CommandName, PermissionLevel>>;

const levelSchema = z.enum(PERMISSION_LEVELS, { error: `must be one of ${PERMISSION_LEVELS.join(", ")}` });

/**
 * The level each command needs: the catalog's defaults, raised (never lowered) by the
 * PERMISSION_<COMMAND> settings, with a problem for each override that names no command, no level,
 * or a lower level than the default.
 */
export function resolvePermissions(
  overrides: readonly { variable: string; command: string; level: string }[],
): { permissions: CommandPermissions; problems: string[] } {
  const permissions = Object.fromEntries(
    Object.values(COMMANDS).map((c) => [c.name, c.permission]),
  ) as Record<CommandName, PermissionLevel>;
  const problems: string[] = [];
  for (const { variable, command, level } of overrides) {
    const name = command as CommandName;
    if (!PERMISSION_CONFIGURABLE.includes(name)) {
      problems.push(`${variable} does not name a command (one of: ${PERMISSION_CONFIGURABLE.join(", ")})`);
      continue;
    }
    const parsed = levelSchema.safeParse(level.toLowerCase());
    if (!parsed.success) {
      problems.push(`${variable} ${parsed.error.issues[0]?.message}`);
      continue;
    }
    if (permissionRank(parsed.data) < permissionRank(COMMANDS[name].permission)) {
      problems.push(
        `${variable} can only raise the level: ${name} needs at least ${COMMANDS[name].permission}`,
      );
      continue;
    }
    permissions[name] = parsed.data;
  }
  return { permissions, problems };
}
