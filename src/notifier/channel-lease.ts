import type { WorkContext } from "../work/runner.js";

/**
 * A channel's delivery is durable work (src/work, docs/architecture.md, "Durable work") of this kind,
 * keyed by the channel (a person's id for direct messages): one replica at a time posts a channel's rows,
 * the one whose runner claimed its item.
 */
export const DELIVER_KIND = "deliver";

/**
 * A `deliver` item's claim, unrenewed: a replica that dies holding it is taken over by any replica's
 * runner this long after its last renewal, with no new event to wake it: a dead replica's burst is
 * posted again within this, plus Slack's pace (issue 32: 24 notices in one channel within 30 s of a
 * `kill -9`, at a post a second: 20 s of them are Slack's). A live replica keeps it while its event loop
 * and the store answer a renewal within it (the runner renews it every third of it, and a run before a
 * row once CLAIM_RENEW_MS has passed).
 */
export const DELIVERY_LEASE_MS = 4_000;
/** A run renews its claim before a row (or an edit) once this long has passed since it last did. */
export const CLAIM_RENEW_MS = DELIVERY_LEASE_MS / 4;

/**
 * A channel's claim while one run posts its rows: `held()` is asked before each row and each edit, and
 * is false once the item is not this replica's any more (the run stops there: another replica has the
 * channel now). The runner renews the claim in the background (a Slack call with its retries may outlast
 * the lease); `held()` renews it too when CLAIM_RENEW_MS has passed, so that a row is never begun on a
 * claim about to lapse, without a write to the store before every row.
 */
export class ChannelClaim {
  private renewedAt: number;

  constructor(
    private readonly context: WorkContext,
    private readonly now: () => Date,
  ) {
    this.renewedAt = now().getTime();
  }

  /** Whether the run may go on: the channel's item is still this replica's (renewed if due). */
  async held(): Promise<boolean> {
    if (this.context.signal.aborted) return false;
    const at = this.now().getTime();
    if (at - this.renewedAt < CLAIM_RENEW_MS) return true;
    this.renewedAt = at;
    return this.context.renew();
  }
}
