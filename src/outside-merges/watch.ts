import { type MergedPull, type MergeWitness, outsideMergeEvent } from "../core/merged-pulls.js";
import type { QueueEvent } from "../core/queue.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics.js";
import { Repo } from "../repo.js";
import {
  MERGED_PULL_KIND,
  type MergedPullStore,
  type SubscriptionStore,
  type WatchedMerge,
  type WorkItem,
} from "../store/index.js";
import type { WorkContext, WorkNext, WorkRunner } from "../work/runner.js";

/**
 * Pull requests merged without going through their branch's merge queue (docs/notifications.md, "Merged
 * outside the queue"). GitHub's `closed` webhook of a merged pull request, at any replica, records it in
 * the store (once: a redelivery finds it) where a channel follows its repository with `health`, its
 * judgement durable work (kind `merged-pull`, keyed by `<repository key>#<number>`, due when its time to
 * be judged has come: src/work). The runner of one replica claims it and asks the backend serving its
 * branch whether its queue merged it (MergeWitness): one not told yet is due again RETRY_MS later; one
 * merged outside becomes a `merged-outside-queue` queue event, handed to the notices (the history
 * records it once, the outbox posts it once per channel, by its id) before it is marked judged; a
 * replica that dies in between leaves the claim to lapse and another's runner to judge it again, which
 * posts nothing twice.
 */
export interface OutsideMergesDeps {
  store: Pick<MergedPullStore, "recordMergedPull" | "getWatchedMerge" | "judgeMergedPull"> &
    Pick<SubscriptionStore, "listSubscriptions">;
  /** This replica's runner of durable work: each judgement is its kind `merged-pull`. */
  work: Pick<WorkRunner, "register" | "resume" | "pause" | "drain">;
  witness: MergeWitness;
  /** Hands the event to the notices (the notifier's `tell`). */
  tell: (repository: Repo, event: QueueEvent) => Promise<unknown>;
  metrics?: Pick<Metrics, "mergesJudged">;
  logger: Logger;
  now: () => Date;
}

/**
 * The first judgement comes this long after the merge was heard of: GitHub sends its merge queue's word
 * (`dequeued` MERGE, the merge group destroyed) apart from `closed`, in no promised order.
 */
export const SETTLE_MS = 30_000;
/** A merge the backend cannot judge yet (its log not read since, its API failing) is judged again this much later. */
export const RETRY_MS = 15_000;
/** A merge still not told after this long is given up (judged `unknown`, logged): a notice an hour late would mislead. */
export const GIVE_UP_MS = 60 * 60_000;
/** How long a claim holds a merge unrenewed; a replica that died holding it is replaced after it. */
const LEASE_MS = 60_000;
/** Merges judged at once on a replica. */
const CONCURRENCY = 4;

export class OutsideMerges {
  /** What the judgements run by hand (runDue) said. */
  private tally: { said: number } | undefined;

  constructor(private readonly deps: OutsideMergesDeps) {
    deps.work.register({
      kind: MERGED_PULL_KIND,
      concurrency: CONCURRENCY,
      leaseMs: LEASE_MS,
      run: (item, context) => this.run(item, context),
    });
  }

  /** This replica's runner judges the merges due, from now until `stop`. */
  start(): void {
    this.deps.work.resume(MERGED_PULL_KIND);
  }

  async stop(): Promise<void> {
    await this.deps.work.pause(MERGED_PULL_KIND);
  }

  /** GitHub said a pull request was merged: kept to be judged SETTLE_MS later, where a channel hears `health`. */
  async heard(merge: MergedPull, deliveryId: string): Promise<void> {
    const subscriptions = await this.deps.store.listSubscriptions({ repository: merge.repository });
    if (!subscriptions.some((s) => s.groups.includes("health"))) return;
    const now = this.deps.now();
    await this.deps.store.recordMergedPull(merge, {
      deliveryId,
      receivedAt: now,
      decideAt: new Date(now.getTime() + SETTLE_MS),
      giveUpAt: new Date(now.getTime() + GIVE_UP_MS),
    });
  }

  /** Judges the merges due now by hand (tests); returns how many this replica said skipped the queue. */
  async runDue(): Promise<number> {
    const tally = { said: 0 };
    this.tally = tally;
    try {
      await this.deps.work.drain(MERGED_PULL_KIND);
    } finally {
      this.tally = undefined;
    }
    return tally.said;
  }

  /** One merge's judgement: done once judged; due again later while the backend cannot tell yet. */
  private async run(item: WorkItem, context: WorkContext): Promise<WorkNext> {
    const { repository, number } = item.payload as { repository: string; number: number };
    const watched = await this.deps.store.getWatchedMerge(Repo.from(repository), number);
    if (!watched) return null;
    try {
      const judged = await this.judge(watched, context);
      if (judged === "said" && this.tally) this.tally.said += 1;
      return judged === "wait" ? { dueAt: new Date(this.deps.now().getTime() + RETRY_MS) } : null;
    } catch (error) {
      // Judged again after the runner's backoff.
      this.deps.logger.error(
        { err: error, repository, pull: number },
        "could not judge whether a merged pull request went through its merge queue",
      );
      throw error;
    }
  }

  private async judge(
    { merge, receivedAt, giveUpAt }: WatchedMerge,
    context: WorkContext,
  ): Promise<"wait" | "said" | "judged"> {
    const { store, logger } = this.deps;
    const { repository, number } = merge;
    const found = await this.deps.witness.judge(merge, receivedAt);
    const now = this.deps.now();
    if (found.verdict === "wait") {
      if (now < giveUpAt) return "wait";
      logger.warn(
        { repository: repository.fullName, pull: number, why: found.why },
        "gave up telling whether a merged pull request went through its merge queue: nothing said",
      );
      if (await store.judgeMergedPull(repository, number, "unknown", now))
        this.deps.metrics?.mergesJudged.inc({ verdict: "unknown" });
      return "judged";
    }
    // Not this replica's any more (its claim lapsed and was taken over): the other one judges it.
    if (!(await context.renew())) return "judged";
    if (found.verdict === "outside") await this.deps.tell(repository, outsideMergeEvent(merge));
    if (!(await store.judgeMergedPull(repository, number, found.verdict, now))) return "judged";
    this.deps.metrics?.mergesJudged.inc({ verdict: found.verdict });
    if (found.verdict === "outside")
      logger.info(
        { repository: repository.fullName, pull: number, by: merge.by },
        "a pull request was merged without going through its merge queue: said in the health channels",
      );
    return found.verdict === "outside" ? "said" : "judged";
  }
}
