import type { QueueEvent } from "../core/queue.js";
import { yieldToEventLoop } from "../event-loop.js";
import type { Repo } from "../repo.js";
import type { Backoff, NoticeOrder, PendingNotification, WorkItem } from "../store/index.js";
import { type WorkContext, type WorkNext, WorkRunner } from "../work/runner.js";
import { ChannelClaim, DELIVER_KIND, DELIVERY_LEASE_MS } from "./channel-lease.js";
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

export { DELIVER_KIND, DELIVERY_LEASE_MS } from "./channel-lease.js";
export type { DelivererDeps };

/** What a delivery pass by hand did, and when a channel it left with rows to post may go on (its pace, a 429). */
export interface DeliveryReport {
  sent: number;
  failedChannels: number;
  nextAt?: Date;
}

/** What one channel's run did, and when the channel's item is due again (`dueAt`; none: done). */
interface ChannelReport {
  sent: number;
  failed: boolean;
  /** When its rows left may go on, for the report of a pass by hand (a pace, a 429). */
  nextAt?: Date | undefined;
  dueAt?: Date | undefined;
}

const channelKey = (channel: string) => `channel:${channel}`;
const rowKey = (channel: string, eventId: number) => `${channel}:${eventId}`;
/** How far before a claim to look for a message that may have been posted for it. */
const LOOKBACK_MS = 5 * 60_000;
const BATCH = 500;
/** Channels delivered at once on a replica, by default. */
const CONCURRENCY = 8;
/** An edit left to do (failed, not held): tried again this soon, as a pass a second did before. */
const EDIT_RETRY_MS = 1_000;
/**
 * How often one replica looks for channels with rows nobody asked for (kind `deliver-sweep`): rows an
 * older version added during a rolling upgrade, or whose ask was lost with its replica between the row
 * and the ask.
 */
export const SWEEP_MS = 60_000;
const SWEEP_KIND = "deliver-sweep";
/** The outbox's figures are measured at most this often, and after a channel's last row. */
const MEASURE_MS = 1_000;
/**
 * A pending row another replica added, which nobody began posting (`begunBy` null), is posted straight
 * away by the channel's claimant: only a claimant posts, and it marks the row begun first. Added longer
 * ago than this, it is looked up in the channel first all the same: a replica of an earlier version
 * (during a rolling upgrade) posts without marking.
 */
export const CLAIMED_ELSEWHERE_MS = 30_000;
/** The calls that look a row up in the channel (its top level, a thread). */
const LOOKUPS = ["read-channel", "read-thread"] as const;

/** What this process knows of a row it added: not posted (fresh), or perhaps posted (in doubt). */
interface OwnRow {
  posted: "no" | "perhaps";
  claimedAt: number;
}

/**
 * Exactly-once delivery through the store's outbox: a row is added (pending) before its message is
 * posted, and marked sent after, together with the thread the message started or changed (one store
 * call, one transaction). A channel's delivery is durable work (kind `deliver`, keyed by the channel,
 * channel-lease.ts): asked for when rows are added for it (and at start for every channel with
 * something to do), claimed by one replica's runner at a time, renewed while it posts, and taken over
 * by any replica's runner once its claim lapses (its replica died), with no new event to wake it. A
 * channel's rows are posted in order; each is marked begun just before its post (`begunBy`): a row
 * nobody began is posted by whoever holds the channel. A row whose post may have landed (begun by
 * another replica, or its answer lost) is in doubt: Slack's history is searched for the message's
 * metadata before posting it, so nothing is sent twice or dropped. Slack's 429s hold only what they
 * name, for exactly their Retry-After (ChatHolds); a channel's item is due again when its pace or
 * hold lets it go on; real failures back the channel off. A reply leaves its thread's parent stale; the
 * parent is edited once at the end of the run with the latest state, or in a later run.
 */
export class Deliverer {
  /** Rows added by this process and not yet recorded sent. */
  private readonly own = new Map<string, OwnRow>();
  private readonly holds: ChatHolds;
  private readonly pace: ChatPace | undefined;
  /** Rendering, posting and recording one row. */
  private readonly rows: RowPosting;
  private readonly work: NonNullable<DelivererDeps["work"]>;
  /** Whether the runner claims channels by itself (start); otherwise they are delivered by hand. */
  private started = false;
  /** What the runs of a pass by hand (deliverPending) came to. */
  private tally: DeliveryReport | undefined;
  private measuredAt = Number.NEGATIVE_INFINITY;
  /** The channels asked for on this replica since their last run began: a run asked for again goes on at once. */
  private readonly asks = new Set<string>();

  constructor(private readonly deps: DelivererDeps) {
    this.holds = deps.holds;
    this.pace = deps.pace;
    this.rows = new RowPosting(deps, () => this.now());
    this.work =
      deps.work ??
      new WorkRunner({ store: deps.store, owner: deps.owner, now: () => this.now(), logger: deps.logger });
    this.work.register({
      kind: DELIVER_KIND,
      concurrency: deps.concurrency ?? CONCURRENCY,
      leaseMs: DELIVERY_LEASE_MS,
      run: (item, context) => this.run(item, context),
    });
    const nextSweep = () => new Date(this.now().getTime() + SWEEP_MS);
    this.work.register({
      kind: SWEEP_KIND,
      standing: { key: "outbox", dueAt: nextSweep },
      run: async () => {
        await this.askAll();
        return { dueAt: nextSweep() };
      },
    });
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /** The runner claims channels from now on; every channel with something to do is asked for first. */
  async start(): Promise<void> {
    this.started = true;
    await this.askAll().catch((error: unknown) =>
      this.deps.logger.warn({ err: error }, "could not ask for the outbox's deliveries"),
    );
    if (!this.started) return;
    this.work.resume(DELIVER_KIND);
    this.work.resume(SWEEP_KIND);
  }

  /** Claims no more channels, and waits for the runs under way. */
  async stop(): Promise<void> {
    this.started = false;
    await Promise.all([this.work.pause(DELIVER_KIND), this.work.pause(SWEEP_KIND)]);
  }

  /**
   * Records that `event` is to be posted in `channel` (once, whatever happens next), and asks for the
   * channel's delivery; in the channel's order by `order` when given (GitHub's, for a pushed notice), else
   * by when it was added.
   */
  async enqueue(channel: string, repository: Repo, event: QueueEvent, order?: NoticeOrder): Promise<void> {
    const claimedAt = this.now();
    const status = await this.deps.store.addNotification({
      ...(order ? { order } : {}),
      channelId: channel,
      eventId: event.id,
      repository,
      pullRequest: event.pull ?? null,
      eventType: event.kind,
      payload: event,
      claimedAt,
    });
    if (status === "added")
      this.own.set(rowKey(channel, event.id), { posted: "no", claimedAt: claimedAt.getTime() });
    if (status !== "sent") await this.ask(channel);
  }

  /** Asks for the channel's delivery now (or sooner, if it is asked for already); a run under way runs again. */
  private async ask(channel: string): Promise<void> {
    this.asks.add(channel);
    await this.work.schedule({ kind: DELIVER_KIND, key: channel, dueAt: this.now(), when: "earlier" });
  }

  /**
   * Asks for the delivery of every channel with something to do: rows to post, stale thread parents,
   * removals to edit with why their checks failed (read since: failure-details.ts).
   */
  async askAll(): Promise<void> {
    const channels = new Set((await this.deps.store.pendingNotificationStats()).map((s) => s.channelId));
    for (const thread of await this.deps.store.listStaleThreads()) channels.add(thread.channelId);
    for (const edit of (await this.deps.details?.edits()) ?? []) channels.add(edit.channelId);
    for (const channel of channels) await this.ask(channel);
  }

  /**
   * A delivery pass by hand (tests, the benchmark, a server whose loops are off): asks for every channel
   * with something to do, then runs the channels due now until none is (the runner's drain). Started, the
   * runner delivers by itself and this does nothing.
   */
  async deliverPending(): Promise<DeliveryReport> {
    if (this.started) return { sent: 0, failedChannels: 0 };
    const tally: DeliveryReport = { sent: 0, failedChannels: 0 };
    this.tally = tally;
    try {
      await this.askAll();
      await this.work.drain(DELIVER_KIND);
    } finally {
      this.tally = undefined;
    }
    await this.measureOutbox(true).catch((error: unknown) =>
      this.deps.logger.warn({ err: error }, "could not measure the outbox"),
    );
    return tally;
  }

  /** One run of a channel's item: its rows posted and its edits made, as far as it may; when it is due again. */
  private async run(item: WorkItem, context: WorkContext): Promise<WorkNext> {
    const channel = item.key;
    this.asks.delete(channel);
    const report = await this.deliverChannel(channel, context).catch((error: unknown) => {
      // Slack errors are handled inside; this is the store failing around them (retried with backoff).
      if (this.tally) this.tally.failedChannels += 1;
      throw error;
    });
    // Rows added here while it ran: the channel goes on now, not at the runner's next look.
    if (this.asks.has(channel) && report.dueAt === undefined) report.dueAt = this.now();
    const { tally } = this;
    if (tally) {
      tally.sent += report.sent;
      if (report.failed) tally.failedChannels += 1;
      if (report.nextAt && !(tally.nextAt && tally.nextAt <= report.nextAt)) tally.nextAt = report.nextAt;
    }
    await this.measureOutbox(!report.dueAt).catch((error: unknown) =>
      this.deps.logger.warn({ err: error }, "could not measure the outbox"),
    );
    return report.dueAt ? { dueAt: report.dueAt } : null;
  }

  /** Forgets own rows of the channel no longer pending (posted by another replica), added before the list. */
  private forgetSettled(channel: string, pending: PendingNotification[], listedAt: Date): void {
    const listed = new Set(pending.map((row) => rowKey(row.channelId, row.eventId)));
    for (const [key, row] of this.own) {
      if (!key.startsWith(`${channel}:`)) continue;
      if (row.claimedAt < listedAt.getTime() && !listed.has(key)) this.own.delete(key);
    }
  }

  /** Posts the channel's pending rows and makes its edits, under its claim; what it did, and when it is due. */
  private async deliverChannel(channel: string, context: WorkContext): Promise<ChannelReport> {
    const { store, backoffs } = this.deps;
    const now = this.now();
    const backoff = await backoffs.active(channelKey(channel), now);
    if (backoff) return { sent: 0, failed: true, dueAt: backoff.nextAttemptAt };
    const rows = await store.listPendingNotifications(new Date(now.getTime() + 1), BATCH, channel);
    if (rows.length < BATCH) this.forgetSettled(channel, rows, now);
    const heldUntil = rows.length > 0 ? await this.holds.until({ channel }, now) : null;
    if (heldUntil && !(await this.hasEdits(channel)))
      return { sent: 0, failed: false, nextAt: heldUntil, dueAt: heldUntil };
    const claim = new ChannelClaim(context, () => this.now());
    const renew = () => claim.held();
    const progress: Progress = { sent: 0, left: rows };
    let failure: Backoff | null = null;
    if (!heldUntil && rows.length > 0) {
      try {
        // A backlog's page of rows is read in one task; the posts begin in another (event-loop.ts).
        await yieldToEventLoop();
        await this.postRows(channel, rows, renew, progress);
        await backoffs.succeed(channelKey(channel));
      } catch (error) {
        failure = await this.failed(channel, error);
        if (!failure) progress.nextAt = (await this.holds.until({ channel }, this.now())) ?? undefined;
      }
    }
    if (failure) return { sent: progress.sent, failed: true, dueAt: failure.nextAttemptAt };
    await editStaleParents(
      this.parentsPass(),
      channel,
      renew,
      threadsOf(progress.left, this.deps.storedEvents),
    );
    await editDetails({ ...this.parentsPass(), rows: this.rows }, channel, renew);
    const nextAt = heldUntil ?? progress.nextAt;
    if (!(await claim.held())) return { sent: progress.sent, failed: false, nextAt };
    const more = progress.left.length === 0 && rows.length >= BATCH ? this.now() : undefined;
    const dueAt = earliest(nextAt, more, await this.editsDue(channel));
    return { sent: progress.sent, failed: false, nextAt, dueAt };
  }

  /** When the channel's edits left to do (held by a 429, or failed) are tried again; none left: undefined. */
  private async editsDue(channel: string): Promise<Date | undefined> {
    if (!(await this.hasEdits(channel))) return undefined;
    const held = await this.holds.until({ call: "edit" }, this.now());
    return held ?? new Date(this.now().getTime() + EDIT_RETRY_MS);
  }

  /** Whether the channel has messages to edit: stale thread parents, or removals to show their details. */
  private async hasEdits(channel: string): Promise<boolean> {
    if ((await this.deps.store.listStaleThreads(channel)).length > 0) return true;
    return ((await this.deps.details?.edits(channel)) ?? []).length > 0;
  }

  /**
   * Posts a channel's pending rows in order, until done, held, paced (progress.nextAt: when it may go on),
   * or the claim lost. progress.left: the rows not posted (yet).
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
        for (const call of LOOKUPS) {
          const held = await this.holds.until({ call }, this.now());
          if (held) {
            progress.nextAt = held;
            return;
          }
        }
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
      if (!(await this.deps.store.markNotificationBegun(channel, row.eventId, this.deps.owner))) {
        this.own.delete(key); // recorded sent meanwhile (by a replica whose claim lapsed): nothing to post
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
   * begun (`begunBy`) and its outcome is not known here (another replica's, perhaps dead, or this
   * process's lost answer), or it is an unmarked row another replica added long ago. A row nobody began
   * is posted straight away, whoever added it: a dead replica's rows are taken over with its channels' claims.
   */
  private inDoubt(row: PendingNotification, own: OwnRow | undefined): boolean {
    if (own?.posted === "perhaps") return true;
    if (row.begunBy !== null) return row.begunBy !== this.deps.owner || own?.posted !== "no";
    return !own && row.claimedAt.getTime() <= this.now().getTime() - CLAIMED_ELSEWHERE_MS;
  }

  /**
   * A chat call of the run failed: a 429 holds what it names (null: the run is over, not failed);
   * anything else backs the channel off (its backoff: the channel's item is due again at its end).
   */
  private async failed(channel: string, error: unknown): Promise<Backoff | null> {
    const { backoffs, logger, metrics } = this.deps;
    const e =
      error instanceof DeliveryError
        ? error
        : new DeliveryError(DeliveryErrorCode.Failed, (error as Error).message);
    if (e.code === DeliveryErrorCode.RateLimited) {
      await this.rateLimited(channel, e);
      return null;
    }
    metrics?.notificationFailures.inc({ stage: "deliver", reason: e.code });
    const b = await backoffs.fail(channelKey(channel), e.message, this.now());
    logger.warn(
      { channel, error: e.message, retryAt: b.nextAttemptAt.toISOString() },
      e.code === DeliveryErrorCode.ChannelUnavailable
        ? "channel unavailable (invite the app back, or /mq unsubscribe): notifications retried later"
        : "could not post notifications: retried later",
    );
    return b;
  }

  /** A 429: on a post it holds this channel's posts; on another call, that call everywhere. */
  private async rateLimited(channel: string, e: DeliveryError): Promise<void> {
    const call = e.call ?? "post";
    const method = e.callName ?? call;
    const until = await this.holds.hold(
      call === "post" ? { channel } : { call },
      e.retryAfterSeconds ?? 1,
      this.now(),
    );
    this.deps.metrics?.slackRateLimited.inc({ channel, method });
    this.deps.logger.info(
      { channel, method, retryAfter: e.retryAfterSeconds, until: until.toISOString() },
      call === "post" ? "chat rate limit: this channel's posts wait" : `chat rate limit: ${method} waits`,
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

  /**
   * The outbox figures: pending rows per channel (recomputed: emptied channels drop out), oldest age; at
   * most every MEASURE_MS unless `now` (a channel's last row posted, a pass by hand).
   */
  private async measureOutbox(now: boolean): Promise<void> {
    const { metrics, store } = this.deps;
    const at = this.now().getTime();
    if (!metrics || (!now && at - this.measuredAt < MEASURE_MS)) return;
    this.measuredAt = at;
    const stats = await store.pendingNotificationStats();
    metrics.outboxPending.reset();
    for (const s of stats) metrics.outboxPending.set({ channel: s.channelId }, s.pending);
    const oldest = Math.min(...stats.map((s) => s.oldestClaimedAt.getTime()));
    metrics.outboxOldestAge.set(
      Number.isFinite(oldest) ? Math.max(0, (this.now().getTime() - oldest) / 1000) : 0,
    );
  }
}

/** The earliest of some times, or undefined when none is given. */
function earliest(...times: (Date | undefined)[]): Date | undefined {
  const given = times.filter((t): t is Date => t !== undefined);
  return given.length > 0 ? new Date(Math.min(...given.map((t) => t.getTime()))) : undefined;
}

/** What a channel's run got through: posts sent, rows left to post, when it may go on. */
interface Progress {
  sent: number;
  left: readonly PendingNotification[];
  nextAt?: Date | undefined;
}
