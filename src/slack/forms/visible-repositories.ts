import pLimit from "p-limit";
import { type PermissionLevel, satisfies } from "../../commands/permission-level.js";
import type { PermissionLookup } from "../../commands/ports.js";
import type { Repo } from "../../repo.js";
import type { IdentityLinkStore, SubscriptionStore } from "../../store/index.js";

/** At most this many subscribed repositories are asked about for one form. */
const MAX_LOOKED_UP = 100;
/**
 * How long the permission lookups may take before the form opens without them: Slack's trigger is good
 * for 3 seconds. A repository whose lookup has not answered is left out (the repository is then typed).
 */
const LOOKUP_BUDGET_MS = 1_500;

export interface VisibleRepositoriesDeps {
  store: Pick<SubscriptionStore, "listSubscriptions" | "listSubscribedRepositories"> &
    Pick<IdentityLinkStore, "getLink">;
  readPermission?: PermissionLookup;
}

/**
 * The repositories a form may list for a person (docs/security.md, "Forms"): the subscriptions of the
 * channel it was opened in (its members hear about them already), and the subscribed repositories the
 * person's linked GitHub login can read (the commands' permission lookup, cached briefly). `complete` is
 * false when a lookup did not answer in time: the form then asks for the repository to be typed.
 */
export async function visibleRepositories(
  deps: VisibleRepositoriesDeps,
  person: { teamId: string; userId: string; channelId: string },
): Promise<{ repositories: Repo[]; complete: boolean }> {
  const { store, readPermission } = deps;
  const [inChannel, link] = await Promise.all([
    person.channelId === "" ? Promise.resolve([]) : store.listSubscriptions({ channelId: person.channelId }),
    store.getLink(person.teamId, person.userId),
  ]);
  const found = new Map<string, Repo>(inChannel.map((s) => [s.repository.key, s.repository]));
  let complete = true;
  if (link && readPermission) {
    const login = link.githubLogin;
    const candidates = (await store.listSubscribedRepositories())
      .filter((r) => !found.has(r.key))
      .slice(0, MAX_LOOKED_UP);
    const lookups = pLimit(8).map(candidates, async (repo) => ({
      repo,
      level: await readPermission(repo, login).catch((): PermissionLevel => "none"),
    }));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), LOOKUP_BUDGET_MS);
    });
    const levels = await Promise.race([lookups, late]);
    clearTimeout(timer);
    if (levels === null) complete = false;
    for (const { repo, level } of levels ?? []) if (satisfies(level, "read")) found.set(repo.key, repo);
  }
  const repositories = [...found.values()].sort((a, b) => a.key.localeCompare(b.key));
  return { repositories, complete };
}
