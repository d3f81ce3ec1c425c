import pLimit from "p-limit";
import type { Logger } from "../logger.js";
import type { LogEvent } from "../merge-queue/index.js";
import type { Metrics } from "../metrics.js";
import type { Repo } from "../repo.js";
import type { PendingNotification, Store, ThreadRecord } from "../store/index.js";
import type { Backoffs } from "./backoff.js";
import { isPauseEvent } from "./routing.js";
import {
  type NotificationPoster,
  type PostedMessage,
  SlackDeliveryError,
  SlackDeliveryErrorCode,
} from "./slack-poster.js";
import type { NotificationContext, NotificationRenderer, PullInfo, ThreadState } from "./types.js";

export interface DelivererDeps {
  store: Store;
  poster: NotificationPoster;
  render: NotificationRenderer;
  /** Title and link of a pull request (GitHub through the app), or null when unknown. */
  pullInfo: (repository: Repo, number: number) => Promise<PullInfo | null>;
  backoffs: Backoffs;
  githubWebUrl: string;
  /** Which replica this is, for leases. */
  owner: string;
  metrics?: Metrics;
  logger: Logger;
  now?: () => Date;
  /** Channels delivered at once. */
  concurrency?: number;
}

const SLACK_KEY = "slack";
const channelKey = (channel: string) => `channel:${channel}`;
const rowKey = (channel: string, eventId: number) => `${channel}:${eventId}`;
/** How far before a claim to look for a message that may have been posted for it. */
const LOOKBACK_MS = 5 * 60_000;
const BATCH = 500;
/** How far apart a pause through Yardmaster and the merge queue's pause event may be. */
const ATTRIBUTION_WINDOW_MS = 15 * 60_000;

/**
 * Exactly-once delivery through the store's outbox: a row is claimed (pending) before its message is
 * posted, and marked sent after, together with the thread the message started or changed (one store
 * call, one transaction). A pending row this process did not just claim is in doubt (a crash between
 * posting and recording, or a failed post): Slack's history is searched for the message's metadata
 * before posting it, so nothing is sent twice or dropped.
 */
export class Deliverer {
  /** Rows claimed by this process and not yet posted: no need to look for them in Slack. */
  private readonly fresh = new Set<string>();

  constructor(private readonly deps: DelivererDeps) {}

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /** Records that `event` is to be posted in `channel` (once, whatever happens next). */
  async enqueue(channel: string, repository: Repo, event: LogEvent): Promise<void> {
    const status = await this.deps.store.claimNotification({
      channelId: channel,
      eventId: event.id,
      repository,
      pullRequest: event.pull_request ?? null,
      eventType: event.type,
      payload: event,
      claimedAt: this.now(),
    });
    if (status === "claimed") this.fresh.add(rowKey(channel, event.id));
  }

  /** Posts every pending notification, channel by channel, oldest first. */
  async deliverPending(): Promise<{ sent: number; failedChannels: number }> {
    let sent = 0;
    let failedChannels = 0;
    if (await this.deps.backoffs.active(SLACK_KEY, this.now())) return { sent, failedChannels };
    const rows = await this.deps.store.listPendingNotifications(new Date(this.now().getTime() + 1), BATCH);
    const byChannel = new Map<string, PendingNotification[]>();
    for (const row of rows) byChannel.set(row.channelId, [...(byChannel.get(row.channelId) ?? []), row]);
    await pLimit(this.deps.concurrency ?? 8).map(byChannel, async ([channel, pending]) => {
      const result = await this.deliverChannel(channel, pending).catch((error: unknown) => {
        // Slack errors are handled inside; this is the store failing around them (backoff, lease).
        this.deps.logger.warn({ channel, err: error }, "could not deliver a channel's notifications");
        return { sent: 0, failed: true };
      });
      sent += result.sent;
      if (result.failed) failedChannels += 1;
    });
    return { sent, failedChannels };
  }

  private async deliverChannel(
    channel: string,
    rows: PendingNotification[],
  ): Promise<{ sent: number; failed: boolean }> {
    const { store, backoffs, logger } = this.deps;
    const now = this.now();
    if (await backoffs.active(channelKey(channel), now)) return { sent: 0, failed: true };
    const lease = `deliver:${channel}`;
    if (!(await store.tryAcquireLease(lease, this.deps.owner, now, 60_000)))
      return { sent: 0, failed: false };
    let sent = 0;
    try {
      let topLevel: Map<number, PostedMessage> | undefined;
      for (const row of rows) {
        const key = rowKey(channel, row.eventId);
        if (!this.fresh.has(key)) {
          // In doubt: was it posted before a crash? Look for its metadata in the channel.
          topLevel ??= await this.deps.poster.findPosted(channel, {
            oldest: new Date(Math.min(...rows.map((r) => r.claimedAt.getTime())) - LOOKBACK_MS),
          });
          if (await this.recover(row, topLevel)) {
            this.deps.metrics?.notificationsSent.inc({ kind: "recovered" });
            continue;
          }
        }
        await this.post(row);
        this.fresh.delete(key);
        sent += 1;
      }
      await backoffs.succeed(channelKey(channel));
      return { sent, failed: false };
    } catch (error) {
      const e =
        error instanceof SlackDeliveryError
          ? error
          : new SlackDeliveryError(SlackDeliveryErrorCode.Failed, (error as Error).message);
      this.deps.metrics?.notificationFailures.inc({ stage: "deliver", reason: e.code });
      if (e.code === SlackDeliveryErrorCode.RateLimited) {
        await backoffs.fail(SLACK_KEY, e.message, this.now(), (e.retryAfterSeconds ?? 1) * 1000);
        logger.warn({ channel, retryAfter: e.retryAfterSeconds }, "Slack rate limit: notifications wait");
      } else {
        const b = await backoffs.fail(channelKey(channel), e.message, this.now());
        logger.warn(
          { channel, error: e.message, retryAt: b.nextAttemptAt.toISOString() },
          e.code === SlackDeliveryErrorCode.ChannelUnavailable
            ? "channel unavailable (invite the app back, or /mq unsubscribe): notifications retried later"
            : "could not post notifications: retried later",
        );
      }
      return { sent, failed: true };
    } finally {
      await store.releaseLease(lease, this.deps.owner);
    }
  }

  /**
   * Records a row in doubt as sent if its message is in the channel: top level (a pause, or a pull
   * request's thread parent) or a reply in its pull request's thread. Recording it records the thread
   * too, as posting would have: the thread a parent started, or the state a reply changed.
   */
  private async recover(row: PendingNotification, topLevel: Map<number, PostedMessage>): Promise<boolean> {
    const { store, poster } = this.deps;
    const found = topLevel.get(row.eventId);
    if (!threaded(row)) {
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
    await this.record(row, reply, { parentTs: thread.parentTs, state });
    await this.editParent(row, thread.parentTs, state, this.context(row));
    return true;
  }

  /** Posts one notification: a thread parent, a reply (and the parent edited), or a top-level message. */
  private async post(row: PendingNotification): Promise<void> {
    const { store, poster, render, metrics } = this.deps;
    const event = row.payload as LogEvent;
    const ctx = this.context(row);
    let posted: PostedMessage;
    if (!threaded(row)) {
      const pausedBy = isPauseEvent(row.eventType) ? await this.pausedBy(row.repository, event) : undefined;
      const message = render.event(event, null, pausedBy ? { ...ctx, pausedBy } : ctx);
      posted = await poster.post({ channel: row.channelId, ...message, eventId: row.eventId });
      await this.record(row, posted);
    } else {
      const thread = await store.getThread(row.channelId, row.repository, row.pullRequest);
      const { pull, state } = await this.stateAfter(thread, row);
      if (!thread) {
        const parent = render.parent(state, ctx);
        posted = await poster.post({ channel: row.channelId, ...parent, eventId: row.eventId });
        await this.record(row, posted, { parentTs: posted.ts, state });
      } else {
        const message = render.event(event, pull, ctx);
        posted = await poster.post({
          channel: row.channelId,
          ...message,
          threadTs: thread.parentTs,
          eventId: row.eventId,
        });
        await this.record(row, posted, { parentTs: thread.parentTs, state });
        await this.editParent(row, thread.parentTs, state, ctx);
      }
    }
    metrics?.notificationsSent.inc({ kind: posted.threadTs ? "reply" : "message" });
    const lag = (this.now().getTime() - Date.parse(event.received_at)) / 1000;
    if (Number.isFinite(lag)) metrics?.pollerLag.observe(Math.max(0, lag));
  }

  /** The row sent, with its thread when it has one: one store call, so never one without the other. */
  private async record(
    row: PendingNotification,
    message: PostedMessage,
    thread?: { parentTs: string; state: ThreadState },
  ): Promise<void> {
    await this.deps.store.markNotificationSent({
      channelId: row.channelId,
      eventId: row.eventId,
      message,
      ...(thread ? { thread } : {}),
      at: this.now(),
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
    const state = this.deps.render.stateAfter(previous, row.payload as LogEvent, pull, row.repository);
    return { pull, state };
  }

  /** Best effort: the reply is posted and recorded whether or not its parent shows the latest. */
  private async editParent(
    row: PendingNotification,
    parentTs: string,
    state: ThreadState,
    ctx: NotificationContext,
  ): Promise<void> {
    const { poster, render, logger } = this.deps;
    await poster
      .update({ channel: row.channelId, ts: parentTs, ...render.parent(state, ctx) })
      .catch((error: unknown) =>
        logger.warn({ err: error, channel: row.channelId }, "could not edit a thread parent"),
      );
  }

  private context(row: PendingNotification): NotificationContext {
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
  private async pausedBy(repository: Repo, event: LogEvent): Promise<string | undefined> {
    const attribution = await this.deps.store.getPauseAttribution(repository);
    if (!attribution) return undefined;
    const action = event.type === "queue.pause.delete" ? "unpause" : "pause";
    const reason = (event.metadata as { reason?: unknown } | null)?.reason;
    const close = Math.abs(attribution.at.getTime() - Date.parse(event.received_at)) <= ATTRIBUTION_WINDOW_MS;
    const same = attribution.action === action && (action === "unpause" || attribution.reason === reason);
    return close && same ? attribution.actor : undefined;
  }
}

/** A pull request's event other than a pause: it goes in the pull request's thread. */
function threaded(row: PendingNotification): row is PendingNotification & { pullRequest: number } {
  return row.pullRequest !== null && !isPauseEvent(row.eventType);
}
