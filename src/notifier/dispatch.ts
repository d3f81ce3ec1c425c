import type { LogEvent } from "../merge-queue/index.js";
import type { Repo } from "../repo.js";
import type { NoticeOrder, Subscription } from "../store/index.js";
import type { Deliverer } from "./deliverer.js";
import type { PersonalNotices } from "./personal-notices.js";
import { route } from "./routing.js";

export interface DispatchDeps {
  deliverer: Pick<Deliverer, "enqueue">;
  personal?: Pick<PersonalNotices, "route"> | undefined;
}

/**
 * Hands one event of a repository to the outbox: once for each subscribed channel that wants it, once
 * for each person whose notices want it (a direct message). The outbox keeps one row per address and
 * event, so an event handed over twice (two replicas, a redelivery) is still posted once. `order`: where
 * the event stands in each channel's order, when not where its claim puts it (a pushed notice).
 */
export async function dispatchEvent(
  deps: DispatchDeps,
  repository: Repo,
  event: LogEvent,
  subscriptions: readonly Subscription[],
  order?: NoticeOrder,
): Promise<void> {
  for (const channel of route(event, subscriptions))
    await deps.deliverer.enqueue(channel, repository, event, order);
  for (const person of (await deps.personal?.route(repository, event)) ?? [])
    await deps.deliverer.enqueue(person, repository, event, order);
}
