import type { SlackPlace } from "../../commands/command.js";
import type { PermissionLookup } from "../../commands/ports.js";
import type { IdentityLinkStore, SubscriptionStore } from "../../store/index.js";
import type { ListenerDeps } from "../listener-deps.js";

/** What the forms need (index.ts): a listener's deps, the subscribed repositories, the clock, a channel's place. */
export interface FormDeps extends ListenerDeps {
  store: Pick<SubscriptionStore, "listSubscribedRepositories" | "listSubscriptions"> &
    Pick<IdentityLinkStore, "getLink">;
  /** What a linked login may read (cached briefly): the pause form lists those repositories. */
  readPermission?: PermissionLookup;
  now: () => Date;
  placeOf(channelId: string): Promise<SlackPlace>;
}
