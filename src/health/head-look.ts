import type { EntryChecks, EntryState, MergeQueues, QueueEntry, QueueState } from "../core/merge-queue.js";
import type { QueueEvent } from "../core/queue.js";
import type { Logger } from "../logger.js";
import type { Repo } from "../repo.js";

/**
 * What the queue itself says of its head when a stalled or slow-checks alert opens (docs/notifications.md,
 * "The queue's health"): the history has no running check names, the backend's neutral state does. Read
 * once per alert, best effort: a failed read leaves the alert's words as the history tells them.
 */
export interface HeadLook {
  /** The head's pull request; null when the queue shows none. */
  pull: number | null;
  /** Where the head stands, in the core's words; null without a head. */
  state: EntryState | null;
  /** Its checks still pending (names and pages), as the backend reports them; empty when it says none. */
  pending: { name: string; url: string | null }[];
  /** The pause in force, as the queue tells it (who, where it knows). */
  pause: { reason: string; by: string | null; pausedAt: string | null } | null;
}

/** Check states that are a conclusion: every other state is still pending. */
const CONCLUDED = new Set([
  "success",
  "failure",
  "failed",
  "error",
  "cancelled",
  "timed_out",
  "neutral",
  "skipped",
  "action_required",
  "stale",
]);

/** The head of a queue's state: the first entry of its first batch (merge group), else its first entry. */
function headEntry(state: QueueState): QueueEntry | null {
  const inBatch = state.batches?.find((b) => b.entries.length > 0)?.entries[0];
  if (inBatch) return inBatch;
  return [...state.entries].sort((a, b) => a.position - b.position)[0] ?? null;
}

/** The checks not concluded yet. */
function pendingChecks(checks: EntryChecks | null): HeadLook["pending"] {
  return (checks?.checks ?? [])
    .filter((c) => !CONCLUDED.has(c.state.toLowerCase()))
    .map((c) => ({ name: c.name, url: c.url }));
}

/** The branch the history last said a pull request is queued for; null when it did not say. */
export function branchOfPull(events: readonly QueueEvent[], pull: number | null): string | null {
  if (pull === null) return null;
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const e = events[i];
    if (e?.pull === pull && e.branch) return e.branch;
  }
  return null;
}

/**
 * Reads the queue of the branch once: its head, its checks still pending (from its entry when the
 * state does not list them) and its pause. Null when the read fails or the queue has no state.
 */
export async function lookAtHead(
  queues: Pick<MergeQueues, "for">,
  target: { repo: Repo; branch: string | null },
  logger: Logger,
): Promise<HeadLook | null> {
  try {
    const backend = await queues.for(target.repo, target.branch ?? undefined);
    const state = await backend.state(target.repo, target.branch);
    if (!state) return null;
    const head = headEntry(state);
    const pull = head?.pull?.number ?? null;
    // The state of some backends lists no checks: the head's own entry does.
    let checks = head?.checks ?? null;
    if (pull !== null && !checks)
      checks = backend.entryChecks
        ? await backend.entryChecks(target.repo, pull)
        : ((await backend.entry(target.repo, pull))?.checks ?? null);
    const pause = state.pause
      ? { reason: state.pause.reason, by: state.pause.by, pausedAt: state.pause.pausedAt }
      : null;
    return { pull, state: head?.state ?? null, pending: pendingChecks(checks), pause };
  } catch (error) {
    logger.warn(
      { err: error, repository: target.repo.fullName },
      "health: could not read the queue's head: the alert says what the history tells",
    );
    return null;
  }
}
