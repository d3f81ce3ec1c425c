import pLimit from "p-limit";
import type { PermissionLookup } from "../../commands/ports.js";
import { type PermissionLevel, satisfies } from "../../core/permission-level.js";
import type { Repo } from "../../repo.js";
import type { IdentityLinkStore, SubscriptionStore } from "../../store/index.js";

/** At most this many subscribed repositories are asked about for one form. */
const MAX_LOOKED_UP = 100;

export interface VisibleRepositoriesDeps {
  store: Pick<SubscriptionStore, "listSubscriptions" | "listSubscribedRepositories"> &
    Pick<IdentityLinkStore, "getLink">;
  readPermission?: PermissionLookup;
}

const byKey = (repos: Iterable<Repo>) => [...repos].sort((a, b) => a.key.localeCompare(b.key));

/**
 * The repositories a form may list for a person (docs/security.md, "Forms"), in two steps, so that the
 * form opens within Slack's 3 seconds: `inChannel`, read from the store alone: the subscriptions of the
 * channel it was opened in (its members hear about them already); and `readable()`, which adds the
 * subscribed repositories the person's linked GitHub login can read (the commands' permission lookup,
 * cached briefly; a failed lookup counts as no access), or null when there is nothing to add (not
 * linked, or no GitHub App).
 */
export async function visibleRepositories(
  deps: VisibleRepositoriesDeps,
  person: { teamId: string; userId: string; channelId: string },
): Promise<{ inChannel: Repo[]; readable: (() => Promise<Repo[]>) | null }> {
  const { store, readPermission } = deps;
  const [subscriptions, link] = await Promise.all([
    person.channelId === "" ? Promise.resolve([]) : store.listSubscriptions({ channelId: person.channelId }),
    store.getLink(person.teamId, person.userId),
  ]);
  const found = new Map<string, Repo>(subscriptions.map((s) => [s.repository.key, s.repository]));
  const inChannel = byKey(found.values());
  if (!link || !readPermission) return { inChannel, readable: null };
  const login = link.githubLogin;
  const readable = async () => {
    const candidates = (await store.listSubscribedRepositories())
      .filter((r) => !found.has(r.key))
      .slice(0, MAX_LOOKED_UP);
    const levels = await pLimit(8).map(candidates, async (repo) => ({
      repo,
      level: await readPermission(repo, login).catch((): PermissionLevel => "none"),
    }));
    const all = new Map(found);
    for (const { repo, level } of levels) if (satisfies(level, "read")) all.set(repo.key, repo);
    return byKey(all.values());
  };
  return { inChannel, readable };
}
