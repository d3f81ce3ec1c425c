import { type CommandPermissions, resolvePermissions } from "../commands/permissions.js";
import { ConfigError, readSettings, type Settings } from "../settings/read-settings.js";

/** Everything Yardmaster runs with: the settings, and the permission each command needs. */
export interface Config extends Settings {
  permissions: CommandPermissions;
}

/**
 * Reads the environment: the settings (src/settings) and the PERMISSION_<COMMAND> overrides, checked
 * against the commands. Throws a ConfigError listing every problem, or saying nothing is configured.
 */
export function loadConfig(
  env: Record<string, string | undefined>,
  readFile?: (path: string) => string,
): Config {
  const { settings, permissionOverrides, problems } = readSettings(env, readFile);
  const permissions = resolvePermissions(permissionOverrides);
  problems.push(...permissions.problems);
  if (!settings || problems.length > 0) throw new ConfigError(problems);
  return { ...settings, permissions: permissions.permissions };
}
