import type { SlackPlace } from "../../commands/command.js";
import type { SubscriptionStore } from "../../store/index.js";
import type { ListenerDeps } from "../listener-deps.js";

/** What the forms need (index.ts): a listener's deps, the subscribed repositories, the clock, a channel's place. */
export interface FormDeps extends ListenerDeps {
  store: Pick<SubscriptionStore, "listSubscribedRepositories">;
  now: () => Date;
  placeOf(channelId: string): Promise<SlackPlace>;
}
