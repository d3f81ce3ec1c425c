import type { FailureDetails } from "../core/check-failures.js";
import { CURRENT_STORED_EVENTS, type StoredEvents } from "../core/pushed-events.js";
import type { QueueEvent } from "../core/queue.js";
import type { Repo } from "../repo.js";
import type { DetailsEdit, PendingNotification, ThreadRecord } from "../store/index.js";
import type { ChatMessage } from "../wording/message.js";
import type { PostedMessage } from "./chat.js";
import type { DelivererDeps } from "./deliverer-deps.js";
import type { RowDetails } from "./failure-details.js";
import { isPauseEvent, isTopLevelEvent } from "./routing.js";
import type { NotificationContext, PullInfo, ThreadState } from "./types.js";

/** How far apart a pause through Yardmaster and the merge queue's pause event may be. */
const ATTRIBUTION_WINDOW_MS = 15 * 60_000;

type PostingDeps = Pick<
  DelivererDeps,
  "store" | "poster" | "render" | "pullInfo" | "githubWebUrl" | "metrics" | "storedEvents" | "details"
>;

/**
 * One row of the outbox, posted or found posted (the deliverer's posting): its message rendered (a
 * thread parent, a reply, or a top-level message) and recorded sent with its thread, in one store call.
 */
export class RowPosting {
  constructor(
    private readonly deps: PostingDeps,
    private readonly now: () => Date,
  ) {}

  /** The row's event, as this version or an earlier one stored it. */
  private event(row: PendingNotification): QueueEvent {
    return (this.deps.storedEvents ?? CURRENT_STORED_EVENTS).event(row.payload);
  }

  private threaded(row: PendingNotification): row is PendingNotification & { pullRequest: number } {
    return threaded(row, this.deps.storedEvents);
  }

  /**
   * Records a row in doubt as sent if its message is in the channel: top level (a pause, or a pull
   * request's thread parent) or a reply in its pull request's thread. Recording it records the thread
   * too, as posting would have: the thread a parent started, or the state a reply changed.
   */
  async recover(row: PendingNotification, topLevel: Map<number, PostedMessage>): Promise<boolean> {
    const { store, poster } = this.deps;
    const found = topLevel.get(row.eventId);
    if (!this.threaded(row)) {
      if (found) await this.record(row, found);
      return found !== undefined;
    }
    if (found) {
      const { state } = await this.stateAfter(null, row);
      await this.record(row, found, { parentTs: found.ts, state });
      return true;
    }
    const thread = await store.getThread(row.channelId, row.repository, row.pullRequest);
    if (!thread) return false;
    const replies = await poster.findPosted(row.channelId, {
      oldest: new Date(0),
      threadTs: thread.parentTs,
    });
    const reply = replies.get(row.eventId);
    if (!reply) return false;
    const { state } = await this.stateAfter(thread, row);
    await this.record(row, reply, { parentTs: thread.parentTs, state, parentStale: true });
    return true;
  }

  /**
   * What a removal's notice shows of why its checks failed (failure-details.ts): undefined for any other
   * row (or without details), else the details (null: none) or how long it waits for them.
   */
  async details(row: PendingNotification): Promise<RowDetails | undefined> {
    return this.deps.details?.forRow(this.event(row));
  }

  /**
   * Posts one notification: a thread parent, a reply (and the parent edited), or a top-level message.
   * `shown`: a removal's details (details()), which its message shows and records it showed.
   */
  async post(row: PendingNotification, shown?: { details: FailureDetails | null }): Promise<void> {
    const { store, poster, render, metrics } = this.deps;
    const event = this.event(row);
    const ctx = { ...this.context(row), ...(shown ? { failures: shown.details } : {}) };
    const showsDetails = shown ? { showsDetails: shown.details !== null } : {};
    let posted: PostedMessage;
    if (!this.threaded(row)) {
      // Who paused or resumed through Yardmaster: read only for those (a drained queue or a pull request
      // let through says who itself).
      const attributed = event.kind === "paused" || event.kind === "resumed";
      const pausedBy = attributed ? await this.pausedBy(row.repository, event) : undefined;
      const message = render.event(event, null, pausedBy ? { ...ctx, ...pausedBy } : ctx);
      posted = await poster.post({ channel: row.channelId, message, eventId: row.eventId });
      await this.record(row, posted, undefined, showsDetails);
    } else {
      const thread = await store.getThread(row.channelId, row.repository, row.pullRequest);
      const { pull, state } = await this.stateAfter(thread, row);
      if (!thread) {
        const parent = render.parent(state, ctx);
        posted = await poster.post({ channel: row.channelId, message: parent, eventId: row.eventId });
        await this.record(row, posted, { parentTs: posted.ts, state });
      } else {
        const message = render.event(event, pull, ctx);
        posted = await poster.post({
          channel: row.channelId,
          message,
          threadTs: thread.parentTs,
          eventId: row.eventId,
        });
        // The parent is edited at the end of the pass: once for all of the thread's replies.
        await this.record(row, posted, { parentTs: thread.parentTs, state, parentStale: true }, showsDetails);
      }
    }
    metrics?.notificationsSent.inc({ kind: posted.threadTs ? "reply" : "message" });
    const lag = (this.now().getTime() - Date.parse(event.at)) / 1000;
    if (Number.isFinite(lag)) metrics?.pollerLag.observe(Math.max(0, lag));
  }

  /** The row sent, with its thread when it has one: one store call, so never one without the other. */
  private async record(
    row: PendingNotification,
    message: PostedMessage,
    thread?: { parentTs: string; state: ThreadState; parentStale?: boolean },
    shows: { showsDetails?: boolean } = {},
  ): Promise<void> {
    await this.deps.store.markNotificationSent({
      channelId: row.channelId,
      eventId: row.eventId,
      message,
      ...(thread ? { thread } : {}),
      at: this.now(),
      ...shows,
    });
  }

  /**
   * The pull request (as its thread knows it, else from GitHub) and what its thread's parent shows
   * after the row's event.
   */
  private async stateAfter(
    thread: ThreadRecord | null,
    row: PendingNotification & { pullRequest: number },
  ): Promise<{ pull: PullInfo; state: ThreadState }> {
    const previous = (thread?.state as ThreadState | undefined) ?? null;
    const pull = previous?.pull ?? (await this.pull(row.repository, row.pullRequest));
    const state = this.deps.render.stateAfter(previous, this.event(row), pull, row.repository);
    return { pull, state };
  }

  /** A sent removal's message rendered again with its details: what its edit shows (delivery-details.ts). */
  async renderedWith(edit: DetailsEdit, details: FailureDetails): Promise<ChatMessage> {
    const event = (this.deps.storedEvents ?? CURRENT_STORED_EVENTS).event(edit.payload);
    const ctx = { ...this.context(edit), failures: details };
    if (edit.pullRequest === null || isPauseEvent(event)) return this.deps.render.event(event, null, ctx);
    const thread = await this.deps.store.getThread(edit.channelId, edit.repository, edit.pullRequest);
    const pull =
      (thread?.state as ThreadState | undefined)?.pull ??
      (await this.pull(edit.repository, edit.pullRequest));
    return this.deps.render.event(event, pull, ctx);
  }

  private context(row: { repository: Repo }): NotificationContext {
    return { repo: row.repository, githubWebUrl: this.deps.githubWebUrl, now: this.now() };
  }

  private async pull(repository: Repo, number: number): Promise<PullInfo> {
    const info = await this.deps.pullInfo(repository, number).catch(() => null);
    return info ?? { number, title: null, url: `${this.deps.githubWebUrl}/${repository}/pull/${number}` };
  }

  /**
   * Who paused or unpaused through Yardmaster, if this pause event is theirs: same action, same
   * reason, close in time. The merge queue itself records only the app's account.
   */
  private async pausedBy(
    repository: Repo,
    event: QueueEvent,
  ): Promise<Pick<NotificationContext, "pausedBy" | "resumesAt" | "scheduled"> | undefined> {
    const attribution = await this.deps.store.getPauseAttribution(repository);
    if (!attribution) return undefined;
    const action = event.kind === "resumed" ? "unpause" : "pause";
    const reason = event.kind === "paused" ? event.reason : undefined;
    const close = Math.abs(attribution.at.getTime() - Date.parse(event.at)) <= ATTRIBUTION_WINDOW_MS;
    const same = attribution.action === action && (action === "unpause" || attribution.reason === reason);
    if (!close || !same) return undefined;
    return {
      pausedBy: attribution.actor,
      ...(attribution.resumesAt ? { resumesAt: attribution.resumesAt } : {}),
      ...(attribution.scheduled ? { scheduled: true } : {}),
    };
  }
}

/**
 * A pull request's event other than a top-level one (a pause, a health finding): it goes in the pull
 * request's thread (`stored` reads the row's event back; default: as this version stores it).
 */
export function threaded(
  row: PendingNotification,
  stored: StoredEvents = CURRENT_STORED_EVENTS,
): row is PendingNotification & { pullRequest: number } {
  return row.pullRequest !== null && !isTopLevelEvent(stored.event(row.payload));
}
