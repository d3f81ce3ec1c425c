import type { PermissionLookup } from "../../commands/ports.js";
import type { SubscriptionStore } from "../../store/index.js";
import type { ListenerDeps } from "../listener-deps.js";

/** What the unfurls need (index.ts): a listener's deps, the channels' subscriptions, the clock. */
export interface UnfurlDeps extends ListenerDeps {
  store: Pick<SubscriptionStore, "listSubscribedRepositories" | "listSubscriptions">;
  now: () => Date;
  /**
   * What a linked GitHub login may do on a repository (the commands' lookup, cached briefly): a preview
   * while composing is made only of repositories the writer's login can read. Absent (no GitHub App):
   * no preview while composing.
   */
  readPermission?: PermissionLookup;
}
