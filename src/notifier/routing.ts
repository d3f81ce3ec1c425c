import type { EventGroup } from "../commands/event-groups.js";
import { isKnownEventType, type LogEvent } from "../backends/mergify/index.js";
import type { Subscription } from "../store/index.js";
import { matchesGlob } from "./glob.js";

/**
 * The event types of each subscription group (docs/notifications.md). The contract first wrote the checks
 * change type `action.queue.checks_change`; the service's real name is `action.queue.checks.change`
 * (its OpenAPI description). Both are routed; only types the service knows are asked for (it answers
 * 422 to an unknown `event_type`).
 */
export const GROUP_EVENT_TYPES: Readonly<Record<EventGroup, readonly string[]>> = {
  queue: ["action.queue.enter", "action.queue.leave", "action.queue.merged", "action.queue.change"],
  checks: [
    "action.queue.checks_start",
    "action.queue.checks_end",
    "action.queue.checks.change",
    "action.queue.checks_change",
    "action.queue.checks_not_started",
  ],
  bisection: ["action.queue.batch_bisection_start", "action.queue.batch_bisection_end"],
  pause: ["queue.pause.create", "queue.pause.update", "queue.pause.delete"],
};

/**
 * Event types about a whole queue, not one pull request's state (its size, its running checks): they do
 * not change a thread's state, and people's direct messages leave them to channels.
 */
export const QUEUE_WIDE_TYPES: ReadonlySet<string> = new Set([
  "action.queue.change",
  "action.queue.checks.change",
  "action.queue.checks_change",
]);

const TYPE_GROUP = new Map<string, EventGroup>(
  Object.entries(GROUP_EVENT_TYPES).flatMap(([group, types]) => types.map((t) => [t, group as EventGroup])),
);

export function groupOf(eventType: string): EventGroup | undefined {
  return TYPE_GROUP.get(eventType);
}

export function isPauseEvent(eventType: string): boolean {
  return groupOf(eventType) === "pause";
}

/**
 * The event types some subscription of a repository (or a person's notices) wants: what the poller
 * asks the log for.
 */
export function wantedEventTypes<S extends { groups: readonly string[] }>(
  subscriptions: readonly S[],
): string[] {
  const types = new Set<string>();
  for (const s of subscriptions) {
    for (const group of s.groups) {
      for (const t of GROUP_EVENT_TYPES[group as EventGroup] ?? []) if (isKnownEventType(t)) types.add(t);
    }
  }
  return [...types].sort();
}

/** The branch an event is about: its base_ref, or the metadata's branch. */
export function branchOf(event: LogEvent): string | null {
  if (event.base_ref) return event.base_ref;
  const branch = (event.metadata as { branch?: unknown } | null | undefined)?.branch;
  return typeof branch === "string" ? branch : null;
}

/**
 * Whether a subscription of the repository whose log the event came from wants it: an event group it
 * asked for, a branch matching its glob (pause events are repository-wide and always match), and an
 * event received after the subscription was made (no backfill). The event's own `repository` field is
 * not relied on: the service does not document its form.
 */
export function matches(subscription: Subscription, event: LogEvent): boolean {
  const group = groupOf(event.type);
  if (!group || !subscription.groups.includes(group)) return false;
  if (Date.parse(event.received_at) < subscription.createdAt.getTime()) return false;
  if (subscription.branchGlob && group !== "pause") {
    const branch = branchOf(event);
    if (branch === null || !matchesGlob(subscription.branchGlob, branch)) return false;
  }
  return true;
}

/** The channels (once each) whose subscriptions (of the event's repository) want the event. */
export function route(event: LogEvent, subscriptions: readonly Subscription[]): string[] {
  return [...new Set(subscriptions.filter((s) => matches(s, event)).map((s) => s.channelId))];
}
