import type { PullRequestQueueDetails } from "../backends/mergify/index.js";
import { MergeQueueError, MergeQueueErrorCode } from "../backends/mergify/index.js";
import type { Repo } from "../repo.js";
import type { TextFormat } from "./description.js";
import type { CommandError } from "./errors.js";
import { fromMergeQueueError } from "./from-merge-queue-error.js";
import type { MergeQueue } from "./ports.js";
import { clip, formatEta } from "./present.js";

/** What the merge queue says of one pull request (after a relayed command, or asked with `pr`). */
export type QueueState =
  | { state: "queued"; details: PullRequestQueueDetails }
  | { state: "not_queued" }
  | { state: "unknown"; error: CommandError };

/**
 * Reads one pull request's place in the queue. `strict`: a failed read fails the command; otherwise
 * (after a relay, which did happen) it is reported as an unknown state.
 */
export async function readQueueState(
  mergeQueue: MergeQueue,
  repo: Repo,
  number: number,
  command: string,
  strict: boolean,
): Promise<QueueState> {
  try {
    return { state: "queued", details: await mergeQueue.getPullRequest(repo, number) };
  } catch (error) {
    if (error instanceof MergeQueueError && error.code === MergeQueueErrorCode.NotInQueue)
      return { state: "not_queued" };
    const converted = fromMergeQueueError(error, { command, repository: repo.fullName, pull: number });
    if (strict) throw converted;
    return { state: "unknown", error: converted };
  }
}

/** "at position 2 in the merge queue `default`", with the ETA when `now` is given. */
export function queuePlace(f: TextFormat, details: PullRequestQueueDetails, now: Date | null): string {
  const at = `at position ${details.position + 1} in the merge queue ${f.code(clip(details.queue_rule_name, 100))}`;
  return now ? `${at}, ETA ${formatEta(details.estimated_time_of_merge, now)}` : at;
}
