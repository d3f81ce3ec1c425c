import type { MergeWitness } from "../../core/merged-pulls.js";
import type { Repo } from "../../repo.js";
import type { QueueHistory } from "../../store/index.js";

/**
 * Whether Mergify's queue merged a pull request GitHub says was merged (docs/backends.md, "Merges outside
 * the queue"): its log says so (`action.queue.merged`, recorded in the history as `merged` by the poller,
 * which reads it for every repository a channel follows with `health`). Mergify writes its log a little
 * after GitHub's `closed` webhook, so the log must have been read, and its events recorded, since
 * LOG_LAG_MS after the merge was heard of (the poller's cursor, moved only once a read's events are
 * recorded); until then it cannot tell. A pull request queued and merged by hand meanwhile (Mergify's
 * leave `PR_MANUALLY_MERGED`) has no merge of Mergify's: outside.
 */
export interface MergifyMergeWitnessDeps {
  /** The branches with an active merge queue (Mergify's `merge-queue/branches`). */
  branches(repo: Repo): Promise<string[]>;
  /** When the last read of the repository's log whose events are all recorded began; null: never. */
  logReadAt(repo: Repo): Promise<Date | null>;
  history: Pick<QueueHistory, "readPullQueueEvents">;
}

/** How long after GitHub's `closed` webhook Mergify's merge event may reach its log. */
export const LOG_LAG_MS = 30_000;
/** How far around the merge its queue's merge event is looked for. */
const AROUND_MS = 24 * 60 * 60_000;

export function mergifyMergeWitness(deps: MergifyMergeWitnessDeps): MergeWitness {
  return {
    async judge(merge, receivedAt) {
      let branches: string[];
      try {
        branches = await deps.branches(merge.repository);
      } catch (error) {
        return {
          verdict: "wait",
          why: `Mergify did not list the branches of its queue: ${(error as Error).message}`,
        };
      }
      if (!branches.includes(merge.branch)) return { verdict: "no-queue" };
      const readAt = await deps.logReadAt(merge.repository);
      if (!readAt || readAt.getTime() < receivedAt.getTime() + LOG_LAG_MS)
        return { verdict: "wait", why: "Mergify's event log has not been read since the merge" };
      const merges = await deps.history.readPullQueueEvents(
        merge.repository,
        merge.number,
        {
          from: new Date(merge.mergedAt.getTime() - AROUND_MS),
          to: new Date(Math.max(merge.mergedAt.getTime(), readAt.getTime()) + AROUND_MS),
        },
        ["merged"],
      );
      return { verdict: merges.length > 0 ? "queue" : "outside" };
    },
  };
}
