import type { QueueEvent } from "../core/queue.js";
import type { Subscription } from "../core/records.js";
import { Turns } from "../event-loop.js";
import type { Repo } from "../repo.js";
import type { NoticeOrder } from "../store/index.js";
import type { Deliverer } from "./deliverer.js";
import type { FailureDetailsKeeper } from "./failure-details.js";
import type { PersonalNotices } from "./personal-notices.js";
import { route } from "./routing.js";

export interface DispatchDeps {
  deliverer: Pick<Deliverer, "enqueue">;
  personal?:
    | (Pick<PersonalNotices, "route" | "lookUpAuthors"> & Partial<Pick<PersonalNotices, "forPeople">>)
    | undefined;
  /** Adds what the recorded history says to an event before it is queued (notes.ts); none without it. */
  annotate?: ((repository: Repo, event: QueueEvent) => Promise<QueueEvent>) | undefined;
  /** Starts reading why a removal's checks failed, before its notices are queued (failure-details.ts). */
  details?: Pick<FailureDetailsKeeper, "begin"> | undefined;
}

/** A removal heard by some channel: the reading of its details starts before its notices are queued. */
async function beginDetails(
  deps: DispatchDeps,
  repository: Repo,
  event: QueueEvent,
  subscriptions: readonly Subscription[],
): Promise<void> {
  if (subscriptions.length > 0) await deps.details?.begin(repository, event);
}

/** The event with what the history adds; as it is when that cannot be read (the notice goes without it). */
async function annotated(deps: DispatchDeps, repository: Repo, event: QueueEvent): Promise<QueueEvent> {
  return deps.annotate ? deps.annotate(repository, event).catch(() => event) : event;
}

/** Queues people's direct messages of an event, as they show it ("you're next"). */
async function enqueuePeople(deps: DispatchDeps, repository: Repo, event: QueueEvent, order?: NoticeOrder) {
  const people = (await deps.personal?.route(repository, event)) ?? [];
  if (people.length === 0) return;
  const shown = (await deps.personal?.forPeople?.(repository, event)) ?? event;
  for (const person of people) await deps.deliverer.enqueue(person, repository, shown, order);
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
  const shown = await annotated(deps, repository, event);
  await beginDetails(deps, repository, shown, subscriptions);
  for (const channel of route(shown, subscriptions))
    await deps.deliverer.enqueue(channel, repository, shown, order);
  await enqueuePeople(deps, repository, shown, order);
}

/**
 * Hands a read's new events to the outbox, channels before people: every channel notice is queued
 * (delivery asked for after the first ones, `onChannelsQueued`) before any GitHub lookup a direct
 * message needs, so a backlog's channel notices never wait for them. Then the authors are looked up,
 * once per pull request and a few at a time, and people's notices queued in the events' order. The
 * event loop runs between two events once a turn has run its budget (event-loop.ts): a backlog's
 * thousands of rows are queued in many short tasks, not one long one. Each row is queued on its own
 * (once per address and event whatever happens), so handing the events over again after a failure
 * halfway queues only what is missing.
 */
export async function dispatchEvents(
  deps: DispatchDeps & { onChannelsQueued?: () => void; turns?: Turns },
  repository: Repo,
  events: readonly QueueEvent[],
  subscriptions: readonly Subscription[],
): Promise<void> {
  const shown: QueueEvent[] = [];
  const turns = deps.turns ?? new Turns();
  for (const [i, event] of events.entries()) {
    await turns.next();
    const annotatedEvent = await annotated(deps, repository, event);
    await beginDetails(deps, repository, annotatedEvent, subscriptions);
    shown.push(annotatedEvent);
    for (const channel of route(annotatedEvent, subscriptions))
      await deps.deliverer.enqueue(channel, repository, annotatedEvent);
    if ((i + 1) % QUEUED_CHUNK === 0) deps.onChannelsQueued?.();
  }
  if (events.length > 0) deps.onChannelsQueued?.();
  const { personal } = deps;
  if (!personal) return;
  await personal.lookUpAuthors(repository, events);
  for (const event of shown) {
    await turns.next();
    await enqueuePeople(deps, repository, event);
  }
}
