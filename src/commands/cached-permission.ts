import { LRUCache } from "lru-cache";
import type { PermissionLevel } from "../core/permission-level.js";
import type { PermissionLookup } from "./ports.js";

/** How long a permission looked up for a notice or the Home tab is trusted (commands always ask anew). */
const PERMISSION_CACHE_MS = 60_000;
/** At most this many (login, repository) pairs are remembered; the least recently used go first. */
const MAX_ENTRIES = 10_000;

/**
 * The commands' permission lookup, remembered briefly: what a person may read decides which direct
 * messages they get and what their Home tab shows, both of which ask often. A failed lookup is not
 * remembered. Commands and buttons do not use this: they ask GitHub at the time.
 */
export function cachedPermission(
  lookup: PermissionLookup,
  options: { ttlMs?: number; max?: number; now?: () => number } = {},
): PermissionLookup {
  const cache = new LRUCache<string, PermissionLevel>({
    max: options.max ?? MAX_ENTRIES,
    ttl: options.ttlMs ?? PERMISSION_CACHE_MS,
    // Staleness is read from the given clock at every get (tests move it).
    ...(options.now ? { perf: { now: options.now }, ttlResolution: 0 } : {}),
  });
  return async (repo, login) => {
    const key = `${login.toLowerCase()} ${repo.key}`;
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    const level = await lookup(repo, login);
    cache.set(key, level);
    return level;
  };
}
