import pLimit from "p-limit";
import type { MergeQueues, QueueEntry, QueuePull, QueueState } from "../core/merge-queue.js";
import type { Repo } from "../repo.js";

/**
 * A person's pull requests in the merge queues: the queues of the repositories they can read, and the
 * entries they wrote, in merge order. What the Home tab shows (and any surface listing "mine").
 */

/** Each repository's queue (its default branch's; Mergify's: every branch's); null where it could not be read. */
export async function queuesOf<Item extends { repo: Repo }>(
  queues: Pick<MergeQueues, "for">,
  items: readonly Item[],
  couldNot: (repo: Repo, error: unknown) => void,
): Promise<(Item & { state: QueueState | null })[]> {
  const failed = (repo: Repo) => (error: unknown) => {
    couldNot(repo, error);
    return null;
  };
  return pLimit(4).map([...items], async (item) => {
    const backend = await queues.for(item.repo).catch(failed(item.repo));
    const state = backend ? await backend.state(item.repo, null).catch(failed(item.repo)) : null;
    return { ...item, state };
  });
}

/** An entry of the person's, and its place in merge order. */
export interface PersonEntry {
  entry: QueueEntry;
  pull: QueuePull;
  position: number;
}

/** The entries of a queue whose pull request `login` wrote, with their place in merge order. */
export function pullsBy(state: QueueState, login: string): PersonEntry[] {
  const mine: PersonEntry[] = [];
  ordered(state).forEach((entry, i) => {
    const pull = entry.pull;
    if (!pull || pull.author?.toLowerCase() !== login.toLowerCase()) return;
    // In merge order across batches; a queue without batches numbers its entries itself.
    mine.push({ entry, pull, position: state.batches ? i + 1 : entry.position });
  });
  return mine;
}

/** The queue's entries in merge order: batches (with their parts), then those waiting. */
function ordered(state: QueueState): QueueEntry[] {
  const seen = new Set<number>();
  const out: QueueEntry[] = [];
  const add = (entries: readonly QueueEntry[]) => {
    for (const e of entries) {
      const number = e.pull?.number;
      if (number !== undefined && seen.has(number)) continue;
      if (number !== undefined) seen.add(number);
      out.push(e);
    }
  };
  for (const batch of state.batches ?? []) {
    add(batch.entries);
    for (const part of batch.parts) add(part.entries);
  }
  add(state.entries);
  return out;
}
