import { type Kysely, sql } from "kysely";
import type { ColumnTypes, Migration } from "./migration.js";

// Primary keys over several columns are named as PostgreSQL names an unnamed one (`<table>_pkey`), so
// that this schema is the one the earlier hand-written SQL made (test/store/migrations.test.ts).
export const initial: Migration = {
  version: 1,
  name: "initial",
  async up(db, t) {
    await createIdentityTables(db, t);
    await createDeliveryLeaseAndCursorTables(db, t);
    await createOutboxTables(db, t);
  },
};

async function createIdentityTables(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable("identity_links")
    .addColumn("team_id", "text", (c) => c.notNull())
    .addColumn("slack_user_id", "text", (c) => c.notNull())
    .addColumn("github_login", "text", (c) => c.notNull())
    .addColumn("github_id", t.int8, (c) => c.notNull())
    .addColumn("linked_at", t.time, (c) => c.notNull())
    .addPrimaryKeyConstraint("identity_links_pkey", ["team_id", "slack_user_id"])
    .execute();

  await db.schema
    .createTable("oauth_states")
    .addColumn("state", "text", (c) => c.primaryKey())
    .addColumn("team_id", "text", (c) => c.notNull())
    .addColumn("slack_user_id", "text", (c) => c.notNull())
    .addColumn("channel_id", "text")
    .addColumn("response_url", "text")
    .addColumn("expires_at", t.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("oauth_states_expires_at").on("oauth_states").column("expires_at").execute();

  await db.schema
    .createTable("subscriptions")
    .addColumn("channel_id", "text", (c) => c.notNull())
    .addColumn("repository_key", "text", (c) => c.notNull())
    .addColumn("repository", "text", (c) => c.notNull())
    .addColumn("team_id", "text")
    .addColumn("branch_glob", "text")
    .addColumn("groups", t.textList, (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("created_at", t.time, (c) => c.notNull())
    .addPrimaryKeyConstraint("subscriptions_pkey", ["channel_id", "repository_key"])
    .execute();
  await db.schema
    .createIndex("subscriptions_repository_key")
    .on("subscriptions")
    .columns(["repository_key", "channel_id"])
    .execute();
}

async function createDeliveryLeaseAndCursorTables(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable("webhook_deliveries")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("received_at", t.time, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_received_at")
    .on("webhook_deliveries")
    .column("received_at")
    .execute();

  await db.schema
    .createTable("leases")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("owner", "text", (c) => c.notNull())
    .addColumn("expires_at", t.time, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("poll_cursors")
    .addColumn("repository_key", "text", (c) => c.primaryKey())
    .addColumn("repository", "text", (c) => c.notNull())
    .addColumn("received_from", t.time, (c) => c.notNull())
    .addColumn("seen_event_ids", t.json, (c) => c.notNull())
    .addColumn("updated_at", t.time, (c) => c.notNull())
    .execute();
}

async function createOutboxTables(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable("notifications")
    .addColumn("channel_id", "text", (c) => c.notNull())
    .addColumn("event_id", t.int8, (c) => c.notNull())
    .addColumn("repository", "text", (c) => c.notNull())
    .addColumn("pull_request", t.int8)
    .addColumn("event_type", "text", (c) => c.notNull())
    .addColumn("payload", t.json, (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull().check(sql`status IN ('pending', 'sent')`))
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("claimed_at", t.time, (c) => c.notNull())
    .addColumn("sent_at", t.time)
    .addColumn("message_ts", "text")
    .addColumn("thread_ts", "text")
    .addPrimaryKeyConstraint("notifications_pkey", ["channel_id", "event_id"])
    .execute();
  // Partial: the deliverer looks for pending rows, the pruner for old sent ones.
  await db.schema
    .createIndex("notifications_pending")
    .on("notifications")
    .column("claimed_at")
    .where(sql.ref("status"), "=", "pending")
    .execute();
  await db.schema
    .createIndex("notifications_sent")
    .on("notifications")
    .column("sent_at")
    .where(sql.ref("status"), "=", "sent")
    .execute();

  await db.schema
    .createTable("threads")
    .addColumn("channel_id", "text", (c) => c.notNull())
    .addColumn("repository_key", "text", (c) => c.notNull())
    .addColumn("repository", "text", (c) => c.notNull())
    .addColumn("pull_request", t.int8, (c) => c.notNull())
    .addColumn("parent_ts", "text", (c) => c.notNull())
    .addColumn("state", t.json, (c) => c.notNull())
    .addColumn("updated_at", t.time, (c) => c.notNull())
    .addPrimaryKeyConstraint("threads_pkey", ["channel_id", "repository_key", "pull_request"])
    .execute();

  await db.schema
    .createTable("backoffs")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("failures", "integer", (c) => c.notNull())
    .addColumn("next_attempt_at", t.time, (c) => c.notNull())
    .addColumn("last_error", "text", (c) => c.notNull())
    .execute();
}
