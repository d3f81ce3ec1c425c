import type { MergeWitness } from "../../core/merged-pulls.js";
import type { Repo } from "../../repo.js";
import type { GitHubQueueMemory, MergedPullStore } from "../../store/index.js";

/**
 * Whether GitHub's own merge queue merged a pull request GitHub says was merged (docs/backends.md, "Merges
 * outside the queue"). The queue merges through a merge group: it says so with `pull_request` `dequeued`
 * reason MERGE and `merge_group` `destroyed` reason `merged` (noted by queue-events.ts, whichever replica
 * heard them), and the merge commit is its merge group's (remembered from `checks_requested`). A pull
 * request the queue had and lost (failed checks, removed, `ALREADY_MERGED`) and that someone then merged
 * with an admin's bypass has none of these: it was merged outside the queue.
 */
export interface GitHubMergeWitnessDeps {
  /** Whether the branch has GitHub's merge queue (its `mergeQueue(branch:)`, GitHubQueueClient.hasQueue). */
  hasQueue(repo: Repo, branch: string): Promise<boolean>;
  memory: Pick<GitHubQueueMemory, "getQueuePull">;
  merges: Pick<MergedPullStore, "queueMergeNoted">;
}

export function githubMergeWitness(deps: GitHubMergeWitnessDeps): MergeWitness {
  return {
    async judge(merge) {
      let queued: boolean;
      try {
        queued = await deps.hasQueue(merge.repository, merge.branch);
      } catch (error) {
        return {
          verdict: "wait",
          why: `GitHub did not say whether ${merge.branch} has a merge queue: ${(error as Error).message}`,
        };
      }
      if (!queued) return { verdict: "no-queue" };
      if (await deps.merges.queueMergeNoted(merge.repository, merge.number)) return { verdict: "queue" };
      const group = (await deps.memory.getQueuePull(merge.repository, merge.number))?.groupSha;
      if (group && merge.sha && group.toLowerCase() === merge.sha.toLowerCase()) return { verdict: "queue" };
      return { verdict: "outside" };
    },
  };
}
