import { LRUCache } from "lru-cache";
import pLimit from "p-limit";
import { type PermissionLevel, satisfies } from "../core/permission-level.js";
import type { Repo } from "../repo.js";
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

/**
 * Of `items`, those on a repository `login` can read, each with the login's level there, in their order:
 * the one filter behind what the Home tab lists, what a form offers and which links a composer preview
 * shows (docs/security.md). A failed lookup counts as no access. At most `concurrency` lookups at once.
 */
export async function readableBy<T>(
  items: readonly T[],
  repoOf: (item: T) => Repo,
  login: string,
  lookup: PermissionLookup,
  concurrency = 8,
): Promise<{ item: T; level: PermissionLevel }[]> {
  const levels = await pLimit(concurrency).map(items, async (item) => ({
    item,
    level: await lookup(repoOf(item), login).catch((): PermissionLevel => "none"),
  }));
  return levels.filter((found) => satisfies(found.level, "read"));
}
