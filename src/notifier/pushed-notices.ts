import type { QueueEvent } from "../core/queue.js";
import type { Subscription } from "../core/records.js";
import type { Logger } from "../logger.js";
import type { Repo } from "../repo.js";
import { type DispatchDeps, dispatchEvent } from "./dispatch.js";

export interface PushedNoticesDeps extends DispatchDeps {
  subscriptions: (repository: Repo) => Promise<Subscription[]>;
  /** Posts what is pending in the outbox (the poller's delivery). */
  deliver: () => Promise<unknown>;
  /** Counts a delivery started in the background until it settles (the graceful stop waits for it). */
  track?: (work: Promise<unknown>) => void;
  /** Records the event in the queue's history (src/store/history.ts); none without it. */
  history?: { record(repository: Repo, events: readonly QueueEvent[]): Promise<void> };
  logger: Logger;
}

/**
 * Notices of the events a merge queue pushes rather than logs (src/core/pushed-events.ts; GitHub's merge
 * queue: docs/notifications.md, "GitHub's merge queue"): each routed, threaded, rendered and sent to
 * authors like any other, recorded in the queue's history, and put into the outbox: whichever replica
 * gets a push, and however often, the outbox posts it once (the event's id makes it once).
 */
export class PushedNotices {
  /** Events pushed to this process: their order within one millisecond. */
  private received = 0;

  constructor(private readonly deps: PushedNoticesDeps) {}

  /**
   * Hands the event to the outbox in the order it happened (its `at`: when its webhook was received,
   * whenever its row is claimed: a pull request's thread starts with its entry, not with the checks of
   * its merge group claimed a moment before); then starts a delivery, not awaited: the push is answered
   * once the notice is in the outbox, which any replica's loop posts if this delivery cannot.
   */
  async accept(repository: Repo, event: QueueEvent): Promise<void> {
    const order = { at: new Date(event.at), seq: this.received++ };
    await this.deps.history?.record(repository, [event]);
    await dispatchEvent(this.deps, repository, event, await this.deps.subscriptions(repository), order);
    const delivering = this.deps
      .deliver()
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, "could not deliver the outbox"));
    this.deps.track?.(delivering);
  }
}
