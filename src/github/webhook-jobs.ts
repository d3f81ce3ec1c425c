import type { Logger } from "../logger.js";
import {
  DELIVERY_RETENTION_MS,
  type OnceClaimStore,
  type WebhookJob,
  type WebhookJobStore,
  type WorkItem,
} from "../store/index.js";
import type { WorkContext, WorkRunner } from "../work/runner.js";
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

/** The durable work's kind of webhook jobs (src/work), keyed by delivery id. */
export const COMMAND_KIND = "command";
/** The once-claims' scope of GitHub's deliveries handled (keyed by X-GitHub-Delivery). */
export const DELIVERY_SCOPE = "github-delivery";
/** How long a replica's claim of a job holds without renewal: another replica takes it over after. */
export const JOB_LEASE_MS = 30_000;
/**
 * Jobs a replica runs at once, until their work ran (a command ran; its answer may wait for the write
 * queue after, still claimed): the kind's concurrency; the others wait their turn, still claimed.
 * Webhooks keep being answered meanwhile: 200 commands at once do not hold up the answers to the
 * webhooks that bring them.
 */
export const JOB_CONCURRENCY = 8;
/**
 * How long a job recorded during a burst of webhooks waits for them to be answered before it runs: the
 * jobs' work (reads, the store, the merge queue) would otherwise share the process with the webhooks
 * still being received and delay their answers past GitHub's patience. Bounded, so that a steady
 * stream of webhooks never starves the jobs.
 */
export const YIELD_TO_WEBHOOKS_MS = 2_000;

export interface WebhookJobsDeps {
  store: WebhookJobStore & Pick<OnceClaimStore, "claimOnce" | "finishOnce" | "releaseOnce">;
  /** This replica's runner of durable work: the jobs are its kind `command`. */
  work: Pick<WorkRunner, "register" | "resume" | "pause" | "scheduleClaimed">;
  /** This replica, as the holder of claims. */
  owner: string;
  run: JobRunner;
  /** Counts a job's run until it settles (the graceful stop waits for it). */
  track: (work: Promise<unknown>) => void;
  logger: Logger;
  /** Default JOB_LEASE_MS. */
  leaseMs?: number;
  /** Default JOB_CONCURRENCY. */
  concurrency?: number;
  /** The webhooks being received, which a job lets be answered before it starts; absent: it starts at once. */
  arrivals?: WebhookArrivals;
  /** The claims' clock: the real time (GitHub's deliveries follow it), unless a test gives its own. */
  now?: () => Date;
}

/**
 * The webhook jobs, run once across replicas on the durable-work engine: a job is recorded as a work
 * item claimed by the replica that received its webhook, which runs it next (a turn of the kind's
 * concurrency) and renews its claim while it runs, answer included; any replica's runner takes over a
 * job whose claim lapsed (its replica died or stopped before the run ended) and runs it again (a
 * comment command's steps done are not made again: src/commands/steps.ts). A delivery is recorded once
 * (a once-claim): a redelivery records nothing.
 */
export class WebhookJobs implements JobQueue {
  /** The deliveries this replica recorded, until their run here begins: any other run is a takeover. */
  private readonly accepted = new Set<string>();

  constructor(private readonly deps: WebhookJobsDeps) {
    deps.work.register({
      kind: COMMAND_KIND,
      concurrency: deps.concurrency ?? JOB_CONCURRENCY,
      leaseMs: this.leaseMs,
      now: () => this.now(),
      run: async (item, context) => {
        // A job recorded here is tracked from its record on (accept); one taken over, from now on.
        const takenOver = !this.accepted.delete(item.key);
        const run = this.runJob(item, context, takenOver);
        if (takenOver) deps.track(run);
        await run;
        // Done, whatever came of it (a command that failed said so, or could not): never run again.
        return null;
      },
    });
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  private get leaseMs(): number {
    return this.deps.leaseMs ?? JOB_LEASE_MS;
  }

  /** Records the job (claimed by this replica) and starts it; false for a delivery recorded before. */
  async accept(job: WebhookJob): Promise<boolean> {
    const { store, owner, work, logger } = this.deps;
    const at = this.now();
    const until = new Date(at.getTime() + this.leaseMs);
    const key = job.deliveryId;
    const claim = { owner, now: at, until, keepMs: DELIVERY_RETENTION_MS };
    if ((await store.claimOnce(DELIVERY_SCOPE, key, claim)) !== "claimed") return false;
    try {
      await store.recordWebhookJob(job);
      this.accepted.add(key);
      const made = await work.scheduleClaimed({ kind: COMMAND_KIND, key, dueAt: at });
      if (made) this.deps.track(made.run);
      else this.accepted.delete(key);
    } catch (error) {
      this.accepted.delete(key);
      await store.releaseOnce(DELIVERY_SCOPE, key, owner).catch(() => undefined);
      throw error;
    }
    await store
      .finishOnce(DELIVERY_SCOPE, key, owner, this.now())
      .catch((error: unknown) =>
        logger.warn({ err: error, delivery: key }, "could not mark a delivery recorded"),
      );
    return true;
  }

  /** This replica's runner takes over the jobs whose claim lapsed, from now until `stop`. */
  start(): void {
    this.deps.work.resume(COMMAND_KIND);
  }

  /** Takes over no more jobs; resolves once the jobs under way here ended. */
  async stop(): Promise<void> {
    await this.deps.work.pause(COMMAND_KIND);
  }

  /**
   * Runs a job this replica holds (its turn came), its claim renewed by the runner until it ends; a job
   * whose claim was lost while it waited (another replica runs it) is not run. Never throws.
   */
  private async runJob(item: WorkItem, context: WorkContext, takenOver: boolean): Promise<void> {
    const { store, logger } = this.deps;
    const log = logger.child({ delivery: item.key });
    if (takenOver)
      log.info("running a webhook's work that another replica did not finish (its claim lapsed)");
    const held = () =>
      context.renew().catch((error: unknown) => {
        log.warn({ err: error }, "could not renew the claim of a webhook's work");
        return false;
      });
    try {
      if (this.deps.arrivals) await this.deps.arrivals.quiet(YIELD_TO_WEBHOOKS_MS);
      if (!(await held())) {
        log.warn("another replica took over this webhook's work before it ran here");
        return;
      }
      const job = await store.readWebhookJob(item.key);
      if (!job) {
        log.warn("nothing recorded of this webhook's work: there is nothing to run");
        return;
      }
      // The turn is this job's until its work ran (`ran`), not while its answer waits to be written.
      await this.deps.run(job, {
        ran: () => {
          context.yieldTurn();
          return held();
        },
      });
    } catch (error) {
      log.error({ err: error }, "a webhook's work failed");
    }
    // Done: its body is forgotten, unless another replica runs it now (it may not have read it yet).
    if (await held())
      await store
        .forgetWebhookJob(item.key, this.now())
        .catch((error: unknown) => log.warn({ err: error }, "could not forget a webhook's work done"));
  }
}
