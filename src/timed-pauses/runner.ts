import type { Clock } from "../commands/ports.js";
import type { MergeQueues } from "../core/merge-queue.js";
import type { QueuePauses } from "../core/pause.js";
import type { ScheduledUnpauseClaims } from "../core/record-ports.js";
import type { PauseAttribution, ScheduledUnpause } from "../core/records.js";
import type { Logger } from "../logger.js";
import { Periodic } from "../periodic.js";
import type { Repo } from "../repo.js";
import { resumeQueue } from "../use-cases/pause.js";

/**
 * Ends timed pauses (docs/commands.md, "Timed pauses"): every `intervalMs`, claims the scheduled
 * unpauses whose time has come (each by one replica: a claim is a lease of `leaseMs`, taken over when
 * its replica dies) and unpauses their repositories, but only if the queue is still paused for the same
 * reason; otherwise it does nothing and says so in the log. The unpause is attributed to who paused,
 * marked scheduled, so that the notice says "resumed as scheduled"; then `afterUnpause` (the notifier's
 * doorbell) has the repository read promptly.
 */
export interface ScheduledUnpauserDeps {
  claims: ScheduledUnpauseClaims;
  /** The repository's merge queue, whose pause (of the default branch's queue) is ended. */
  queues: Pick<MergeQueues, "for">;
  attributePause?: (attribution: PauseAttribution) => Promise<void>;
  afterUnpause?: (repository: Repo) => Promise<void>;
  /** This replica's name in claims. */
  owner: string;
  logger: Logger;
  now?: Clock;
  /** How often it looks for due unpauses; default 5 s. */
  intervalMs?: number;
  /** How long a claim lasts before another replica may take it over; default 60 s. */
  leaseMs?: number;
  /** Counts each end by outcome (yardmaster_scheduled_unpauses_total). */
  counter?: { inc(labels: { outcome: UnpauseOutcome }): void };
}

/** What happened to one scheduled unpause. */
export type UnpauseOutcome = "unpaused" | "not-paused" | "paused-otherwise" | "replaced" | "failed";

const BATCH = 20;

export class ScheduledUnpauser {
  private readonly passes: Periodic;

  constructor(private readonly deps: ScheduledUnpauserDeps) {
    this.passes = new Periodic(
      () => this.tick(),
      deps.intervalMs ?? 5_000,
      (error) => deps.logger.warn({ err: error }, "scheduled unpauses: pass failed"),
    );
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  private get leaseMs(): number {
    return this.deps.leaseMs ?? 60_000;
  }

  start(): void {
    this.passes.start();
  }

  /** Stops the loop and waits for a pass under way. */
  async stop(): Promise<void> {
    await this.passes.stop();
  }

  /** One pass: every scheduled unpause due now that this replica could claim, and what came of it. */
  async tick(): Promise<{ repository: Repo; outcome: UnpauseOutcome }[]> {
    const now = this.now();
    const claimed = await this.deps.claims.claimScheduledUnpauses({
      owner: this.deps.owner,
      now,
      leaseMs: this.leaseMs,
      limit: BATCH,
    });
    const done: { repository: Repo; outcome: UnpauseOutcome }[] = [];
    for (const unpause of claimed) {
      const outcome = await this.end(unpause);
      this.deps.counter?.inc({ outcome });
      done.push({ repository: unpause.repository, outcome });
    }
    return done;
  }

  private async end(unpause: ScheduledUnpause): Promise<UnpauseOutcome> {
    const { claims, queues, logger, owner } = this.deps;
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
      else if (!(await claims.renewScheduledUnpauseClaim(repository, owner, this.leaseEnd())))
        return "replaced";
      if (outcome === "unpaused" && pauses) outcome = await this.unpause(unpause, pauses);
      await claims.finishScheduledUnpause(repository, owner);
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
      // The claim lapses after leaseMs, and this or another replica tries again then.
      logger.warn({ ...log, err: error }, `scheduled unpause of ${repository} failed: tried again later`);
      return "failed";
    }
  }

  private async unpause(unpause: ScheduledUnpause, pauses: QueuePauses): Promise<UnpauseOutcome> {
    const target = { repo: unpause.repository, branch: null };
    const who = { login: unpause.scheduledBy, surface: unpause.surface };
    const deps = { ...this.deps, now: () => this.now() };
    const resumed = await resumeQueue(deps, pauses, target, who, { scheduled: true });
    return resumed ? "unpaused" : "not-paused";
  }

  private leaseEnd(): Date {
    return new Date(this.now().getTime() + this.leaseMs);
  }
}
