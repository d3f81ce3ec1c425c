import { LRUCache } from "lru-cache";
import type { MergeQueues } from "../core/merge-queue.js";
import type { HeldPause } from "../core/pause.js";
import type { QueueEvent } from "../core/queue.js";
import type { Logger } from "../logger.js";
import type { Repo } from "../repo.js";
import type { Pause } from "./assess.js";

/**
 * The pauses in force as the queue itself tells them (docs/notifications.md, "The queue's health"): a
 * long pause counts from the queue's own start (Mergify's `paused_at`, the gate's record), however long
 * before Yardmaster's history it began. The queue is asked once per PAUSES_TTL_MS per repository and
 * replica, and again as soon as the history records a new pause or resume.
 */

/** How long what the queue said of its pauses is reused while the history shows no pause or resume. */
export const PAUSES_TTL_MS = 5 * 60_000;
/** Repositories whose pauses a replica keeps. */
const MAX_REPOSITORIES = 2_000;

interface Look {
  at: number;
  /** The newest pause or resume in the history when the queue was asked. */
  mark: string;
  listed: readonly HeldPause[];
}

export interface QueuePausesDeps {
  queues: Pick<MergeQueues, "for">;
  logger: Logger;
  now: () => Date;
}

/** The history's newest pause or resume: when it changes, the queue is asked again. */
function pauseMark(events: readonly QueueEvent[]): string {
  const last = events.findLast((e) => e.kind === "paused" || e.kind === "resumed");
  return last ? `${last.id}@${last.at}` : "";
}

export class QueuePauseLook {
  private readonly kept = new LRUCache<string, Look>({ max: MAX_REPOSITORIES });

  constructor(private readonly deps: QueuePausesDeps) {}

  /**
   * Every pause in force, keyed as the history keys them ("" for the repository's, else the branch's):
   * its start, reason and branch as the queue says, who paused as the queue says else as the history
   * does. The history's own pauses where the queue cannot list them; null when it did not answer.
   */
  async held(repository: Repo, events: readonly QueueEvent[], recorded: ReadonlyMap<string, Pause>) {
    const listed = await this.listed(repository, events);
    if (listed === "unlisted") return recorded;
    if (listed === null) return null;
    const held = new Map<string, Pause>();
    for (const pause of listed) {
      const key = pause.branch ?? "";
      const history = recorded.get(key);
      // A queue that does not say when its pause began: the history's start, else it cannot be judged yet.
      const since = pause.pausedAt ? Date.parse(pause.pausedAt) : history?.since;
      if (since === undefined || Number.isNaN(since)) continue;
      held.set(key, {
        since,
        reason: pause.reason,
        by: pause.by ?? history?.by ?? null,
        branch: pause.branch,
      });
    }
    return held;
  }

  private async listed(
    repository: Repo,
    events: readonly QueueEvent[],
  ): Promise<readonly HeldPause[] | "unlisted" | null> {
    const now = this.deps.now().getTime();
    const mark = pauseMark(events);
    const kept = this.kept.get(repository.key);
    if (kept && kept.mark === mark && now - kept.at < PAUSES_TTL_MS && now >= kept.at) return kept.listed;
    try {
      const pauses = (await this.deps.queues.for(repository)).pauses;
      if (!pauses?.held) return "unlisted";
      const listed = await pauses.held(repository);
      this.kept.set(repository.key, { at: now, mark, listed });
      return listed;
    } catch (error) {
      this.deps.logger.warn(
        { err: error, repository: repository.fullName },
        "health: could not read the queue's pauses; its long pauses are judged at the next pass",
      );
      return null;
    }
  }
}
