import { groupOfEvent, type QueueEvent } from "../core/queue.js";
import type { Subscription } from "../core/records.js";
import { matchesGlob } from "./glob.js";

/** Whether an event is a pause or a resume (repository-wide: a top-level message, never a thread). */
export function isPauseEvent(event: QueueEvent): boolean {
  return groupOfEvent(event) === "pause";
}

/**
 * Whether an event is a top-level message of its channel, never a thread's reply: a pause or a resume
 * (repository-wide), or one of the queue's health (a pull request merged outside the queue: said to the
 * channel, not buried in its thread).
 */
export function isTopLevelEvent(event: QueueEvent): boolean {
  const group = groupOfEvent(event);
  return group === "pause" || group === "health";
}

/**
 * Whether a subscription of the repository the event came from wants it: an event group it asked for,
 * a branch matching its glob (pause events are repository-wide and always match), and an event that
 * happened after the subscription was made (no backfill). The event's own `repository` field is not
 * relied on: a backend does not always document its form.
 */
export function matches(subscription: Subscription, event: QueueEvent): boolean {
  const group = groupOfEvent(event);
  if (!group || !subscription.groups.includes(group)) return false;
  if (Date.parse(event.at) < subscription.createdAt.getTime()) return false;
  if (subscription.branchGlob && group !== "pause") {
    if (event.branch === null || !matchesGlob(subscription.branchGlob, event.branch)) return false;
  }
  return true;
}

/** The channels (once each) whose subscriptions (of the event's repository) want the event. */
export function route(event: QueueEvent, subscriptions: readonly Subscription[]): string[] {
  return [...new Set(subscriptions.filter((s) => matches(s, event)).map((s) => s.channelId))];
}
