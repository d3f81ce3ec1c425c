import type { LogEvent } from "../merge-queue/index.js";
import type { Repo } from "../repo.js";
import type { Subscription } from "../store/index.js";
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
 * event, so an event handed over twice (two replicas, a redelivery) is still posted once.
 */
export async function dispatchEvent(
  deps: DispatchDeps,
  repository: Repo,
  event: LogEvent,
  subscriptions: readonly Subscription[],
): Promise<void> {
  for (const channel of route(event, subscriptions)) await deps.deliverer.enqueue(channel, repository, event);
  for (const person of (await deps.personal?.route(repository, event)) ?? [])
    await deps.deliverer.enqueue(person, repository, event);
}
