import { sql } from "kysely";
import { type StoreContext, time } from "./query-helpers.js";

// Slack's Events API deliveries handled once by their `event_id`, across replicas and across Slack's
// retries (docs/operations.md, "Slack requests"): a claim is a lease, so an event whose handling failed
// or whose replica died is taken by Slack's next retry of it, and one handled is never handled again.

/** An event's claim is remembered this long after it was first seen (Slack retries within minutes). */
export const SLACK_EVENT_RETENTION_MS = 24 * 60 * 60 * 1000;

/**
 * What a claim of an event found: `claimed` (now the caller's to handle), `done` (handled before: do
 * nothing), `held` (another delivery of it is being handled right now, its lease still running).
 */
export type SlackEventClaim = "claimed" | "done" | "held";

export interface SlackEventStore {
  /**
   * Claims an event for `owner` until `until`: when it was never seen, or is not done and its lease
   * lapsed at `now` (or was released). One statement: of two concurrent claims, one gets `claimed`.
   * Events first seen more than SLACK_EVENT_RETENTION_MS before are pruned now and then.
   */
  claimSlackEvent(
    eventId: string,
    claim: { owner: string; now: Date; until: Date },
  ): Promise<SlackEventClaim>;
  /** Extends `owner`'s lease of an event not done; false if it is not (or no longer) theirs. */
  renewSlackEvent(eventId: string, owner: string, until: Date): Promise<boolean>;
  /** Marks `owner`'s event handled at `now`; false if it was not theirs (taken over) or done already. */
  finishSlackEvent(eventId: string, owner: string, now: Date): Promise<boolean>;
  /** `owner`'s handling failed: the event is free for a retry at once. Does nothing if it is not theirs. */
  releaseSlackEvent(eventId: string, owner: string): Promise<void>;
}

export function kyselySlackEvents(ctx: StoreContext): SlackEventStore {
  const { db } = ctx;
  const mine = (eventId: string, owner: string) =>
    db
      .updateTable("slack_events")
      .where("event_id", "=", eventId)
      .where("claimed_by", "=", owner)
      .where("done_at", "is", null);
  return {
    async claimSlackEvent(eventId, { owner, now, until }) {
      await ctx.pruneIfDue("slack_events", now, async () => {
        const before = time(new Date(now.getTime() - SLACK_EVENT_RETENTION_MS));
        await db.deleteFrom("slack_events").where("received_at", "<", before).execute();
      });
      const claim = { claimed_by: owner, claimed_until: time(until) };
      const free = sql<boolean>`(slack_events.done_at IS NULL AND (slack_events.claimed_until IS NULL OR slack_events.claimed_until <= ${time(now)}))`;
      const claimed = await db
        .insertInto("slack_events")
        .values({ event_id: eventId, received_at: time(now), done_at: null, ...claim })
        .onConflict((oc) => oc.column("event_id").doUpdateSet(claim).where(free))
        .returning("event_id")
        .executeTakeFirst();
      if (claimed) return "claimed";
      const row = await db
        .selectFrom("slack_events")
        .select("done_at")
        .where("event_id", "=", eventId)
        .executeTakeFirst();
      return row?.done_at ? "done" : "held";
    },
    async renewSlackEvent(eventId, owner, until) {
      const row = await mine(eventId, owner)
        .set({ claimed_until: time(until) })
        .returning("event_id")
        .executeTakeFirst();
      return row !== undefined;
    },
    async finishSlackEvent(eventId, owner, now) {
      const row = await mine(eventId, owner)
        .set({ done_at: time(now), claimed_until: null })
        .returning("event_id")
        .executeTakeFirst();
      return row !== undefined;
    },
    async releaseSlackEvent(eventId, owner) {
      await mine(eventId, owner).set({ claimed_until: null }).execute();
    },
  };
}
