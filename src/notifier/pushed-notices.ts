import { type FailedCheck, GitHubQueueEvents, type QueueHappening } from "../backends/github/queue-events.js";
import type { QueueEvent } from "../core/queue.js";
import type { Subscription } from "../core/records.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics.js";
import type { Repo } from "../repo.js";
import type { GitHubQueueMemory } from "../store/index.js";
import { type DispatchDeps, dispatchEvent } from "./dispatch.js";

export interface PushedNoticesDeps extends DispatchDeps {
  memory: GitHubQueueMemory;
  subscriptions: (repository: Repo) => Promise<Subscription[]>;
  /** The check runs of a commit that did not succeed (GitHub's checks API, as the installation). */
  failedChecks: (repository: Repo, sha: string) => Promise<FailedCheck[]>;
  /** Posts what is pending in the outbox (the poller's delivery). */
  deliver: () => Promise<unknown>;
  /** Counts a delivery started in the background until it settles (the graceful stop waits for it). */
  track?: (work: Promise<unknown>) => void;
  /** The app's bot login (`<slug>[bot]`): a removal it made was asked for by someone, remembered. */
  appBot?: string;
  /** Who asked Yardmaster to queue a pull request, and when: an entry by the app's bot is theirs. */
  askedOf?: (repository: Repo, number: number) => Promise<{ login: string; at: Date } | null>;
  metrics?: Pick<Metrics, "githubQueueWebhooks">;
  /** Records the event in the queue's history (src/store/history.ts); none without it. */
  history?: { record(repository: Repo, events: readonly QueueEvent[]): Promise<void> };
  logger: Logger;
  now?: () => Date;
}

export type { FailedCheck, QueueHappening };

/**
 * Notices pushed by GitHub's own merge queue (docs/notifications.md, "GitHub's merge queue"): each
 * webhook becomes at most one queue event (src/backends/github/queue-events.ts), routed, threaded,
 * rendered and sent to authors like any other, recorded in the queue's history, and put into the
 * outbox: whichever replica gets a delivery, and however often, the outbox posts it once.
 */
export class PushedNotices {
  /** Webhooks received by this process: their order within one millisecond. */
  private received = 0;
  private readonly events: GitHubQueueEvents;

  constructor(private readonly deps: PushedNoticesDeps) {
    this.events = new GitHubQueueEvents(deps);
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /**
   * Turns what GitHub said into a notice (or none) and hands it to the outbox, in GitHub's order (when
   * its webhook was received, whenever its row is claimed: a pull request's thread starts with its
   * entry, not with the checks of its merge group claimed a moment before); then starts a delivery, not
   * awaited: the webhook is answered once the notice is in the outbox, which any replica's loop posts
   * if this delivery cannot.
   */
  /**
   * A queue event Yardmaster itself made of GitHub's queue (the gate's pause and resume,
   * src/backends/github/gate/): recorded, routed and delivered as a webhook's; its id makes it once.
   */
  async acceptEvent(repository: Repo, event: QueueEvent): Promise<void> {
    const order = { at: this.now(), seq: this.received++ };
    await this.deps.history?.record(repository, [event]);
    await dispatchEvent(this.deps, repository, event, await this.deps.subscriptions(repository), order);
    const delivering = this.deps
      .deliver()
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, "could not deliver the outbox"));
    this.deps.track?.(delivering);
  }

  async accept(happening: QueueHappening, deliveryId: string): Promise<QueueEvent | null> {
    const order = { at: this.now(), seq: this.received++ };
    const event = await this.events.toEvent(happening, deliveryId);
    this.deps.metrics?.githubQueueWebhooks.inc({ kind: happening.kind, outcome: event ? "notice" : "none" });
    if (!event) return null;
    const { repository } = happening;
    await this.deps.history?.record(repository, [event]);
    await dispatchEvent(this.deps, repository, event, await this.deps.subscriptions(repository), order);
    const delivering = this.deps
      .deliver()
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, "could not deliver the outbox"));
    this.deps.track?.(delivering);
    return event;
  }
}
