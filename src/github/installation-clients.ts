import { LRUCache } from "lru-cache";

/** Installations whose clients are kept; the least recently used one past this is built again when needed. */
export const KEPT_INSTALLATIONS = 1_000;
/** How long an installation's client is kept after its last use. */
export const KEPT_FOR_MS = 60 * 60_000;

interface AuthOptions {
  type?: unknown;
  installationId?: unknown;
  factory?: unknown;
  event?: { name?: unknown; payload?: { action?: unknown; installation?: { id?: unknown } } };
}

type Auth = (options?: AuthOptions) => Promise<unknown>;

/**
 * An Octokit plugin: one client per installation, kept, instead of a new one per webhook and per job.
 *
 * Probot builds an Octokit for every webhook it receives (`auth({ type: "event-octokit", event })`) and
 * for every `app.auth(installationId)`, each with its own throttle and retry plugins: about 3 ms of CPU
 * each, which under 200 webhooks at once is most of what delays their answers. A client holds no
 * per-event state: its installation token comes from @octokit/auth-app's cache, shared by every client of
 * the app and renewed before it expires, so one client serves every event of its installation. Events
 * without an installation, or that revoke one, keep Probot's own handling.
 */
export function keepInstallationClients(octokit: { auth: Auth }): { auth: Auth } {
  const original = octokit.auth.bind(octokit);
  // Made on first use: every client Octokit makes runs this plugin too, and most never use it.
  let clients: LRUCache<string, Promise<unknown>> | undefined;
  const keep = (key: string, make: () => Promise<unknown>): Promise<unknown> => {
    clients ??= new LRUCache({ max: KEPT_INSTALLATIONS, ttl: KEPT_FOR_MS, updateAgeOnGet: true });
    const kept = clients.get(key);
    if (kept) return kept;
    const made = make();
    const cache = clients;
    cache.set(key, made);
    // A client that could not be made is not kept: the next event tries again.
    made.catch(() => {
      if (cache.get(key) === made) cache.delete(key);
    });
    return made;
  };
  const auth: Auth = (options) => {
    const key = clientKey(options);
    return key ? keep(key, () => original(options)) : original(options);
  };
  return { auth };
}

/** The kept client an auth call asks for, or null when it is not one to keep. */
function clientKey(options: AuthOptions | undefined): string | null {
  if (options?.type === "installation") {
    const id = options.installationId;
    return typeof options.factory === "function" && typeof id === "number" ? `installation:${id}` : null;
  }
  if (options?.type === "event-octokit") {
    const { name, payload } = options.event ?? {};
    const id = payload?.installation?.id;
    if (typeof id !== "number") return null;
    if (name === "installation" && (payload?.action === "suspend" || payload?.action === "deleted"))
      return null;
    return `event:${id}`;
  }
  return null;
}
