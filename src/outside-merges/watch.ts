import { type MergedPull, type MergeWitness, outsideMergeEvent } from "../core/merged-pulls.js";
import type { QueueEvent } from "../core/queue.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics.js";
import type { Repo } from "../repo.js";
import type { MergedPullStore, SubscriptionStore, WatchedMerge } from "../store/index.js";

/**
 * Pull requests merged without going through their branch's merge queue (docs/notifications.md, "Merged
 * outside the queue"). GitHub's `closed` webhook of a merged pull request, at any replica, records it in
 * the store (once: a redelivery finds it) where a channel follows its repository with `health`. Every
 * replica looks every PASS_MS for merges whose time to be judged has come, claims each for one replica,
 * and asks the backend serving its branch whether its queue merged it (MergeWitness): one merged outside
 * becomes a `merged-outside-queue` queue event, handed to the notices (the history records it once, the
 * outbox posts it once per channel, by its id) before it is marked judged; a replica that dies in between
 * leaves the claim to lapse and another to judge it again, which posts nothing twice.
 */
export interface OutsideMergesDeps {
  store: Pick<
    MergedPullStore,
    "recordMergedPull" | "claimMergedPulls" | "deferMergedPull" | "judgeMergedPull"
  > &
    Pick<SubscriptionStore, "listSubscriptions">;
  witness: MergeWitness;
  /** Hands the event to the notices (the notifier's `tell`). */
  tell: (repository: Repo, event: QueueEvent) => Promise<unknown>;
  /** This replica, for claims. */
  owner: string;
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
/** How long a claim holds a merge; a replica that died holding it is replaced after it. */
const LEASE_MS = 60_000;
/** How often every replica looks for merges due to be judged. */
export const PASS_MS = 5_000;
/** Merges judged at most per pass. */
const PER_PASS = 20;

export class OutsideMerges {
  constructor(private readonly deps: OutsideMergesDeps) {}

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

  /** One pass: judges the merges due; returns how many were said to have skipped the queue. */
  async runDue(): Promise<number> {
    const { store, owner } = this.deps;
    const due = await store.claimMergedPulls({
      owner,
      now: this.deps.now(),
      leaseMs: LEASE_MS,
      limit: PER_PASS,
    });
    let said = 0;
    for (const watched of due) {
      try {
        if (await this.judge(watched)) said += 1;
      } catch (error) {
        // Left claimed: judged again once the claim lapses.
        this.deps.logger.error(
          { err: error, repository: watched.merge.repository.fullName, pull: watched.merge.number },
          "could not judge whether a merged pull request went through its merge queue",
        );
      }
    }
    return said;
  }

  private async judge({ merge, receivedAt, giveUpAt }: WatchedMerge): Promise<boolean> {
    const { store, owner, logger } = this.deps;
    const { repository, number } = merge;
    const found = await this.deps.witness.judge(merge, receivedAt);
    const now = this.deps.now();
    if (found.verdict === "wait") {
      if (now < giveUpAt) {
        await store.deferMergedPull(repository, number, owner, new Date(now.getTime() + RETRY_MS));
        return false;
      }
      logger.warn(
        { repository: repository.fullName, pull: number, why: found.why },
        "gave up telling whether a merged pull request went through its merge queue: nothing said",
      );
      if (await store.judgeMergedPull(repository, number, owner, "unknown", now))
        this.deps.metrics?.mergesJudged.inc({ verdict: "unknown" });
      return false;
    }
    if (found.verdict === "outside") await this.deps.tell(repository, outsideMergeEvent(merge));
    if (!(await store.judgeMergedPull(repository, number, owner, found.verdict, now))) return false;
    this.deps.metrics?.mergesJudged.inc({ verdict: found.verdict });
    if (found.verdict === "outside")
      logger.info(
        { repository: repository.fullName, pull: number, by: merge.by },
        "a pull request was merged without going through its merge queue: said in the health channels",
      );
    return found.verdict === "outside";
  }
}
