import type { Clock } from "../commands/ports.js";
import type { MergeQueues } from "../core/merge-queue.js";
import type { QueuePauses } from "../core/pause.js";
import type { PauseAttribution, ScheduledUnpause } from "../core/records.js";
import type { Logger } from "../logger.js";
import type { Repo } from "../repo.js";
import { scheduledUnpauseOf, UNPAUSE_KIND } from "../store/index.js";
import { resumeQueue } from "../use-cases/pause.js";
import type { WorkContext, WorkRunner } from "../work/runner.js";

/**
 * Ends timed pauses (docs/commands.md, "Timed pauses"): durable work of kind `unpause` (src/work), one
 * item per repository due at its pause's end, run by one replica (the runner's claim, taken over when
 * its replica dies). It unpauses the repository, but only if the queue is still paused for the same
 * reason; otherwise it does nothing and says so in the log. The unpause is attributed to who paused,
 * marked scheduled, so that the notice says "resumed as scheduled"; then `afterUnpause` (the notifier's
 * doorbell) has the repository read promptly. An end that fails is retried with the runner's backoff.
 */
export interface ScheduledUnpauserDeps {
  /** The runner of durable work on this replica. */
  work: Pick<WorkRunner, "register" | "resume" | "pause" | "drain">;
  /** The repository's merge queue, whose pause (of the default branch's queue) is ended. */
  queues: Pick<MergeQueues, "for">;
  attributePause?: (attribution: PauseAttribution) => Promise<void>;
  afterUnpause?: (repository: Repo) => Promise<void>;
  logger: Logger;
  now?: Clock;
  /** How long a claim lasts before another replica may take it over; default 60 s. */
  leaseMs?: number;
  /** Counts each end by outcome (yardmaster_scheduled_unpauses_total). */
  counter?: { inc(labels: { outcome: UnpauseOutcome }): void };
}

/** What happened to one scheduled unpause. */
export type UnpauseOutcome = "unpaused" | "not-paused" | "paused-otherwise" | "replaced" | "failed";

/** Ends of timed pauses run at once on a replica. */
const CONCURRENCY = 4;

export class ScheduledUnpauser {
  /** What the ends run by hand (tick) came to. */
  private tally: { repository: Repo; outcome: UnpauseOutcome }[] | undefined;

  constructor(private readonly deps: ScheduledUnpauserDeps) {
    deps.work.register({
      kind: UNPAUSE_KIND,
      concurrency: CONCURRENCY,
      leaseMs: deps.leaseMs ?? 60_000,
      run: async (item, context) => {
        const unpause = scheduledUnpauseOf(item);
        const outcome = await this.end(unpause, context);
        this.tally?.push({ repository: unpause.repository, outcome });
        return null;
      },
    });
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  start(): void {
    this.deps.work.resume(UNPAUSE_KIND);
  }

  /** Claims no more, and waits for the ends under way. */
  async stop(): Promise<void> {
    await this.deps.work.pause(UNPAUSE_KIND);
  }

  /** Every scheduled unpause due now that this replica could claim, and what came of it. */
  async tick(): Promise<{ repository: Repo; outcome: UnpauseOutcome }[]> {
    const tally: { repository: Repo; outcome: UnpauseOutcome }[] = [];
    this.tally = tally;
    try {
      await this.deps.work.drain(UNPAUSE_KIND);
    } finally {
      this.tally = undefined;
    }
    return tally;
  }

  /** Ends one timed pause; throws (counted as failed) when the merge queue could not be asked or told. */
  private async end(unpause: ScheduledUnpause, context: WorkContext): Promise<UnpauseOutcome> {
    const { queues, logger, counter } = this.deps;
    const repository = unpause.repository;
    const log = {
      repository: repository.fullName,
      scheduledBy: unpause.scheduledBy,
      resumesAt: unpause.resumesAt,
    };
    try {
      // A queue without a pause has none to end.
      const pauses = (await queues.for(repository)).pauses;
      const pause = pauses ? await pauses.current({ repo: repository, branch: null }) : null;
      let outcome: UnpauseOutcome = "unpaused";
      if (!pauses || !pause) outcome = "not-paused";
      else if (pause.reason !== unpause.reason) outcome = "paused-otherwise";
      // Replaced or cancelled since the claim (a new pause, a manual unpause): not ours to end.
      else if (!(await context.renew())) {
        counter?.inc({ outcome: "replaced" });
        return "replaced";
      }
      if (outcome === "unpaused" && pauses) outcome = await this.unpause(unpause, pauses);
      counter?.inc({ outcome });
      if (outcome === "not-paused") {
        logger.info(
          log,
          `scheduled unpause of ${repository} does nothing: its merge queue is not paused any more`,
        );
      } else if (outcome === "paused-otherwise") {
        logger.info(
          log,
          `scheduled unpause of ${repository} does nothing: its merge queue was paused again for another reason`,
        );
      } else {
        logger.info(log, `merge queue of ${repository} resumed as scheduled`);
        await this.deps.afterUnpause?.(repository).catch(() => undefined);
      }
      return outcome;
    } catch (error) {
      // The runner retries it with backoff, on this or another replica.
      counter?.inc({ outcome: "failed" });
      this.tally?.push({ repository, outcome: "failed" });
      logger.warn({ ...log, err: error }, `scheduled unpause of ${repository} failed: tried again later`);
      throw error;
    }
  }

  private async unpause(unpause: ScheduledUnpause, pauses: QueuePauses): Promise<UnpauseOutcome> {
    const target = { repo: unpause.repository, branch: null };
    const who = { login: unpause.scheduledBy, surface: unpause.surface };
    const deps = { ...this.deps, now: () => this.now() };
    const resumed = await resumeQueue(deps, pauses, target, who, { scheduled: true });
    return resumed ? "unpaused" : "not-paused";
  }
}
