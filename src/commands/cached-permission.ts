import type { PermissionLevel } from "./permission-level.js";
import type { PermissionLookup } from "./ports.js";

/** How long a permission looked up for a notice or the Home tab is trusted (commands always ask anew). */
const PERMISSION_CACHE_MS = 60_000;
const MAX_ENTRIES = 10_000;

/**
 * The commands' permission lookup, remembered briefly: what a person may read decides which direct
 * messages they get and what their Home tab shows, both of which ask often. A failed lookup is not
 * remembered. Commands and buttons do not use this: they ask GitHub at the time.
 */
export function cachedPermission(
  lookup: PermissionLookup,
  options: { ttlMs?: number; now?: () => number } = {},
): PermissionLookup {
  const ttl = options.ttlMs ?? PERMISSION_CACHE_MS;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { level: PermissionLevel; until: number }>();
  return async (repo, login) => {
    const key = `${login.toLowerCase()} ${repo.key}`;
    const hit = cache.get(key);
    if (hit && hit.until > now()) return hit.level;
    const level = await lookup(repo, login);
    if (cache.size >= MAX_ENTRIES) cache.clear();
    cache.set(key, { level, until: now() + ttl });
    return level;
  };
}
