import type { Repo } from "../repo.js";
import { pushedEventId } from "./pushed-events.js";
import type { QueueEventOf } from "./queue.js";

/**
 * Pull requests merged into a branch, and whether they went through its merge queue (docs/notifications.md,
 * "Merged outside the queue"), in the core's terms: GitHub's `pull_request` `closed` webhook says one was
 * merged; the backend serving its branch judges whether its queue merged it (each backend's merge-witness.ts);
 * src/outside-merges says the ones that skipped it.
 */

/** A pull request GitHub says was merged (its `pull_request` `closed` webhook, with `merged: true`). */
export interface MergedPull {
  repository: Repo;
  number: number;
  /** The branch it was merged into (its base). */
  branch: string;
  /** When GitHub says it was merged (`merged_at`). */
  mergedAt: Date;
  /** Who merged it (`merged_by`, else the webhook's sender); null when GitHub did not say. */
  by: string | null;
  /** The merge commit (`merge_commit_sha`); null when GitHub did not say. */
  sha: string | null;
  title: string | null;
}

/**
 * What the backend serving a merged pull request's branch says of it: its queue merged it (`queue`), it
 * was merged without the queue (`outside`), the branch has no merge queue (`no-queue`), or it cannot tell
 * yet (`wait`: its log not read since the merge, its API not answering), with why for the logs.
 */
export type MergeVerdict = { verdict: "queue" | "outside" | "no-queue" } | { verdict: "wait"; why: string };

/** Judges whether a merged pull request went through the merge queue of its branch. */
export interface MergeWitness {
  /** `receivedAt`: when Yardmaster heard of the merge (its own clock), to compare with what it read since. */
  judge(merge: MergedPull, receivedAt: Date): Promise<MergeVerdict>;
}

/**
 * The queue event of a pull request merged outside its queue: its id from the repository and the pull
 * request (a pull request merges once), so every replica and redelivery makes the same one, which the
 * outbox posts once per channel and the history records once.
 */
export function outsideMergeEvent(merge: MergedPull): QueueEventOf<"merged-outside-queue"> {
  return {
    id: pushedEventId(`merged-outside:${merge.repository.key}#${merge.number}`),
    at: merge.mergedAt.toISOString(),
    repository: merge.repository.fullName,
    pull: merge.number,
    branch: merge.branch,
    queue: null,
    origin: "pull_request.closed",
    kind: "merged-outside-queue",
    by: merge.by,
    sha: merge.sha,
    title: merge.title,
  };
}
