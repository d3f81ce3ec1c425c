import type { Repo } from "../repo.js";

/**
 * A merge queue's pause in the core's own terms. A backend that can hold its queue offers `QueuePauses`
 * (Mergify: its pause API, repository-wide; GitHub's merge queue: Yardmaster's gate check, per branch);
 * a backend that cannot has none, and the commands say so before anything is called.
 */

/** A queue's pause as the backend (or Yardmaster's record of it) tells it. */
export interface QueuePause {
  reason: string;
  /** When the queue says it was paused (ISO 8601); null when it does not say. */
  pausedAt: string | null;
  /** Who paused, where the backend knows (the gate does; Mergify sees only Yardmaster's app). */
  by: string | null;
  /**
   * Set by `pause` only, where the pause may not hold what the person expects: a plain sentence the
   * answer adds (the gate: the branch's rules do not require its check, so GitHub's queue keeps merging).
   */
  warning?: string;
  /**
   * The branch the pause holds, where one pause holds one branch (the gate: the default branch's name
   * too, read from GitHub); absent where it holds the whole repository (Mergify's).
   */
  branch?: string;
  /**
   * A drain rather than a pause (the gate): what was queued before it merges, nothing queued since
   * starts. `drainedAt` is when nothing queued before it was left (ISO 8601); null while it drains.
   */
  drain?: { drainedAt: string | null; entries: number };
  /** Labels whose pull requests pass while the pause holds the rest (the gate); absent: none. */
  except?: string[];
}

/** A pause asked for: why, by whom, and the labels whose pull requests it lets through (if any). */
export interface PauseRequest {
  reason: string;
  by: string;
  /** Only where the queue takes them (`QueuePauses.exemptions`); the commands refuse them elsewhere. */
  except?: readonly string[];
}

/** What `letThrough` did with a pull request on a held queue. */
export type LetThrough =
  /** Its merge group passes the gate (now, or once GitHub makes it): `pulls`, in the queue's order. */
  | { kind: "passed"; branch: string; pulls: number[]; passedNow: boolean }
  /** Its merge group holds others ahead of it: nothing done until the person confirms. */
  | { kind: "others"; branch: string; others: number[] }
  /** The branch is not held: nothing to let through. */
  | { kind: "not-held"; branch: string }
  /** It is not in the branch's queue. */
  | { kind: "not-queued"; branch: string };

/** What `resume` did, where the queue says more than that it resumed. */
export interface QueueResume {
  /** The branch resumed, where one pause holds one branch (the gate). */
  branch?: string;
  /**
   * A plain sentence the answer adds where the resume is not done yet (the gate: GitHub refused to
   * complete some held gate checks, which Yardmaster tries again): the answer then does not say plainly
   * that the queue runs.
   */
  warning?: string;
}

/** A pause in force and what it holds: `branch` null where it holds every branch of the repository. */
export interface HeldPause extends Omit<QueuePause, "branch"> {
  branch: string | null;
}

/** Where a pause is asked for: a branch's queue, or with `branch` null the default branch's. */
export interface PauseTarget {
  repo: Repo;
  branch: string | null;
}

export interface QueuePauses {
  /** What one pause holds: Mergify's holds every branch of the repository, the gate one branch. */
  scope: "repository" | "branch";
  /** The pause in force; null when the queue runs. */
  current(target: PauseTarget): Promise<QueuePause | null>;
  /**
   * Every pause in force in the repository (Mergify's one pause, or each branch's gate), however long
   * ago it began; where the backend can list them.
   */
  held?(repo: Repo): Promise<HeldPause[]>;
  /** Pauses (or changes the reason, and the exemptions, of a pause in force). */
  pause(target: PauseTarget, pause: PauseRequest): Promise<QueuePause>;
  /** Resumes; false when it was not paused; true, or what more it says (QueueResume), when it resumed. */
  resume(target: PauseTarget, by: string): Promise<boolean | QueueResume>;
  /**
   * Where a pause can let pull requests carrying some labels through (`PauseRequest.except`): the gate
   * can; Mergify's pause holds every pull request of the repository.
   */
  exemptions?: "labels";
  /**
   * Drains the queue (the gate): what is queued now merges, what is queued later waits, and once nothing
   * queued before is left the queue stays held until resumed. It replaces a pause in force. Absent where
   * the queue has no drain (Mergify's API has none).
   */
  drain?(target: PauseTarget, drain: { reason: string; by: string }): Promise<QueuePause>;
  /**
   * Lets one pull request's merge group through a held queue (the gate): at once when it holds that pull
   * request alone, or with `confirm` when it holds others ahead of it. Absent where the queue cannot.
   */
  letThrough?(
    target: { repo: Repo; branch: string; pull: number },
    options: { by: string; confirm: boolean },
  ): Promise<LetThrough>;
}

/** How a pause holds its queue: paused, draining, or drained (and held until resumed). */
export function holdOf(pause: Pick<QueuePause, "drain">): "paused" | "draining" | "drained" {
  if (!pause.drain) return "paused";
  return pause.drain.drainedAt ? "drained" : "draining";
}

/** A label's name as exemptions keep and compare it: GitHub's labels are the same whatever their case. */
export function labelKey(name: string): string {
  return name.toLowerCase();
}
