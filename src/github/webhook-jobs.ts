import pLimit from "p-limit";
import type { Logger } from "../logger.js";
import { Periodic } from "../periodic.js";
import type { WebhookJob, WebhookJobStore } from "../store/index.js";
import type { WebhookArrivals } from "./webhook-arrivals.js";

export { WEBHOOK_LULL_MS, WebhookArrivals } from "./webhook-arrivals.js";

/**
 * A webhook is answered as soon as its work is recorded; the work runs after (docs/architecture.md, "A
 * command's path"). GitHub gives up on a webhook after 10 s and marks it failed, while a command's
 * answer may wait its turn in the app's write queue far longer than that under load.
 */

/** What a job's run is told about its claim. */
export interface JobClaim {
  /**
   * The job's work ran (a command ran; its answer is still to write): its turn is given to the next job,
   * and it stays claimed, renewed, until the run ends (then it is marked done, and no replica runs it
   * again): a replica that dies before then leaves it to another, which makes only the steps that were
   * not done (docs/architecture.md, "A command's path"). False when another replica holds it now (this
   * one's claim lapsed, or the store cannot be reached): then this one does nothing more for it.
   */
  ran(): Promise<boolean>;
}

/** Runs a recorded job: the webhook's work, as the installation it came for. */
export type JobRunner = (job: WebhookJob, claim: JobClaim) => Promise<void>;

/** Where the GitHub surface hands a webhook's work: false for a delivery handled before (a redelivery). */
export interface JobQueue {
  accept(job: WebhookJob): Promise<boolean>;
}

/** Given the runner of jobs, the queue that runs them (the GitHub surface makes the runner). */
export type JobQueueFactory = (run: JobRunner) => JobQueue;

/** How long a replica's claim of a job holds without renewal: another replica takes it over after. */
export const JOB_LEASE_MS = 30_000;
/** How often each replica looks for jobs whose claim lapsed: a dead replica's jobs run soon after the lapse. */
export const JOB_SWEEP_MS = 5_000;
/**
 * Jobs a replica runs at once, until their work ran (a command ran; its answer may wait for the write
 * queue after, still claimed); the others wait their turn, still claimed. Webhooks keep being answered
 * meanwhile: 200 commands at once do not hold up the answers to the webhooks that bring them.
 */
export const JOB_CONCURRENCY = 8;
const SWEEP_BATCH = 20;
/**
 * How long a job recorded during a burst of webhooks waits for them to be answered before it runs: the
 * jobs' work (reads, the store, the merge queue) would otherwise share the process with the webhooks
 * still being received and delay their answers past GitHub's patience. Bounded, so that a steady
 * stream of webhooks never starves the jobs.
 */
export const YIELD_TO_WEBHOOKS_MS = 2_000;

export interface WebhookJobsDeps {
  store: Omit<WebhookJobStore, "claimDelivery">;
  /** This replica, as the holder of claims. */
  owner: string;
  run: JobRunner;
  /** Counts a job's run until it settles (the graceful stop waits for it). */
  track: (work: Promise<unknown>) => void;
  logger: Logger;
  /** Default JOB_LEASE_MS. */
  leaseMs?: number;
  /** Default JOB_SWEEP_MS. */
  sweepMs?: number;
  /** Default JOB_CONCURRENCY. */
  concurrency?: number;
  /** The webhooks being received, which a job lets be answered before it starts; absent: it starts at once. */
  arrivals?: WebhookArrivals;
  now?: () => Date;
}

/**
 * The store's webhook jobs, run once across replicas: a job is recorded claimed by the replica that
 * received its webhook, which runs it at once and renews its claim while it runs, answer included; every
 * replica sweeps for jobs whose claim lapsed (their replica died or stopped before the run ended) and
 * runs them again (a comment command's steps done are not made again: src/commands/steps.ts).
 */
export class WebhookJobs implements JobQueue {
  private readonly slots: ReturnType<typeof pLimit>;
  private readonly sweeps: Periodic;

  constructor(private readonly deps: WebhookJobsDeps) {
    this.slots = pLimit(deps.concurrency ?? JOB_CONCURRENCY);
    this.sweeps = new Periodic(
      () => this.sweep(),
      deps.sweepMs ?? JOB_SWEEP_MS,
      (error) => deps.logger.warn({ err: error }, "could not look for webhook jobs"),
    );
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  private get leaseMs(): number {
    return this.deps.leaseMs ?? JOB_LEASE_MS;
  }

  private until(): Date {
    return new Date(this.now().getTime() + this.leaseMs);
  }

  /** Records the job (claimed by this replica) and starts it; false for a delivery recorded before. */
  async accept(job: WebhookJob): Promise<boolean> {
    if (!(await this.deps.store.recordWebhookJob(job, { owner: this.deps.owner, until: this.until() })))
      return false;
    this.deps.track(this.runClaimed(job));
    return true;
  }

  /** Sweeps every `sweepMs` until `stop`. */
  start(): void {
    this.sweeps.start();
  }

  /** Stops sweeping; resolves once a sweep under way has claimed what it claims (its jobs are tracked). */
  async stop(): Promise<void> {
    await this.sweeps.stop();
  }

  /** Claims the jobs whose claim lapsed and runs them; how many. */
  async sweep(): Promise<number> {
    const jobs = await this.deps.store.claimLapsedWebhookJobs({
      owner: this.deps.owner,
      now: this.now(),
      until: this.until(),
      limit: SWEEP_BATCH,
    });
    for (const job of jobs) {
      this.deps.logger.info(
        { delivery: job.deliveryId, receivedAt: job.receivedAt.toISOString() },
        "running a webhook's work that another replica did not finish (its claim lapsed)",
      );
      this.deps.track(this.runClaimed(job));
    }
    return jobs.length;
  }

  /**
   * Runs a job this replica holds when a slot is free, renewing its claim from now until it is done; a
   * job whose claim was lost while it waited (another replica runs it) is not run. Never throws.
   */
  private async runClaimed(job: WebhookJob): Promise<void> {
    const { store, owner, logger } = this.deps;
    const log = logger.child({ delivery: job.deliveryId });
    let finished: Promise<boolean> | undefined;
    const finish = () => {
      finished ??= store.finishWebhookJob(job.deliveryId, owner, this.now()).catch((error: unknown) => {
        log.warn({ err: error }, "could not record a webhook's work as done");
        return false;
      });
      return finished;
    };
    /** Whether the job is still this replica's (its claim renewed now). */
    const held = () =>
      store.renewWebhookJob(job.deliveryId, owner, this.until()).catch((error: unknown) => {
        log.warn({ err: error }, "could not renew the claim of a webhook's work");
        return false;
      });
    const renewal = setInterval(() => {
      if (finished) return;
      store.renewWebhookJob(job.deliveryId, owner, this.until()).then(
        (held) => {
          if (!held && !finished) log.warn("another replica took over this webhook's work");
        },
        (error: unknown) => log.warn({ err: error }, "could not renew the claim of a webhook's work"),
      );
    }, this.leaseMs / 3);
    renewal.unref();
    try {
      // The slot is this job's until its work ran (`ran`), not while its answer waits to be written.
      let running: Promise<void> | undefined;
      await this.slots(async () => {
        if (this.deps.arrivals) await this.deps.arrivals.quiet(YIELD_TO_WEBHOOKS_MS);
        if (!(await store.renewWebhookJob(job.deliveryId, owner, this.until()))) {
          log.warn("another replica took over this webhook's work before it ran here");
          finished = Promise.resolve(false);
          return;
        }
        let freeSlot: () => void = () => {};
        const workDone = new Promise<void>((resolve) => (freeSlot = resolve));
        running = this.deps.run(job, {
          ran: () => {
            freeSlot();
            return held();
          },
        });
        await Promise.race([workDone, running.catch(() => {})]);
      });
      await running;
    } catch (error) {
      log.error({ err: error }, "a webhook's work failed");
    } finally {
      clearInterval(renewal);
      await finish();
    }
  }
}
