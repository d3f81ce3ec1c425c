import type { PauseTarget, QueuePauses, QueueResume } from "../core/pause.js";
import type { PauseAttribution } from "../core/records.js";
import type { Repo } from "../repo.js";

/**
 * Pausing and resuming a merge queue with who and why: the queue's pause (QueuePauses) and Yardmaster's
 * record of who asked (PauseAttribution), which the notices, `status` and the Home tab name. The `pause`
 * and `unpause` commands, a timed pause's end and a freeze window's end all record through here.
 */

/** Who asked: a GitHub login (or how the surface names the person), and where. */
export interface Who {
  login: string;
  surface: PauseAttribution["surface"];
}

export interface PauseRecordDeps {
  /** Keeps who paused or resumed; absent: nothing is kept. */
  attributePause?: (attribution: PauseAttribution) => Promise<void>;
  now?: () => Date;
}

/** What happened: for a pause its reason and a timed pause's end; for an unpause whether a schedule made it. */
export type PauseChange = Pick<PauseAttribution, "action" | "reason" | "resumesAt" | "scheduled">;

/** Records who paused or resumed a repository's queue. Best effort: the change happened either way. */
export async function recordPauseChange(
  deps: PauseRecordDeps,
  repo: Repo,
  who: Who,
  change: PauseChange,
): Promise<void> {
  const at = deps.now?.() ?? new Date();
  await deps
    .attributePause?.({ repository: repo, ...change, actor: who.login, surface: who.surface, at })
    .catch(() => undefined);
}

/**
 * Resumes the queue in `who`'s name and records it; false when it was not paused (nothing recorded).
 * `scheduled`: the end of a timed pause or of a freeze window, set up by `who`.
 */
export async function resumeQueue(
  deps: PauseRecordDeps,
  pauses: Pick<QueuePauses, "resume">,
  target: PauseTarget,
  who: Who,
  options: { scheduled?: boolean } = {},
): Promise<boolean | QueueResume> {
  const resumed = await pauses.resume(target, who.login);
  if (!resumed) return false;
  const scheduled = options.scheduled ? { scheduled: true } : {};
  await recordPauseChange(deps, target.repo, who, { action: "unpause", reason: null, ...scheduled });
  return resumed;
}
