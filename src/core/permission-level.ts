/** GitHub's repository permission levels, weakest first (the README's Permissions section). */
export const PERMISSION_LEVELS = ["none", "read", "triage", "write", "maintain", "admin"] as const;
export type PermissionLevel = (typeof PERMISSION_LEVELS)[number];

export function permissionRank(level: PermissionLevel): number {
  return PERMISSION_LEVELS.indexOf(level);
}

/** Whether someone holding `held` may do what needs `needed`. */
export function satisfies(held: PermissionLevel, needed: PermissionLevel): boolean {
  return permissionRank(held) >= permissionRank(needed);
}
