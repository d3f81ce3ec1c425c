import { createHash } from "node:crypto";
import type { Repo } from "../repo.js";
import type { QueueEvent } from "./queue.js";

/**
 * How the notifier hears a backend's queue events, in the core's terms (src/core/queue.ts). A backend
 * with a log is read (QueueEventLog); one that tells what happens as it happens pushes its events
 * (GitHub's merge queue: its webhooks and the gate's pauses, src/backends/github/pushed-events.ts).
 */
export interface QueueEventPushes {
  /**
   * Hands `listener` every event pushed from now on, with its repository; a push is done (a webhook
   * answered) once the listener's answer settled, and fails as it fails.
   */
  listen(listener: (repository: Repo, event: QueueEvent) => Promise<unknown>): void;
}

/**
 * How the notifier reads back what it stored of an event: an outbox row's payload and the kind a
 * thread's state names as its latest. This version stores queue events; a row or a state an earlier
 * version stored in its backend's own format is read by that backend (the wiring gives its reader,
 * src/backends/wire.ts), so that the notifier knows no backend.
 */
export interface StoredEvents {
  /** The queue event an outbox row holds. */
  event(payload: unknown): QueueEvent;
  /** The kind of the latest event a thread's stored state names ("merged", "left", ...). */
  kind(type: string): string;
}

/** Rows as this version stores them: where no earlier format is read (tests of the notifier's parts). */
export const CURRENT_STORED_EVENTS: StoredEvents = {
  event: (payload) => payload as QueueEvent,
  kind: (type) => type,
};

/**
 * An event id for what was pushed rather than read from a log (a webhook, a finding of Yardmaster's):
 * negative (Mergify's log ids are positive, so the two never meet in one outbox), the same for the same
 * `key` on every replica and redelivery.
 */
export function pushedEventId(key: string): number {
  const bits = Number.parseInt(createHash("sha256").update(key).digest("hex").slice(0, 13), 16);
  return -(bits + 1);
}
