import pLimit from "p-limit";
import type { QueueEvent } from "../core/queue.js";
import { Turns, yieldToEventLoop } from "../event-loop.js";
import type { Repo } from "../repo.js";
import type { NoticeOrder, PendingNotification } from "../store/index.js";
import { ChannelLease } from "./channel-lease.js";
import {
  type ChatHolds,
  type ChatPace,
  DeliveryError,
  DeliveryErrorCode,
  type PostedMessage,
} from "./chat.js";
import type { DelivererDeps } from "./deliverer-deps.js";
import { editDetails } from "./delivery-details.js";
import { editStaleParents, threadsOf } from "./delivery-parents.js";
import { RowPosting } from "./delivery-posting.js";

export { DELIVERY_LEASE_MS } from "./channel-lease.js";
export type { DelivererDeps };

/** What a delivery pass did, and when a channel it left with rows to post may go on (its pace, a 429). */
export interface DeliveryReport {
  sent: number;
  failedChannels: number;
  nextAt?: Date;
}

/** What one channel's pass did. */
interface ChannelReport {
  sent: number;
  failed: boolean;
  nextAt?: Date | undefined;
}

const channelKey = (channel: string) => `channel:${channel}`;
const rowKey = (channel: string, eventId: number) => `${channel}:${eventId}`;
/** How far before a claim to look for a message that may have been posted for it. */
const LOOKBACK_MS = 5 * 60_000;
const BATCH = 500;
/**
 * A pending row another replica claimed, which nobody began posting (`attemptedBy` null), is posted
 * straight away by the channel's lease holder: only a lease holder posts, and it marks the row first.
 * Claimed longer ago than this, it is looked up in the channel first all the same: a replica of an
 * earlier version (during a rolling upgrade) posts without marking.
 */
export const CLAIMED_ELSEWHERE_MS = 30_000;
const POST = "chat.postMessage";
const LOOKUPS = ["conversations.history", "conversations.replies"] as const;

/** What this process knows of a row it claimed: not posted (fresh), or perhaps posted (in doubt). */
interface OwnRow {
  posted: "no" | "perhaps";
  claimedAt: number;
}

/**
 * Exactly-once delivery through the store's outbox: a row is claimed (pending) before its message is
 * posted, and marked sent after, together with the thread the message started or changed (one store
 * call, one transaction). A channel's rows are posted in order by one replica at a time (the
 * `deliver:<channel>` lease), which marks each row just before posting it (`attemptedBy`): a row nobody
 * began is posted by whichever replica holds the lease, so a dead replica's rows are taken over with its
 * lease. A row whose post may have landed (begun by another replica, or its answer lost) is in doubt:
 * Slack's history is searched for the message's metadata before posting it, so nothing is sent twice or
 * dropped. Slack's 429s hold only what they name, for exactly their Retry-After
 * (ChatHolds); real failures back the channel off. A reply leaves its thread's parent stale; the
 * parent is edited once at the end of the pass with the latest state, or in a later pass.
 */
export class Deliverer {
  /** Rows claimed by this process and not yet recorded sent. */
  private readonly own = new Map<string, OwnRow>();
  private readonly holds: ChatHolds;
  private readonly pace: ChatPace | undefined;
  /** Rendering, posting and recording one row. */
  private readonly rows: RowPosting;

  constructor(private readonly deps: DelivererDeps) {
    this.holds = deps.holds;
    this.pace = deps.pace;
    this.rows = new RowPosting(deps, () => this.now());
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /**
   * Records that `event` is to be posted in `channel` (once, whatever happens next); in the channel's
   * order by `order` when given (GitHub's, for a pushed notice), else by when it was claimed.
   */
  async enqueue(channel: string, repository: Repo, event: QueueEvent, order?: NoticeOrder): Promise<void> {
    const claimedAt = this.now();
    const status = await this.deps.store.claimNotification({
      ...(order ? { order } : {}),
      channelId: channel,
      eventId: event.id,
      repository,
      pullRequest: event.pull ?? null,
      eventType: event.kind,
      payload: event,
      claimedAt,
    });
    if (status === "claimed")
      this.own.set(rowKey(channel, event.id), { posted: "no", claimedAt: claimedAt.getTime() });
  }

  /**
   * Posts every pending notification, channel by channel, oldest first; edits stale thread parents. The
   * event loop runs between two channels' reads once a turn has run its budget (event-loop.ts): on
   * SQLite, whose driver is synchronous, many channels' reads would otherwise be one long task.
   */
  async deliverPending(): Promise<DeliveryReport> {
    const { store, logger } = this.deps;
    let sent = 0;
    let failedChannels = 0;
    let nextAt: number = Number.POSITIVE_INFINITY;
    const listedAt = this.now();
    const cutoff = new Date(listedAt.getTime() + 1);
    const turns = new Turns();
    const rows = await store.listPendingNotifications(cutoff, BATCH);
    const byChannel = new Map<string, PendingNotification[]>();
    for (const row of rows) {
      const listed = byChannel.get(row.channelId);
      if (listed) listed.push(row);
      else byChannel.set(row.channelId, [row]);
    }
    await turns.next();
    if (rows.length >= BATCH) {
      // One channel's backlog (drained at Slack's pace) fills the list: the other channels' rows are
      // listed each on their own, so that they are not held up behind it.
      for (const { channelId } of await store.pendingNotificationStats()) {
        if (byChannel.has(channelId)) continue;
        await turns.next();
        byChannel.set(channelId, await store.listPendingNotifications(cutoff, BATCH, channelId));
      }
    }
    for (const thread of await store.listStaleThreads()) {
      if (!byChannel.has(thread.channelId)) byChannel.set(thread.channelId, []);
    }
    // Removals posted before why their checks failed was read: edited with it (delivery-details.ts).
    for (const edit of (await this.deps.details?.edits()) ?? []) {
      if (!byChannel.has(edit.channelId)) byChannel.set(edit.channelId, []);
    }
    if (rows.length < BATCH) this.forgetSettled(rows, listedAt);
    await pLimit(this.deps.concurrency ?? 8).map(byChannel, async ([channel, pending]) => {
      await turns.next();
      const result = await this.deliverChannel(channel, pending).catch((error: unknown): ChannelReport => {
        // Slack errors are handled inside; this is the store failing around them (backoff, lease).
        logger.warn({ channel, err: error }, "could not deliver a channel's notifications");
        return { sent: 0, failed: true };
      });
      sent += result.sent;
      if (result.failed) failedChannels += 1;
      if (result.nextAt) nextAt = Math.min(nextAt, result.nextAt.getTime());
    });
    await this.measureOutbox().catch((error: unknown) =>
      logger.warn({ err: error }, "could not measure the outbox"),
    );
    return { sent, failedChannels, ...(Number.isFinite(nextAt) ? { nextAt: new Date(nextAt) } : {}) };
  }

  /** Forgets own rows no longer pending (posted by another replica), of those claimed before the list. */
  private forgetSettled(pending: PendingNotification[], listedAt: Date): void {
    const listed = new Set(pending.map((row) => rowKey(row.channelId, row.eventId)));
    for (const [key, row] of this.own) {
      if (row.claimedAt < listedAt.getTime() && !listed.has(key)) this.own.delete(key);
    }
  }

  /** `listed`: the channel's pending rows before its lease was taken (read again under it). */
  private async deliverChannel(channel: string, listed: PendingNotification[]): Promise<ChannelReport> {
    const { store, backoffs } = this.deps;
    const now = this.now();
    if (await backoffs.active(channelKey(channel), now)) return { sent: 0, failed: true };
    const heldUntil = listed.length > 0 ? await this.holds.until({ channel }, now) : null;
    const postsHeld = heldUntil !== null;
    const held = { sent: 0, failed: false, nextAt: heldUntil ?? undefined };
    if (postsHeld && !(await this.hasEdits(channel))) return held;
    const lease = await ChannelLease.acquire(store, channel, this.deps.owner, () => this.now());
    // Another replica posts the channel: tried again when its lease lapses (it may have died holding it),
    // not a loop's pass later.
    if (!lease) return { sent: 0, failed: false, nextAt: (await this.lapseOf(channel, listed)) ?? undefined };
    /** False once the lease is lost (this pass stops: another replica has the channel now). */
    const renew = () => lease.held();
    const progress: Progress = { sent: 0, left: postsHeld ? listed : [] };
    try {
      let failed = false;
      if (!postsHeld && listed.length > 0) {
        try {
          // Read again under the lease: another replica may have posted some since the list.
          const rows = await store.listPendingNotifications(new Date(now.getTime() + 1), BATCH, channel);
          progress.left = rows;
          // A backlog's page of rows is read in one task; the posts begin in another (event-loop.ts).
          await yieldToEventLoop();
          await this.postRows(channel, rows, renew, progress);
          await backoffs.succeed(channelKey(channel));
        } catch (error) {
          failed = await this.failed(channel, error);
          if (!failed) progress.nextAt = (await this.holds.until({ channel }, this.now())) ?? undefined;
        }
      }
      if (!failed) {
        await editStaleParents(
          this.parentsPass(),
          channel,
          renew,
          threadsOf(progress.left, this.deps.storedEvents),
        );
        await editDetails({ ...this.parentsPass(), rows: this.rows }, channel, renew);
      }
      return { sent: progress.sent, failed, nextAt: postsHeld ? held.nextAt : progress.nextAt };
    } finally {
      await lease.release();
    }
  }

  /** When the channel's lease held elsewhere lapses, for a channel with rows to post; else null. */
  private async lapseOf(channel: string, listed: PendingNotification[]): Promise<Date | null> {
    if (listed.length === 0) return null;
    const at = await ChannelLease.lapsesAt(this.deps.store, channel);
    return at && at.getTime() > this.now().getTime() ? at : null;
  }

  /** Whether the channel has messages to edit: stale thread parents, or removals to show their details. */
  private async hasEdits(channel: string): Promise<boolean> {
    if ((await this.deps.store.listStaleThreads(channel)).length > 0) return true;
    return ((await this.deps.details?.edits(channel)) ?? []).length > 0;
  }

  /**
   * Posts a channel's pending rows in order, until done, held, paced (progress.nextAt: when it may go on),
   * or the lease lost. progress.left: the rows not posted (yet).
   */
  private async postRows(
    channel: string,
    rows: PendingNotification[],
    renew: () => Promise<boolean>,
    progress: Progress,
  ): Promise<void> {
    const { metrics } = this.deps;
    let topLevel: Map<number, PostedMessage> | undefined;
    let caughtUp = this.pace ? await this.pace.caughtUp(channel) : null;
    for (const [index, row] of rows.entries()) {
      progress.left = rows.slice(index);
      if (!(await renew())) return;
      const pacedUntil = this.pace?.nextPostAt(caughtUp, this.now());
      if (pacedUntil) {
        progress.nextAt = pacedUntil;
        return;
      }
      const key = rowKey(channel, row.eventId);
      if (this.inDoubt(row, this.own.get(key))) {
        // In doubt: was it posted before a crash? Look for its metadata in the channel.
        for (const method of LOOKUPS) if (await this.holds.until({ method }, this.now())) return;
        topLevel ??= await this.deps.poster.findPosted(channel, {
          oldest: new Date(Math.min(...rows.map((r) => r.claimedAt.getTime())) - LOOKBACK_MS),
        });
        if (await this.rows.recover(row, topLevel)) {
          this.own.delete(key);
          metrics?.notificationsSent.inc({ kind: "recovered" });
          continue;
        }
      }
      // A removal waits a while for why its checks failed (failure-details.ts), and the channel with it.
      const shown = await this.rows.details(row);
      if (shown && "waitMs" in shown) {
        progress.nextAt = new Date(this.now().getTime() + shown.waitMs);
        return;
      }
      // From here on the row may be in the channel: whoever takes the channel over looks it up first.
      if (!(await this.deps.store.markNotificationAttempt(channel, row.eventId, this.deps.owner))) {
        this.own.delete(key); // recorded sent meanwhile (by a replica whose lease lapsed): nothing to post
        continue;
      }
      try {
        await this.rows.post(row, shown);
      } catch (error) {
        // Slack refused it (not posted), or the answer or its record was lost (perhaps posted).
        const refused = error instanceof DeliveryError && error.code !== DeliveryErrorCode.Failed;
        const posted = refused ? "no" : "perhaps";
        this.own.set(key, { posted, claimedAt: row.claimedAt.getTime() });
        throw error;
      }
      this.own.delete(key);
      progress.sent += 1;
      if (this.pace) caughtUp = await this.pace.posted(channel, caughtUp, this.now());
    }
    progress.left = [];
  }

  /**
   * Whether the row may be in the channel already, to be looked up before it is posted: a post of it was
   * begun (`attemptedBy`) and its outcome is not known here (another replica's, perhaps dead, or this
   * process's lost answer), or it is an unmarked row another replica claimed long ago. A row nobody began
   * is posted straight away, whoever claimed it: a dead replica's rows are taken over with its lease.
   */
  private inDoubt(row: PendingNotification, own: OwnRow | undefined): boolean {
    if (own?.posted === "perhaps") return true;
    if (row.attemptedBy !== null) return row.attemptedBy !== this.deps.owner || own?.posted !== "no";
    return !own && row.claimedAt.getTime() <= this.now().getTime() - CLAIMED_ELSEWHERE_MS;
  }

  /**
   * A Slack call of the pass failed: a 429 holds what it names (true: the channel's pass is over, not
   * failed); anything else backs the channel off (false).
   */
  private async failed(channel: string, error: unknown): Promise<boolean> {
    const { backoffs, logger, metrics } = this.deps;
    const e =
      error instanceof DeliveryError
        ? error
        : new DeliveryError(DeliveryErrorCode.Failed, (error as Error).message);
    if (e.code === DeliveryErrorCode.RateLimited) {
      await this.rateLimited(channel, e);
      return false;
    }
    metrics?.notificationFailures.inc({ stage: "deliver", reason: e.code });
    const b = await backoffs.fail(channelKey(channel), e.message, this.now());
    logger.warn(
      { channel, error: e.message, retryAt: b.nextAttemptAt.toISOString() },
      e.code === DeliveryErrorCode.ChannelUnavailable
        ? "channel unavailable (invite the app back, or /mq unsubscribe): notifications retried later"
        : "could not post notifications: retried later",
    );
    return true;
  }

  /** A 429: `chat.postMessage` holds this channel's posts, another method holds that method. */
  private async rateLimited(channel: string, e: DeliveryError): Promise<void> {
    const method = e.method ?? POST;
    const until = await this.holds.hold(
      method === POST ? { channel } : { method },
      e.retryAfterSeconds ?? 1,
      this.now(),
    );
    this.deps.metrics?.slackRateLimited.inc({ channel, method });
    this.deps.logger.info(
      { channel, method, retryAfter: e.retryAfterSeconds, until: until.toISOString() },
      method === POST ? "Slack rate limit: this channel's posts wait" : `Slack rate limit: ${method} waits`,
    );
  }

  /** What editing thread parents uses of this pass: its holds, clock and 429 handling. */
  private parentsPass(): Parameters<typeof editStaleParents>[0] {
    return {
      deps: this.deps,
      holds: this.holds,
      now: () => this.now(),
      rateLimited: (channel, e) => this.rateLimited(channel, e),
    };
  }

  /** The outbox figures: pending rows per channel (recomputed: emptied channels drop out), oldest age. */
  private async measureOutbox(): Promise<void> {
    const { metrics, store } = this.deps;
    if (!metrics) return;
    const stats = await store.pendingNotificationStats();
    metrics.outboxPending.reset();
    for (const s of stats) metrics.outboxPending.set({ channel: s.channelId }, s.pending);
    const oldest = Math.min(...stats.map((s) => s.oldestClaimedAt.getTime()));
    metrics.outboxOldestAge.set(
      Number.isFinite(oldest) ? Math.max(0, (this.now().getTime() - oldest) / 1000) : 0,
    );
  }
}

/** What a channel's pass got through: posts sent, rows left to post, when it may go on. */
interface Progress {
  sent: number;
  left: readonly PendingNotification[];
  nextAt?: Date | undefined;
}
