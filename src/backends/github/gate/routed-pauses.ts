import type { QueuePauses } from "../../../core/pause.js";
import type { Repo } from "../../../repo.js";
import type { PauseState } from "../../mergify/index.js";

/** What timed pauses and freeze windows do to a repository's queue (MergeQueue's pause calls fit). */
export interface RepositoryPauses {
  getPause(repo: Repo): Promise<PauseState>;
  pause(repo: Repo, reason: string): Promise<PauseState>;
  unpause(repo: Repo): Promise<unknown>;
}

/**
 * Timed pauses' ends and freeze windows on whichever queue serves the repository's default branch: the
 * gate's pause where GitHub's merge queue does, Mergify's pause API otherwise. `by` names who the gate
 * records (the schedule or the window acts for whoever set it).
 */
export function routedPauses(
  mergify: RepositoryPauses,
  onGitHub: (repo: Repo) => Promise<boolean>,
  gate: QueuePauses,
  by = "Yardmaster",
): RepositoryPauses {
  const target = (repo: Repo) => ({ repo, branch: null });
  return {
    async getPause(repo) {
      if (!(await onGitHub(repo))) return mergify.getPause(repo);
      const pause = await gate.current(target(repo));
      return pause ? { paused: true, reason: pause.reason, paused_at: pause.pausedAt } : { paused: false };
    },
    async pause(repo, reason) {
      if (!(await onGitHub(repo))) return mergify.pause(repo, reason);
      const pause = await gate.pause(target(repo), { reason, by });
      return { paused: true, reason: pause.reason, paused_at: pause.pausedAt };
    },
    async unpause(repo) {
      if (!(await onGitHub(repo))) return mergify.unpause(repo);
      return gate.resume(target(repo), by);
    },
  };
}
