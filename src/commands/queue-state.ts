import { fromMergeQueueError } from "../core/from-merge-queue-error.js";
import { estimatedAt, type MergeQueueBackend, type QueueEntry } from "../core/merge-queue.js";
import type { Repo } from "../repo.js";
import type { TextFormat } from "../wording/description.js";
import { clip, formatEta } from "../wording/words.js";
import type { CommandError } from "./errors.js";

/** What the merge queue says of one pull request (after a relayed command, or asked with `pr`). */
export type QueueState =
  | { state: "queued"; entry: QueueEntry }
  | { state: "not_queued" }
  | { state: "unknown"; error: CommandError };

/**
 * Reads one pull request's place in the queue. `strict`: a failed read fails the command; otherwise
 * (after a relay, which did happen) it is reported as an unknown state.
 */
export async function readQueueState(
  queue: Pick<MergeQueueBackend, "entry">,
  repo: Repo,
  number: number,
  command: string,
  strict: boolean,
): Promise<QueueState> {
  try {
    const entry = await queue.entry(repo, number);
    return entry ? { state: "queued", entry } : { state: "not_queued" };
  } catch (error) {
    const converted = fromMergeQueueError(error, { command, repository: repo.fullName, pull: number });
    if (strict) throw converted;
    return { state: "unknown", error: converted };
  }
}

/** "at position 2 in the merge queue `default`", with the ETA when `now` is given. */
export function queuePlace(f: TextFormat, entry: QueueEntry, now: Date | null): string {
  const at = `at position ${entry.position} in the merge queue ${f.code(clip(entry.queue ?? "", 100))}`;
  return now ? `${at}, ETA ${formatEta(estimatedAt(entry.estimate, now), now)}` : at;
}
