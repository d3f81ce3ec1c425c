import type { SubscriptionStore } from "../../store/index.js";
import type { ListenerDeps } from "../listener-deps.js";

/** What the unfurls need (index.ts): a listener's deps, the channels' subscriptions, the clock. */
export interface UnfurlDeps extends ListenerDeps {
  store: Pick<SubscriptionStore, "listSubscribedRepositories" | "listSubscriptions">;
  now: () => Date;
}
