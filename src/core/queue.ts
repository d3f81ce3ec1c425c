import type { Repo } from "../repo.js";
import type { EventGroup } from "./event-groups.js";

export { groupsToRead } from "./event-groups.js";
export type { EventGroup };

/**
 * The merge queue in the core's own terms: what every backend (src/backends/mergify, src/backends/github)
 * turns its own wire format into, and all that routing, threads, wording, direct messages, the Home tab
 * and stats read. Nothing here knows a vendor's names (docs/backends.md).
 */

/** A check that did not succeed, with its page where the backend gives one. */
export interface QueueCheck {
  name: string;
  url: string | null;
  /** The backend's conclusion ("failure", "timed_out", ...); null when it gives none. */
  state: string | null;
  /** The backend's own words for it (a commit status's description), where it gives them. */
  description?: string | null;
}

/**
 * Where a pull request's checks ran, as the backend names it: the commit they ran on, and the pull
 * request whose head that is when it is not the pull request itself (a batch's draft pull request, whose
 * head is read from GitHub). Either may be null.
 */
export interface ChecksRanOn {
  sha: string | null;
  pull: number | null;
}

/** What every queue event says: where, when, about which pull request. */
export interface QueueEventBase {
  /**
   * Unique per event whatever the backend, the same on every replica and redelivery: the outbox posts an
   * event once per address, and history records it once. Mergify's log ids are positive, the ids made
   * for GitHub's webhooks negative.
   */
  id: number;
  /** When it happened (ISO 8601). */
  at: string;
  /** The repository's full name, as the backend spelled it. */
  repository: string;
  /** Null for a repository-wide event (a pause). */
  pull: number | null;
  /** The base branch; null when the backend does not say. */
  branch: string | null;
  /** The queue's name (GitHub has one queue per branch: the branch); null when not said. */
  queue: string | null;
  /** The backend's own name for what happened: for metrics and logs only, never for decisions. */
  origin: string;
  /**
   * What the notifier adds from the recorded history before a notice is sent (src/notifier/notes.ts);
   * never set by a backend, never recorded in the history.
   */
  notes?: QueueEventNotes;
}

/** What the recorded history adds to a notice (docs/notifications.md). */
export interface QueueEventNotes {
  /** For a pull request that left for failed checks: each check that also failed for other pull requests within the hour. */
  alsoFailed?: { check: string; pulls: number[] }[];
  /** For its people's direct message: the pull request's checks started, first of this entry ("you're next"). */
  next?: { estimatedMergeAt: string | null };
  /**
   * For a pull request that left for a check failing for everyone, with the flake shield on: it was queued
   * again ("requeued", through the merge queue's API), Mergify was asked to ("asked": the relayed `queue`
   * comment is posted; Mergify's answer and its `entered` event say whether it took it), or it could not
   * be (`detail`: why, in plain words) (src/shield).
   */
  shield?: { check: string; outcome: "requeued" | "asked" | "failed"; detail: string | null };
}

/** What happened, by kind. */
export type QueueEventBody =
  | {
      kind: "entered";
      /**
       * The GitHub login of who put it in the queue, where the backend says (GitHub's `enqueued` sender,
       * the author of Mergify's `queue` command); absent or null when not known.
       */
      queuedBy?: string | null;
    }
  | {
      kind: "left";
      /** Left by merging (Mergify says so on its leave), else without merging. */
      merged: boolean;
      /** Why, in plain words (src/core/removal-reasons.ts); null when the backend gave none. */
      reason: string | null;
      /** The backend's code for why (counted by stats); null without one. */
      code: string | null;
      failedChecks: QueueCheck[];
      /** Where its checks ran (their details are read there: src/core/check-failures.ts); absent when not said. */
      ranOn?: ChecksRanOn | null;
    }
  | {
      kind: "merged";
      sha: string | null;
      /** When the pull request (last) entered the queue, where known: its time in the queue. */
      enteredAt: string | null;
    }
  | { kind: "queue-size"; size: number | null }
  | { kind: "checks-started"; batch: string | null }
  | {
      kind: "checks-ended";
      /** Stopped before a conclusion, with why in plain words. */
      aborted: boolean;
      reason: string | null;
      /** "success", "failure", ...; "unknown" when not said. */
      conclusion: string;
      failedChecks: QueueCheck[];
    }
  | { kind: "checks-running"; running: number | null }
  | { kind: "checks-not-started"; reason: string | null }
  | { kind: "bisection-started"; pulls: number[]; parts: number | null }
  | { kind: "bisection-ended"; culprits: number[] }
  | {
      kind: "paused";
      reason: string;
      by: string | null;
      update: boolean;
      /**
       * "branch" when the pause holds the event's `branch` alone (GitHub's merge queue, through the gate):
       * its notice's Unpause resumes that branch. Absent: the repository's pause (Mergify's), or the
       * default branch's.
       */
      scope?: "branch";
      /** A drain (the gate): what was queued before it merges, nothing queued since starts. */
      drain?: true;
      /** Labels whose pull requests pass while the pause holds the rest (the gate). */
      except?: string[];
    }
  | {
      /**
       * A drain is done: nothing queued before it is left in the queue (the gate), which stays held until
       * resumed. `by` and `reason` are the drain's.
       */
      kind: "drained";
      by: string | null;
      reason: string;
      scope?: "branch";
    }
  | {
      /**
       * Someone let a pull request's merge group through a held queue (the gate): `pulls` are the group's,
       * in the queue's order, the one named last.
       */
      kind: "let-through";
      by: string;
      pulls: number[];
      scope?: "branch";
    }
  | {
      kind: "resumed";
      by: string | null;
      /** "branch" when the pause that ended held the event's `branch` alone (the gate); absent: as `paused`. */
      scope?: "branch";
    }
  /**
   * A pull request merged into a branch whose merge queue is on without going through it (an admin's
   * bypass, a merge while the queue was off): Yardmaster's own finding (src/outside-merges), not a
   * backend's event; said in the channels that follow the `health` group.
   */
  | {
      kind: "merged-outside-queue";
      /** The GitHub login of who merged it; null when GitHub did not say. */
      by: string | null;
      /** The merge commit; null when GitHub did not say. */
      sha: string | null;
      /** The pull request's title as GitHub's webhook gave it; null when not known. */
      title: string | null;
    }
  /** Something the core has no words for: the backend's words, and its group where it has one. */
  | { kind: "other"; group: EventGroup | null; what: string };

export type QueueEvent = QueueEventBase & QueueEventBody;
export type QueueEventKind = QueueEvent["kind"];
export type QueueEventOf<K extends QueueEventKind> = QueueEvent & { kind: K };

const KIND_GROUP: Readonly<Record<Exclude<QueueEventKind, "other">, EventGroup>> = {
  entered: "queue",
  left: "queue",
  merged: "queue",
  "queue-size": "queue",
  "checks-started": "checks",
  "checks-ended": "checks",
  "checks-running": "checks",
  "checks-not-started": "checks",
  "bisection-started": "bisection",
  "bisection-ended": "bisection",
  paused: "pause",
  drained: "pause",
  "let-through": "pause",
  resumed: "pause",
  "merged-outside-queue": "health",
};

/** The subscription group of an event (docs/notifications.md); undefined when none wants it. */
export function groupOfEvent(event: QueueEventBody): EventGroup | undefined {
  if (event.kind === "other") return event.group ?? undefined;
  return KIND_GROUP[event.kind];
}

/**
 * Kinds about a whole queue, not one pull request's state (its size, its running checks): they do not
 * change a thread's state, and people's direct messages leave them to channels.
 */
export const QUEUE_WIDE_KINDS: ReadonlySet<string> = new Set<QueueEventKind>([
  "queue-size",
  "checks-running",
]);

/** Kinds after which a pull request is no longer in a queue. */
export const OUT_OF_QUEUE_KINDS: ReadonlySet<string> = new Set<QueueEventKind>(["merged", "left"]);

/** Whether a value read back from the store is a queue event (written by this version or later). */
export function isQueueEvent(value: unknown): value is QueueEvent {
  const v = value as Partial<QueueEvent> | null;
  return typeof v === "object" && v !== null && typeof v.kind === "string" && typeof v.id === "number";
}

/** Orders events oldest first by time, then id. */
export function compareQueueEvents(a: QueueEvent, b: QueueEvent): number {
  const byTime = Date.parse(a.at) - Date.parse(b.at);
  return byTime !== 0 ? byTime : a.id - b.id;
}

/** A point in a backend's log: every event before `at` is behind it, and those at `at` with these ids. */
export interface LogPosition {
  at: Date;
  ids: readonly number[];
}

/** Reads a backend's events since a time: the notifier's poller (for a backend with a log to read). */
export interface QueueEventLog {
  /**
   * Every event of the repository from `since` (and before `until`) of the groups asked for, read whole,
   * in any order; an event the core has no words for comes as kind "other". With `after` (where the reader
   * took the log up to: every event before `at`, and those at `at` with these ids), the backend may
   * leave out events it can tell are at or before that point without reading further.
   */
  events(
    repo: Repo,
    query: { since: Date; until?: Date; groups: readonly EventGroup[]; after?: LogPosition },
  ): Promise<QueueEvent[]>;
  /** The backend's code for a failure to read, for metrics; undefined when it is not the backend's. */
  failureCode?(error: unknown): string | undefined;
}
