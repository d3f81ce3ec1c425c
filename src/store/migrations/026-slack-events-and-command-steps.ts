import type { Migration } from "./migration.js";

/**
 * Slack events handled once by their `event_id`, with a lease (`slack_events`): the replica handling an
 * event holds it until `claimed_until`; done, it is never handled again; failed or abandoned (its
 * replica died), Slack's retry of it may take it (docs/operations.md, "Slack requests").
 *
 * And a command's steps (`command_steps`): each outside effect of a comment command (the relayed
 * comment, the summary, ...) recorded as done, with what it made, under its run's id (the webhook's
 * delivery id), so that a replica taking over a half-done command does not repeat it
 * (docs/architecture.md, "A command's path").
 */
export const slackEventsAndCommandSteps: Migration = {
  version: 26,
  name: "slack events and command steps",
  async up(db, t) {
    await db.schema
      .createTable("slack_events")
      .addColumn("event_id", "text", (c) => c.primaryKey())
      .addColumn("received_at", t.time, (c) => c.notNull())
      .addColumn("claimed_by", "text")
      .addColumn("claimed_until", t.time)
      .addColumn("done_at", t.time)
      .execute();
    await db.schema
      .createIndex("slack_events_received_at")
      .on("slack_events")
      .column("received_at")
      .execute();
    await db.schema
      .createTable("command_steps")
      .addColumn("run_id", "text", (c) => c.notNull())
      .addColumn("step", "text", (c) => c.notNull())
      .addColumn("result", t.json, (c) => c.notNull())
      .addColumn("done_at", t.time, (c) => c.notNull())
      .addPrimaryKeyConstraint("command_steps_pkey", ["run_id", "step"])
      .execute();
    await db.schema.createIndex("command_steps_done_at").on("command_steps").column("done_at").execute();
  },
};
