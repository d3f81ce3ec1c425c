import type { QueueEvent } from "../core/queue.js";
import type { Repo } from "../repo.js";
import type { NoticeOrder, Subscription } from "../store/index.js";
import type { Deliverer } from "./deliverer.js";
import type { PersonalNotices } from "./personal-notices.js";
import { route } from "./routing.js";

export interface DispatchDeps {
  deliverer: Pick<Deliverer, "enqueue">;
  personal?: Pick<PersonalNotices, "route" | "lookUpAuthors"> | undefined;
}

/** Channel notices queued between two calls of `onChannelsQueued`: delivery starts with the first ones. */
const QUEUED_CHUNK = 50;

/**
 * Hands one event of a repository to the outbox: once for each subscribed channel that wants it, once
 * for each person whose notices want it (a direct message). The outbox keeps one row per address and
 * event, so an event handed over twice (two replicas, a redelivery) is still posted once. `order`: where
 * the event stands in each channel's order, when not where its claim puts it (a pushed notice).
 */
export async function dispatchEvent(
  deps: DispatchDeps,
  repository: Repo,
  event: QueueEvent,
  subscriptions: readonly Subscription[],
  order?: NoticeOrder,
): Promise<void> {
  for (const channel of route(event, subscriptions))
    await deps.deliverer.enqueue(channel, repository, event, order);
  for (const person of (await deps.personal?.route(repository, event)) ?? [])
    await deps.deliverer.enqueue(person, repository, event, order);
}

/**
 * Hands a read's new events to the outbox, channels before people: every channel notice is queued
 * (delivery asked for after the first ones, `onChannelsQueued`) before any GitHub lookup a direct
 * message needs, so a backlog's channel notices never wait for them. Then the authors are looked up,
 * once per pull request and a few at a time, and people's notices queued in the events' order.
 */
export async function dispatchEvents(
  deps: DispatchDeps & { onChannelsQueued?: () => void },
  repository: Repo,
  events: readonly QueueEvent[],
  subscriptions: readonly Subscription[],
): Promise<void> {
  for (const [i, event] of events.entries()) {
    for (const channel of route(event, subscriptions))
      await deps.deliverer.enqueue(channel, repository, event);
    if ((i + 1) % QUEUED_CHUNK === 0) deps.onChannelsQueued?.();
  }
  if (events.length > 0) deps.onChannelsQueued?.();
  const { personal } = deps;
  if (!personal) return;
  await personal.lookUpAuthors(repository, events);
  for (const event of events)
    for (const person of await personal.route(repository, event))
      await deps.deliverer.enqueue(person, repository, event);
}
