import { CommandError, CommandErrorCode } from "../core/errors.js";
import { fromMergeQueueError } from "../core/from-merge-queue-error.js";
import type { MergeQueueBackend, MergeQueues, QueueAbilities, QueueEntry } from "../core/merge-queue.js";
import type { QueuePause } from "../core/pause.js";
import type { Repo } from "../repo.js";

/**
 * A pull request's queue state: which merge queue serves it and where it stands there. What the `pr`
 * command, Slack's unfurls and the Home tab show, read once here on the ports (the backends' choice,
 * GitHub's pull request) rather than by running commands.
 */

/** What reading a pull request's queue needs: the queues, and GitHub's pull request (its base branch). */
export interface PullQueueDeps<Pull extends { baseRef: string } = { baseRef: string }> {
  queues: Pick<MergeQueues, "for">;
  github: { pullRequest(repo: Repo, number: number): Promise<Pull | null> };
}

/** The queue serving the branch (read only when the choice depends on it); a failed choice is GitHubFailed. */
export async function queueFor(
  queues: Pick<MergeQueues, "for">,
  repo: Repo,
  branch?: string | (() => Promise<string | undefined>),
): Promise<MergeQueueBackend> {
  return queues.for(repo, branch).catch((error: unknown) => {
    if (error instanceof CommandError) throw error;
    throw new CommandError(CommandErrorCode.GitHubFailed, {
      repository: repo.fullName,
      detail: (error as Error).message,
    });
  });
}

/** The base branch of a pull request, for choosing its queue (undefined when GitHub cannot say). */
export function baseBranchOf(
  deps: PullQueueDeps,
  repo: Repo,
  number: number,
): () => Promise<string | undefined> {
  return async () => (await deps.github.pullRequest(repo, number).catch(() => null))?.baseRef;
}

export interface PullInQueue {
  /** What its queue can do (its layout: batches and named queues, or one queue per branch). */
  can: QueueAbilities;
  /** Its base branch, when it was read (to choose the queue, or to name a branch's queue it is in). */
  branch?: string;
  /** Its entry; null when it is not queued. */
  entry: QueueEntry | null;
}

/**
 * Where a pull request stands in the queue serving its base branch. Failures throw the core's
 * CommandError (`command` names what asked, for its wording).
 */
export async function pullInQueue(
  deps: PullQueueDeps,
  repo: Repo,
  pull: number,
  command = "pr",
): Promise<PullInQueue> {
  let branch: string | undefined;
  const baseBranch = baseBranchOf(deps, repo, pull);
  const backend = await queueFor(deps.queues, repo, async () => {
    branch = await baseBranch();
    return branch;
  });
  let entry: QueueEntry | null;
  try {
    entry = await backend.entry(repo, pull);
  } catch (error) {
    throw fromMergeQueueError(error, { command, repository: repo.fullName, pull });
  }
  // In a queue that is its base branch's (no named queues), the answer names the branch.
  if (entry && entry.queue === null) branch ??= await baseBranch();
  return { can: backend.can, ...(branch ? { branch } : {}), entry };
}

/** A pull request and its queue as a preview shows them (Slack's unfurls): nothing here fails. */
export interface PullPreview<Pull> {
  /** GitHub's pull request; null when GitHub could not say. */
  info: Pull | null;
  /** Its place; or the closed code of why it could not be read. */
  queue: PullInQueue | { error: CommandErrorCode };
  /** The pause holding its base branch's queue; null when none, or when it could not be read. */
  pause: QueuePause | null;
}

/** A pull request, its place in its queue and that queue's pause, each read best effort. */
export async function previewPull<Pull extends { baseRef: string }>(
  deps: PullQueueDeps<Pull>,
  repo: Repo,
  pull: number,
): Promise<PullPreview<Pull>> {
  const info = await deps.github.pullRequest(repo, pull).catch(() => null);
  // The pull request read once: its base branch chooses the queue.
  const read = { ...deps, github: { pullRequest: async () => info } };
  const context = { command: "pr", repository: repo.fullName, pull };
  const [queue, pause] = await Promise.all([
    pullInQueue(read, repo, pull).catch((error: unknown) => ({
      error: fromMergeQueueError(error, context).code,
    })),
    pauseOf(deps, repo, info?.baseRef),
  ]);
  return { info, queue, pause };
}

/** The pause of the queue serving the branch (the default branch's without one); null when none or unread. */
async function pauseOf(
  deps: PullQueueDeps,
  repo: Repo,
  branch: string | undefined,
): Promise<QueuePause | null> {
  try {
    const backend = await queueFor(deps.queues, repo, branch);
    return (await backend.state(repo, branch ?? null))?.pause ?? null;
  } catch (error) {
    fromMergeQueueError(error, { command: "status", repository: repo.fullName }); // anything else throws
    return null;
  }
}
