import type { LeaseStore } from "../store/index.js";

/**
 * The `deliver:<channel>` lease: one replica at a time posts a channel's rows. A replica that dies
 * holding it is taken over once it lapses, this long after its last renewal: a dead replica's burst is
 * posted again within this, plus Slack's pace (issue 32: 24 notices in one channel within 30 s of a
 * `kill -9`, at a post a second: 20 s of them are Slack's). A live replica keeps it while its event loop
 * and the store answer a renewal within it (a pass renews it every LEASE_RENEW_MS).
 */
export const DELIVERY_LEASE_MS = 4_000;
/** A pass renews its lease this often, while it waits on Slack too (a heartbeat) and before each row. */
export const LEASE_RENEW_MS = DELIVERY_LEASE_MS / 4;

/**
 * A channel's lease held for one delivery pass: renewed by a heartbeat while the pass runs (a Slack call
 * with its retries may outlast the lease), so that it lapses only when the replica stops, and a dead
 * replica's channel is taken over within DELIVERY_LEASE_MS. `held()` is checked before each row: false
 * once another replica has the channel (this pass stops there).
 */
export class ChannelLease {
  private renewedAt: number;
  private lost = false;
  private beat: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly store: LeaseStore,
    private readonly name: string,
    private readonly owner: string,
    private readonly now: () => Date,
  ) {
    this.renewedAt = now().getTime();
  }

  /** The channel's lease, or null when another replica holds it. */
  static async acquire(
    store: LeaseStore,
    channel: string,
    owner: string,
    now: () => Date,
  ): Promise<ChannelLease | null> {
    const name = `deliver:${channel}`;
    if (!(await store.tryAcquireLease(name, owner, now(), DELIVERY_LEASE_MS))) return null;
    const lease = new ChannelLease(store, name, owner, now);
    lease.timer = setInterval(() => {
      lease.beat = lease.renew(true).catch(() => {});
    }, LEASE_RENEW_MS);
    lease.timer.unref();
    return lease;
  }

  /** When the channel's lease another replica holds lapses unless renewed (null: none is held). */
  static lapsesAt(store: LeaseStore, channel: string): Promise<Date | null> {
    return store.leaseExpiresAt(`deliver:${channel}`);
  }

  /** Renews the lease if it is due (or `force`); false once it was lost. */
  private async renew(force = false): Promise<boolean> {
    if (this.lost) return false;
    const at = this.now();
    if (!force && at.getTime() - this.renewedAt < LEASE_RENEW_MS) return true;
    this.renewedAt = at.getTime();
    if (!(await this.store.tryAcquireLease(this.name, this.owner, at, DELIVERY_LEASE_MS))) this.lost = true;
    return !this.lost;
  }

  /** Whether the pass may go on: the lease is still this replica's (renewed if due). */
  held(): Promise<boolean> {
    return this.renew();
  }

  /** Stops the heartbeat and releases the lease (after a renewal in flight, which would take it again). */
  async release(): Promise<void> {
    clearInterval(this.timer);
    await this.beat;
    await this.store.releaseLease(this.name, this.owner);
  }
}
