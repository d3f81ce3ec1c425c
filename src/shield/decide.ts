import { wantsFailureDetails } from "../core/check-failures.js";
import type { QueueEvent, QueueEventOf } from "../core/queue.js";

/**
 * What the flake shield decides from a removal and the queue's recorded history, without I/O
 * (docs/notifications.md, "The flake shield").
 */

/** How many other pull requests a check must also have failed for within the hour (src/notifier/notes.ts). */
export const SHIELD_MIN_OTHERS = 2;
/** How many times one queue entry is tried, the first included: the shield queues it again once. */
export const SHIELD_ATTEMPTS = 2;

/** A removal the shield may act on: a pull request that left without merging, for failed checks. */
export type Removal = QueueEventOf<"left"> & { pull: number };

/**
 * The check of a removal that is failing for everyone: one of its failed checks that also failed, in
 * another run, for at least SHIELD_MIN_OTHERS other pull requests within the hour before (the verdict
 * `notes.alsoFailed` holds). Null for anything else: a merge, a check that failed for it alone or for
 * fewer others, an event that is not a removal.
 */
export function failingForEveryone(event: QueueEvent): { check: string; pulls: number[] } | null {
  if (!wantsFailureDetails(event)) return null;
  const failed = new Set(event.failedChecks.map((c) => c.name));
  return (
    (event.notes?.alsoFailed ?? []).find((a) => failed.has(a.check) && a.pulls.length >= SHIELD_MIN_OTHERS) ??
    null
  );
}

/** The pull request's `entered` events at or before the removal, by time: what the entry is read from. */
export function entriesUpTo(removal: Removal, entered: readonly QueueEvent[]): QueueEvent[] {
  const at = Date.parse(removal.at);
  return entered
    .filter((e) => e.kind === "entered" && e.pull === removal.pull && Date.parse(e.at) <= at)
    .sort((a, b) => Date.parse(a.at) - Date.parse(b.at) || a.id - b.id);
}

/**
 * The queue entry a removal ends, as the shield claims it: its latest `entered` event at or before the
 * removal (its id; `entries`: entriesUpTo's), or, where the history holds none, the removal itself.
 */
export function entryKeyOf(removal: Removal, entries: readonly QueueEvent[]): string {
  const entry = entries.at(-1);
  return entry ? String(entry.id) : `left:${removal.id}`;
}

/** Who put the entry the removal ends in the queue (`entries`: entriesUpTo's), where the backend said. */
export function queuerOf(entries: readonly QueueEvent[]): string | null {
  const entry = entries.at(-1);
  return entry?.kind === "entered" ? (entry.queuedBy ?? null) : null;
}

/**
 * Whether the removal ends the entry the shield made: the pull request was queued again by the shield
 * after an earlier removal, and it has not entered the queue since but for that once (`entries`:
 * entriesUpTo's). Such an entry is never queued again (one retry per entry); a person who queues it again
 * starts a new one.
 */
export function endsShieldEntry(
  removal: Removal,
  requeues: readonly { outcome: string; leftEventId: number; leftAt: Date }[],
  entries: readonly QueueEvent[],
): boolean {
  const at = Date.parse(removal.at);
  const last = requeues
    .filter((r) => r.outcome === "requeued" && r.leftEventId !== removal.id && r.leftAt.getTime() <= at)
    .sort((a, b) => a.leftAt.getTime() - b.leftAt.getTime())
    .at(-1);
  if (!last) return false;
  return entries.filter((e) => Date.parse(e.at) > last.leftAt.getTime()).length <= 1;
}
