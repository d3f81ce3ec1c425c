import { type Kysely, type RawBuilder, type Selectable, sql } from "kysely";
import type { SummaryClaim } from "../github/summary-comment.js";
import type { PaceChange, WritePaceState } from "../github/write-pace.js";
import { Repo } from "../repo.js";
import { type Database, inTransaction, type Tables } from "./database.js";
import { type HistoryDatabase, KyselyQueueHistory, type QueueHistory } from "./history.js";
import { EPOCH } from "./migrations/004-poll-schedule.js";
import * as shared from "./shared-github-writes.js";
import {
  type Backoff,
  type ClaimedPoll,
  DELIVERY_RETENTION_MS,
  DIGEST_RETENTION_MS,
  type DigestClaim,
  type DigestKey,
  GITHUB_QUEUE_PULL_RETENTION_MS,
  type GitHubQueuePull,
  type IdentityLink,
  type NoticePreferences,
  type NotificationClaim,
  type OAuthState,
  type OutboxChannelStats,
  type PauseAttribution,
  type PendingNotification,
  type PollCadence,
  type PollCursor,
  type PollSchedule,
  PRUNE_INTERVAL_MS,
  RELAY_RETENTION_MS,
  type RelayAnswerComment,
  type RelayRecord,
  type ScheduledUnpause,
  SENT_NOTIFICATION_RETENTION_MS,
  type SentNotification,
  SLACK_SIGNATURE_RETENTION_MS,
  STATS_DAY_RETENTION_MS,
  type Store,
  SUMMARY_COMMENT_RETENTION_MS,
  type Subscription,
  type ThreadRecord,
  WEBHOOK_JOB_RETENTION_MS,
  type WebhookJob,
} from "./store.js";
import { claimLapsedJobs, finishJob, pruneJobs, recordJob, renewJob } from "./webhook-jobs.js";

/**
 * The store, written once for SQLite and PostgreSQL. Every statement is one both dialects accept; the
 * few values they keep differently go through `DialectValues` below, and the conversions they share
 * (times, JSON, 64-bit integers) through the functions at the end of this file.
 */
export class KyselyStore implements Store {
  readonly kind: "sqlite" | "postgres";
  readonly #database: Database;
  readonly #db: Kysely<Tables>;
  /** When each table was last pruned by this instance (ms). */
  readonly #lastPrune = new Map<keyof Tables, number>();
  readonly #v: DialectValues;
  readonly history: QueueHistory;
  #closed = false;

  /** Use `openStore`, which migrates the database first. */
  constructor(database: Database) {
    this.kind = database.kind;
    this.#database = database;
    this.#db = database.db;
    this.#v = database.kind === "sqlite" ? SQLITE : POSTGRES;
    this.history = new KyselyQueueHistory(
      // The history's queries see its own table only.
      { kind: database.kind, db: database.db as unknown as HistoryDatabase["db"] },
      PRUNE_INTERVAL_MS,
    );
  }

  /**
   * Runs `prune` (removing a table's old rows) when this instance has not done so for `interval`, as of
   * `now` (the caller's clock). It is marked as done before it runs, so concurrent callers do not repeat it.
   */
  async #pruneIfDue(
    table: keyof Tables,
    now: Date,
    prune: () => Promise<unknown>,
    interval = PRUNE_INTERVAL_MS,
  ): Promise<void> {
    const last = this.#lastPrune.get(table);
    if (last !== undefined && now.getTime() - last < interval) return;
    this.#lastPrune.set(table, now.getTime());
    await prune();
  }

  async ping(): Promise<boolean> {
    if (this.#closed) return false;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), this.#database.pingTimeoutMs);
    });
    try {
      const query = this.#check().then(
        () => true,
        () => false,
      );
      return await Promise.race([query, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * What `ping` asks: SQLite's file is still the one opened and writable; the schema's bookkeeping table
   * answers a query; a write transaction can begin (SQLite takes its write lock) and end.
   */
  async #check(): Promise<void> {
    this.#database.checkFile();
    await sql`SELECT max(version) FROM schema_migrations`.execute(this.#db);
    await inTransaction(this.#database, async () => {});
  }

  async appliedMigrations(): Promise<number[]> {
    // Whether the bookkeeping table exists where the queries look (PostgreSQL: on the search path).
    const exists =
      this.kind === "sqlite"
        ? sql<{
            found: number;
          }>`SELECT count(*) AS found FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`
        : sql<{
            found: number;
          }>`SELECT CASE WHEN to_regclass('schema_migrations') IS NULL THEN 0 ELSE 1 END AS found`;
    const { rows } = await exists.execute(this.#db);
    if (Number(rows[0]?.found ?? 0) === 0) return [];
    const applied = await sql<{
      version: number | string;
    }>`SELECT version FROM schema_migrations ORDER BY version`.execute(this.#db);
    return applied.rows.map((r) => Number(r.version));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#db.destroy();
  }

  // Identity links

  async getLink(teamId: string, slackUserId: string): Promise<IdentityLink | null> {
    const row = await this.#db
      .selectFrom("identity_links")
      .selectAll()
      .where("team_id", "=", teamId)
      .where("slack_user_id", "=", slackUserId)
      .executeTakeFirst();
    return row ? toLink(row) : null;
  }

  async putLink(link: IdentityLink): Promise<void> {
    const values = {
      github_login: link.githubLogin,
      github_id: link.githubId,
      linked_at: time(link.linkedAt),
    };
    await this.#db
      .insertInto("identity_links")
      .values({ team_id: link.teamId, slack_user_id: link.slackUserId, ...values })
      .onConflict((oc) => oc.columns(["team_id", "slack_user_id"]).doUpdateSet(values))
      .execute();
  }

  async deleteLink(teamId: string, slackUserId: string): Promise<boolean> {
    const deleted = await this.#db
      .deleteFrom("identity_links")
      .where("team_id", "=", teamId)
      .where("slack_user_id", "=", slackUserId)
      .returning("team_id")
      .executeTakeFirst();
    return deleted !== undefined;
  }

  async listLinksByGithubLogin(githubLogin: string): Promise<IdentityLink[]> {
    const rows = await this.#db
      .selectFrom("identity_links")
      .selectAll()
      .where(sql`lower(github_login)`, "=", githubLogin.toLowerCase())
      .orderBy(this.#v.bytewise("team_id"))
      .orderBy(this.#v.bytewise("slack_user_id"))
      .execute();
    return rows.map(toLink);
  }

  // Personal notices

  async getNoticePreferences(teamId: string, slackUserId: string): Promise<NoticePreferences | null> {
    const row = await this.#db
      .selectFrom("notice_preferences")
      .selectAll()
      .where("team_id", "=", teamId)
      .where("slack_user_id", "=", slackUserId)
      .executeTakeFirst();
    return row ? toNoticePreferences(row, this.#v) : null;
  }

  async putNoticePreferences(p: NoticePreferences): Promise<void> {
    const values = {
      enabled: p.enabled ? 1 : 0,
      groups: this.#v.writeList(p.groups),
      muted: this.#v.writeList(p.mutedRepositories.map((r) => r.fullName)),
      updated_at: time(p.updatedAt),
    };
    await this.#db
      .insertInto("notice_preferences")
      .values({ team_id: p.teamId, slack_user_id: p.slackUserId, ...values })
      .onConflict((oc) => oc.columns(["team_id", "slack_user_id"]).doUpdateSet(values))
      .execute();
  }

  async listNoticePreferences(): Promise<NoticePreferences[]> {
    const rows = await this.#db
      .selectFrom("notice_preferences")
      .selectAll()
      .orderBy(this.#v.bytewise("team_id"))
      .orderBy(this.#v.bytewise("slack_user_id"))
      .execute();
    return rows.map((row) => toNoticePreferences(row, this.#v));
  }

  // OAuth states

  async createOAuthState(state: OAuthState): Promise<void> {
    await this.#db
      .insertInto("oauth_states")
      .values({
        state: state.state,
        team_id: state.teamId,
        slack_user_id: state.slackUserId,
        channel_id: state.channelId,
        response_url: state.responseUrl,
        expires_at: time(state.expiresAt),
      })
      .execute();
  }

  async consumeOAuthState(state: string, now: Date): Promise<OAuthState | null> {
    const row = await this.#db
      .deleteFrom("oauth_states")
      .where("state", "=", state)
      .returningAll()
      .executeTakeFirst();
    await this.#pruneIfDue("oauth_states", now, async () => {
      // Its own statement; PostgreSQL skips the rows another transaction holds: never waits, so never
      // deadlocks with a concurrent consume.
      const expired = this.#db
        .selectFrom("oauth_states")
        .select("state")
        .where("expires_at", "<=", time(now))
        .$if(this.kind === "postgres", (q) => q.forUpdate().skipLocked());
      await this.#db.deleteFrom("oauth_states").where("state", "in", expired).execute();
    });
    if (!row || readTime(row.expires_at).getTime() <= now.getTime()) return null;
    return toOAuthState(row);
  }

  // Subscriptions

  async putSubscription(sub: Subscription): Promise<{ created: boolean }> {
    const digest = sub.digest?.cadence ?? null;
    const since = time(sub.digest?.since ?? sub.createdAt);
    const values = {
      repository: sub.repository.fullName,
      branch_glob: sub.branchGlob,
      groups: this.#v.writeList(sub.groups),
      digest,
    };
    // Insert, or else update: the primary key decides which, also between replicas subscribing at once.
    const created = await inTransaction(this.#database, async (tx) => {
      const inserted = await tx
        .insertInto("subscriptions")
        .values({
          channel_id: sub.channelId,
          repository_key: sub.repository.key,
          team_id: sub.teamId,
          ...values,
          digest_since: digest ? since : null,
          created_by: sub.createdBy,
          created_at: time(sub.createdAt),
        })
        .onConflict((oc) => oc.columns(["channel_id", "repository_key"]).doNothing())
        .returning("channel_id")
        .executeTakeFirst();
      // The repository's read schedule, due at once if it is new.
      await tx
        .insertInto("poll_schedule")
        .values({
          repository_key: sub.repository.key,
          repository: sub.repository.fullName,
          next_poll_at: EPOCH,
          cadence: "new",
        })
        .onConflict((oc) => oc.column("repository_key").doNothing())
        .execute();
      if (inserted) return true;
      await tx
        .updateTable("subscriptions")
        // A subscribe that does not know its team keeps the one recorded.
        .set({
          ...values,
          ...(sub.teamId === null ? {} : { team_id: sub.teamId }),
          // A digest asked for again keeps the time it was first asked for.
          digest_since: digest ? sql<string>`COALESCE(digest_since, ${since})` : null,
        })
        .where("channel_id", "=", sub.channelId)
        .where("repository_key", "=", sub.repository.key)
        .execute();
      return false;
    });
    return { created };
  }

  async deleteSubscription(channelId: string, repository: Repo): Promise<boolean> {
    return inTransaction(this.#database, async (tx) => {
      const deleted = await tx
        .deleteFrom("subscriptions")
        .where("channel_id", "=", channelId)
        .where("repository_key", "=", repository.key)
        .returning("channel_id")
        .executeTakeFirst();
      // The last subscription to a repository takes its read schedule with it.
      await tx
        .deleteFrom("poll_schedule")
        .where("repository_key", "=", repository.key)
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom("subscriptions")
                .select("channel_id")
                .where("repository_key", "=", repository.key),
            ),
          ),
        )
        .execute();
      return deleted !== undefined;
    });
  }

  async listSubscriptions(filter: { channelId?: string; repository?: Repo } = {}): Promise<Subscription[]> {
    const { channelId, repository } = filter;
    const rows = await this.#db
      .selectFrom("subscriptions")
      .selectAll()
      .$if(channelId !== undefined, (q) => q.where("channel_id", "=", channelId as string))
      .$if(repository !== undefined, (q) => q.where("repository_key", "=", repository?.key as string))
      .orderBy(this.#v.bytewise("repository_key"))
      .orderBy(this.#v.bytewise("channel_id"))
      .execute();
    return rows.map((row) => toSubscription(row, this.#v));
  }

  async listSubscribedRepositories(): Promise<Repo[]> {
    const rows = await this.#db
      .selectFrom("subscriptions")
      .select(sql<string>`min(${this.#v.bytewise("repository")})`.as("repository"))
      .groupBy("repository_key")
      .orderBy(this.#v.bytewise("repository_key"))
      .execute();
    return rows.map((r) => Repo.from(r.repository));
  }

  // Webhook deliveries

  async claimDelivery(id: string, now: Date): Promise<boolean> {
    await this.#pruneDeliveries(now);
    const inserted = await this.#db
      .insertInto("webhook_deliveries")
      .values({ id, received_at: time(now) })
      .onConflict((oc) => oc.column("id").doNothing())
      .returning("id")
      .executeTakeFirst();
    return inserted !== undefined;
  }

  #pruneDeliveries(now: Date): Promise<void> {
    return this.#pruneIfDue("webhook_deliveries", now, async () => {
      await this.#db
        .deleteFrom("webhook_deliveries")
        .where("received_at", "<", time(new Date(now.getTime() - DELIVERY_RETENTION_MS)))
        .execute();
    });
  }

  // Webhook jobs (their queries: webhook-jobs.ts)

  async recordWebhookJob(job: WebhookJob, claim: { owner: string; until: Date }): Promise<boolean> {
    await this.#pruneDeliveries(job.receivedAt);
    return recordJob(this.#database, job, claim);
  }

  claimLapsedWebhookJobs(claim: {
    owner: string;
    now: Date;
    until: Date;
    limit: number;
  }): Promise<WebhookJob[]> {
    return claimLapsedJobs(this.#database, claim, this.#v.readJson);
  }

  renewWebhookJob(deliveryId: string, owner: string, until: Date): Promise<boolean> {
    return renewJob(this.#db, deliveryId, owner, until);
  }

  async finishWebhookJob(deliveryId: string, owner: string, now: Date): Promise<boolean> {
    const finished = await finishJob(this.#db, deliveryId, owner, now);
    await this.#pruneIfDue("webhook_jobs", now, () =>
      pruneJobs(this.#db, new Date(now.getTime() - WEBHOOK_JOB_RETENTION_MS)),
    );
    return finished;
  }

  // Slack request signatures

  async claimSlackSignature(signature: string, now: Date): Promise<boolean> {
    const forgotten = time(new Date(now.getTime() - SLACK_SIGNATURE_RETENTION_MS));
    await this.#pruneIfDue(
      "slack_signatures",
      now,
      async () => {
        await this.#db.deleteFrom("slack_signatures").where("seen_at", "<=", forgotten).execute();
      },
      SLACK_SIGNATURE_RETENTION_MS,
    );
    // A row older than the retention that pruning has not removed yet counts as forgotten: the claim
    // takes it over. Otherwise the conflict leaves the row as it is and returns nothing.
    const claimed = await this.#db
      .insertInto("slack_signatures")
      .values({ signature, seen_at: time(now) })
      .onConflict((oc) =>
        oc
          .column("signature")
          .doUpdateSet({ seen_at: time(now) })
          .where("slack_signatures.seen_at", "<=", forgotten),
      )
      .returning("signature")
      .executeTakeFirst();
    return claimed !== undefined;
  }

  // Leases

  async tryAcquireLease(name: string, owner: string, now: Date, ttlMs: number): Promise<boolean> {
    const expiresAt = time(new Date(now.getTime() + ttlMs));
    const taken = await this.#db
      .insertInto("leases")
      .values({ name, owner, expires_at: expiresAt })
      .onConflict((oc) =>
        oc
          .column("name")
          .doUpdateSet({ owner, expires_at: expiresAt })
          .where((eb) => eb.or([eb("leases.owner", "=", owner), eb("leases.expires_at", "<=", time(now))])),
      )
      .returning("name")
      .executeTakeFirst();
    return taken !== undefined;
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    await this.#db.deleteFrom("leases").where("name", "=", name).where("owner", "=", owner).execute();
  }

  // Poll schedule

  async claimPolls(claim: {
    owner: string;
    now: Date;
    leaseMs: number;
    limit: number;
    minGapMs?: number;
  }): Promise<ClaimedPoll[]> {
    const now = time(claim.now);
    const came = (column: "next_poll_at" | "doorbell_at" | "recheck_at") =>
      sql<boolean>`${sql.ref(column)} <= ${now}`;
    const gapEnd = time(new Date(claim.now.getTime() - (claim.minGapMs ?? 0)));
    const gapOver = sql<boolean>`(last_read_at IS NULL OR last_read_at <= ${gapEnd})`;
    const rung = sql<boolean>`((${came("doorbell_at")} OR ${came("recheck_at")}) AND ${gapOver})`;
    const due = sql<boolean>`(${came("next_poll_at")} OR ${rung})`;
    const free = sql<boolean>`(claimed_until IS NULL OR claimed_until <= ${now})`;
    const candidates = this.#db
      .selectFrom("poll_schedule")
      .select("repository_key")
      .where(due)
      .where(free)
      .orderBy(sql`CASE WHEN ${rung} THEN 0 ELSE 1 END`)
      .orderBy("next_poll_at")
      .limit(claim.limit)
      .$if(this.kind === "postgres", (q) => q.forUpdate().skipLocked());
    // Every SET expression reads the row as it was: the reason is decided before the times are cleared.
    const rows = await this.#db
      .updateTable("poll_schedule")
      .set({
        claimed_by: claim.owner,
        claimed_until: time(new Date(claim.now.getTime() + claim.leaseMs)),
        claim_reason: sql`CASE WHEN ${rung} THEN 'doorbell' ELSE cadence END`,
        last_read_at: now,
        doorbell_at: sql`CASE WHEN ${came("doorbell_at")} THEN NULL ELSE doorbell_at END`,
        recheck_at: sql`CASE WHEN ${came("recheck_at")} THEN NULL ELSE recheck_at END`,
      })
      .where("repository_key", "in", candidates)
      .where(due)
      .where(free)
      .returningAll()
      .execute();
    return rows
      .map((row) => ({ ...toPollSchedule(row), reason: row.claim_reason ?? row.cadence }))
      .sort((a, b) => (a.reason === "doorbell" ? 0 : 1) - (b.reason === "doorbell" ? 0 : 1));
  }

  renewPollClaim(repository: Repo, owner: string, until: Date): Promise<boolean> {
    return this.#renewClaim("poll_schedule", repository, owner, until);
  }

  /** Extends a repository's claim in a table of per-repository claims, if `owner` still holds it. */
  async #renewClaim(
    table: "poll_schedule" | "scheduled_unpauses",
    repository: Repo,
    owner: string,
    until: Date,
  ): Promise<boolean> {
    const row = await this.#db
      .updateTable(table)
      .set({ claimed_until: time(until) })
      .where("repository_key", "=", repository.key)
      .where("claimed_by", "=", owner)
      .returning("repository_key")
      .executeTakeFirst();
    return row !== undefined;
  }

  async finishPoll(
    repository: Repo,
    owner: string,
    next: {
      nextPollAt: Date;
      cadence: PollCadence;
      failures: number;
      lastError: string | null;
      activeUntil?: Date;
    },
  ): Promise<void> {
    const activeUntil = next.activeUntil ? time(next.activeUntil) : undefined;
    await this.#db
      .updateTable("poll_schedule")
      .set({
        next_poll_at: time(next.nextPollAt),
        cadence: next.cadence,
        failures: next.failures,
        last_error: next.lastError,
        claimed_by: null,
        claimed_until: null,
        claim_reason: null,
        ...(activeUntil
          ? {
              active_until: sql`CASE WHEN active_until IS NULL OR active_until < ${activeUntil} THEN ${activeUntil} ELSE active_until END`,
            }
          : {}),
      })
      .where("repository_key", "=", repository.key)
      .where("claimed_by", "=", owner)
      .execute();
  }

  async ringDoorbell(
    repository: Repo,
    at: { pollAt: Date; recheckAt: Date; activeUntil: Date },
  ): Promise<PollSchedule | null> {
    const pollAt = time(at.pollAt);
    // Debounced: a read already asked for sooner stays; later events in the meantime are read by it.
    const row = await this.#db
      .updateTable("poll_schedule")
      .set({
        doorbell_at: sql`CASE WHEN doorbell_at IS NULL OR doorbell_at > ${pollAt} THEN ${pollAt} ELSE doorbell_at END`,
        recheck_at: time(at.recheckAt),
        active_until: time(at.activeUntil),
      })
      .where("repository_key", "=", repository.key)
      .returningAll()
      .executeTakeFirst();
    return row ? toPollSchedule(row) : null;
  }

  async getPollSchedule(repository: Repo): Promise<PollSchedule | null> {
    const row = await this.#db
      .selectFrom("poll_schedule")
      .selectAll()
      .where("repository_key", "=", repository.key)
      .executeTakeFirst();
    return row ? toPollSchedule(row) : null;
  }

  // Poll cursors

  async getPollCursor(repository: Repo): Promise<PollCursor | null> {
    const row = await this.#db
      .selectFrom("poll_cursors")
      .selectAll()
      .where("repository_key", "=", repository.key)
      .executeTakeFirst();
    return row ? toPollCursor(row, this.#v) : null;
  }

  async putPollCursor(cursor: PollCursor): Promise<void> {
    const values = {
      repository: cursor.repository.fullName,
      received_from: time(cursor.receivedFrom),
      seen_event_ids: json(cursor.seenEventIds),
      updated_at: time(cursor.updatedAt),
    };
    await this.#db
      .insertInto("poll_cursors")
      .values({ repository_key: cursor.repository.key, ...values })
      .onConflict((oc) => oc.column("repository_key").doUpdateSet(values))
      .execute();
  }

  // Notification outbox

  async claimNotification(n: NotificationClaim): Promise<"claimed" | "pending" | "sent"> {
    // The conflict arm only touches a pending row, so no row back means the existing one was sent; a
    // row inserted has 1 attempt, a pending one bumped at least 2.
    const row = await this.#db
      .insertInto("notifications")
      .values({
        channel_id: n.channelId,
        event_id: n.eventId,
        repository: n.repository.fullName,
        pull_request: n.pullRequest,
        event_type: n.eventType,
        payload: json(n.payload),
        status: "pending",
        attempts: 1,
        claimed_at: time(n.claimedAt),
        order_at: n.order ? time(n.order.at) : null,
        order_seq: n.order ? n.order.seq : null,
      })
      .onConflict((oc) =>
        oc
          .columns(["channel_id", "event_id"])
          .doUpdateSet((eb) => ({ attempts: eb("notifications.attempts", "+", 1) }))
          .where("notifications.status", "=", "pending"),
      )
      .returning("attempts")
      .executeTakeFirst();
    if (!row) return "sent";
    return row.attempts === 1 ? "claimed" : "pending";
  }

  async markNotificationSent(sent: SentNotification): Promise<void> {
    const at = time(sent.at);
    await inTransaction(this.#database, async (tx) => {
      const row = await tx
        .updateTable("notifications")
        .set({ status: "sent", message_ts: sent.message.ts, thread_ts: sent.message.threadTs, sent_at: at })
        .where("channel_id", "=", sent.channelId)
        .where("event_id", "=", sent.eventId)
        .returning(["repository", "pull_request"])
        .executeTakeFirst();
      if (!row || !sent.thread || row.pull_request === null) return;
      // The thread is keyed by the row's own repository and pull request: what the message was about.
      const repository = Repo.from(row.repository);
      const values = {
        repository: repository.fullName,
        parent_ts: sent.thread.parentTs,
        state: json(sent.thread.state),
        updated_at: at,
        parent_stale: sent.thread.parentStale ? 1 : 0,
      };
      await tx
        .insertInto("threads")
        .values({
          channel_id: sent.channelId,
          repository_key: repository.key,
          pull_request: int(row.pull_request),
          ...values,
        })
        .onConflict((oc) => oc.columns(["channel_id", "repository_key", "pull_request"]).doUpdateSet(values))
        .execute();
    });
    await this.#pruneIfDue("notifications", sent.at, async () => {
      await this.#db
        .deleteFrom("notifications")
        .where("status", "=", "sent")
        .where("sent_at", "<", time(new Date(sent.at.getTime() - SENT_NOTIFICATION_RETENTION_MS)))
        .execute();
    });
  }

  async releaseNotification(channelId: string, eventId: number): Promise<void> {
    await this.#db
      .deleteFrom("notifications")
      .where("channel_id", "=", channelId)
      .where("event_id", "=", eventId)
      .where("status", "=", "pending")
      .execute();
  }

  async listPendingNotifications(
    olderThan: Date,
    limit: number,
    channelId?: string,
  ): Promise<PendingNotification[]> {
    const rows = await this.#db
      .selectFrom("notifications")
      .selectAll()
      .where("status", "=", "pending")
      .where("claimed_at", "<", time(olderThan))
      .$if(channelId !== undefined, (q) => q.where("channel_id", "=", channelId as string))
      // GitHub's order for a pushed notice (its webhook's), the claim's for the others.
      .orderBy(sql`COALESCE(order_at, claimed_at)`)
      .orderBy(sql`COALESCE(order_seq, 0)`)
      .orderBy(this.#v.bytewise("channel_id"))
      .orderBy("event_id")
      .$if(Number.isFinite(limit), (q) => q.limit(Math.max(0, Math.floor(limit))))
      .execute();
    return rows.map((row) => toPendingNotification(row, this.#v));
  }

  async pendingNotificationStats(): Promise<OutboxChannelStats[]> {
    const rows = await this.#db
      .selectFrom("notifications")
      .select((eb) => [
        "channel_id",
        eb.fn.countAll().as("pending"),
        eb.fn.min("claimed_at").as("oldest_claimed_at"),
      ])
      .where("status", "=", "pending")
      .groupBy("channel_id")
      .orderBy(this.#v.bytewise("channel_id"))
      .execute();
    return rows.map((row) => ({
      channelId: row.channel_id,
      pending: int(row.pending as number | string),
      oldestClaimedAt: readTime(row.oldest_claimed_at as Date | string),
    }));
  }

  // Threads

  async getThread(channelId: string, repository: Repo, pullRequest: number): Promise<ThreadRecord | null> {
    const row = await this.#db
      .selectFrom("threads")
      .selectAll()
      .where("channel_id", "=", channelId)
      .where("repository_key", "=", repository.key)
      .where("pull_request", "=", pullRequest)
      .executeTakeFirst();
    return row ? toThread(row, this.#v) : null;
  }

  async listThreadsOfRepository(repository: Repo, channelPrefix: string): Promise<ThreadRecord[]> {
    const rows = await this.#db
      .selectFrom("threads")
      .selectAll()
      .where("repository_key", "=", repository.key)
      .where(sql<string>`substr(channel_id, 1, ${channelPrefix.length})`, "=", channelPrefix)
      .orderBy(this.#v.bytewise("channel_id"))
      .orderBy("pull_request")
      .execute();
    return rows.map((row) => toThread(row, this.#v));
  }

  async listStaleThreads(channelId?: string): Promise<ThreadRecord[]> {
    const rows = await this.#db
      .selectFrom("threads")
      .selectAll()
      .where("parent_stale", "=", 1)
      .$if(channelId !== undefined, (q) => q.where("channel_id", "=", channelId as string))
      .orderBy("updated_at")
      .orderBy(this.#v.bytewise("channel_id"))
      .orderBy("repository_key")
      .orderBy("pull_request")
      .execute();
    return rows.map((row) => toThread(row, this.#v));
  }

  async markThreadParentEdited(thread: {
    channelId: string;
    repository: Repo;
    pullRequest: number;
    updatedAt: Date;
  }): Promise<void> {
    await this.#db
      .updateTable("threads")
      .set({ parent_stale: 0 })
      .where("channel_id", "=", thread.channelId)
      .where("repository_key", "=", thread.repository.key)
      .where("pull_request", "=", thread.pullRequest)
      .where("updated_at", "=", time(thread.updatedAt))
      .execute();
  }

  // Backoff

  async getBackoff(key: string): Promise<Backoff | null> {
    const row = await this.#db.selectFrom("backoffs").selectAll().where("key", "=", key).executeTakeFirst();
    return row
      ? {
          key: row.key,
          failures: row.failures,
          nextAttemptAt: readTime(row.next_attempt_at),
          lastError: row.last_error,
        }
      : null;
  }

  async putBackoff(backoff: Backoff): Promise<void> {
    const values = {
      failures: backoff.failures,
      next_attempt_at: time(backoff.nextAttemptAt),
      last_error: backoff.lastError,
    };
    await this.#db
      .insertInto("backoffs")
      .values({ key: backoff.key, ...values })
      .onConflict((oc) => oc.column("key").doUpdateSet(values))
      .execute();
  }

  async clearBackoff(key: string): Promise<void> {
    await this.#db.deleteFrom("backoffs").where("key", "=", key).execute();
  }

  // Pause attributions

  async putPauseAttribution(a: PauseAttribution): Promise<void> {
    const values = {
      repository: a.repository.fullName,
      action: a.action,
      reason: a.reason,
      actor: a.actor,
      surface: a.surface,
      at: time(a.at),
      resumes_at: a.resumesAt ? time(a.resumesAt) : null,
      scheduled: a.scheduled ? 1 : 0,
    };
    await this.#db
      .insertInto("pause_attributions")
      .values({ repository_key: a.repository.key, ...values })
      .onConflict((oc) => oc.column("repository_key").doUpdateSet(values))
      .execute();
  }

  async getPauseAttribution(repository: Repo): Promise<PauseAttribution | null> {
    const row = await this.#db
      .selectFrom("pause_attributions")
      .selectAll()
      .where("repository_key", "=", repository.key)
      .executeTakeFirst();
    return row
      ? {
          repository: Repo.from(row.repository),
          action: row.action,
          reason: row.reason,
          actor: row.actor,
          surface: row.surface,
          at: readTime(row.at),
          resumesAt: row.resumes_at === null ? null : readTime(row.resumes_at),
          scheduled: Number(row.scheduled) === 1,
        }
      : null;
  }
  // Weekly digests

  async claimDigest(c: DigestClaim): Promise<"new" | "in-doubt" | null> {
    await this.#pruneIfDue("digests", c.now, async () => {
      await this.#db
        .deleteFrom("digests")
        .where("week", "<", dayBefore(c.now, DIGEST_RETENTION_MS))
        .execute();
    });
    const claim = { claimed_by: c.owner, claimed_at: time(c.now), claimed_until: time(c.until) };
    const key = { channel_id: c.channelId, repository_key: c.repository.key, week: c.week };
    const inserted = await this.#db
      .insertInto("digests")
      .values({ ...key, ...claim })
      .onConflict((oc) => oc.columns(["channel_id", "repository_key", "week"]).doNothing())
      .returning("week")
      .executeTakeFirst();
    if (inserted) return "new";
    const taken = await this.#db
      .updateTable("digests")
      .set(claim)
      .where("channel_id", "=", key.channel_id)
      .where("repository_key", "=", key.repository_key)
      .where("week", "=", key.week)
      .where("sent_at", "is", null)
      .where("claimed_until", "<=", time(c.now))
      .returning("week")
      .executeTakeFirst();
    return taken ? "in-doubt" : null;
  }

  async markDigestSent(d: DigestKey & { owner: string; messageTs: string; at: Date }): Promise<void> {
    await this.#db
      .updateTable("digests")
      .set({ sent_at: time(d.at), message_ts: d.messageTs })
      .where("channel_id", "=", d.channelId)
      .where("repository_key", "=", d.repository.key)
      .where("week", "=", d.week)
      .where("claimed_by", "=", d.owner)
      .execute();
  }

  async releaseDigest(d: DigestKey & { owner: string }): Promise<void> {
    await this.#db
      .deleteFrom("digests")
      .where("channel_id", "=", d.channelId)
      .where("repository_key", "=", d.repository.key)
      .where("week", "=", d.week)
      .where("claimed_by", "=", d.owner)
      .where("sent_at", "is", null)
      .execute();
  }

  // Queue statistics

  async getStatsDays(repository: Repo, days: readonly string[]): Promise<Map<string, unknown>> {
    if (days.length === 0) return new Map();
    const rows = await this.#db
      .selectFrom("stats_days")
      .select(["day", "facts"])
      .where("repository_key", "=", repository.key)
      .where("day", "in", [...days])
      .execute();
    return new Map(rows.map((row) => [row.day, this.#v.readJson(row.facts)]));
  }

  async putStatsDay(repository: Repo, day: string, facts: unknown, now: Date): Promise<void> {
    await this.#pruneIfDue("stats_days", now, async () => {
      await this.#db
        .deleteFrom("stats_days")
        .where("day", "<", dayBefore(now, STATS_DAY_RETENTION_MS))
        .execute();
    });
    const values = { facts: json(facts), computed_at: time(now) };
    await this.#db
      .insertInto("stats_days")
      .values({ repository_key: repository.key, day, ...values })
      .onConflict((oc) => oc.columns(["repository_key", "day"]).doUpdateSet(values))
      .execute();
  }

  // Relays followed until the merge queue answers them

  async createRelay(
    r: Omit<RelayRecord, "presentation" | "answer" | "answerVersion" | "appliedVersion" | "superseded">,
  ): Promise<void> {
    await this.#pruneIfDue("relays", r.relayedAt, async () => {
      const forgotten = time(new Date(r.relayedAt.getTime() - RELAY_RETENTION_MS));
      await this.#db.deleteFrom("relays").where("deadline", "<", forgotten).execute();
    });
    await this.#db
      .insertInto("relays")
      .values({
        id: r.id,
        repository_key: r.repository.key,
        repository: r.repository.fullName,
        pull_request: r.pull,
        command_name: r.commandName,
        surface: r.surface,
        relayed_at: time(r.relayedAt),
        deadline: time(r.deadline),
        relay: json(r.relay),
      })
      .execute();
  }

  async updateRelay(id: string, relay: unknown): Promise<void> {
    await this.#db
      .updateTable("relays")
      .set({ relay: json(relay) })
      .where("id", "=", id)
      .execute();
  }

  async deleteRelay(id: string): Promise<void> {
    await this.#db.deleteFrom("relays").where("id", "=", id).execute();
  }

  async getRelay(id: string): Promise<RelayRecord | null> {
    const row = await this.#db.selectFrom("relays").selectAll().where("id", "=", id).executeTakeFirst();
    return row ? toRelay(row, this.#v) : null;
  }

  async recordRelayAnswer(a: RelayAnswerComment): Promise<RelayRecord | null> {
    const thread = this.#db
      .selectFrom("relays")
      .selectAll()
      .where("repository_key", "=", a.repository.key)
      .where("pull_request", "=", a.pull);
    const answered = await thread.where("answer_comment_id", "=", a.commentId).executeTakeFirst();
    // An edit of an answer is its relay's, followed until its deadline only.
    if (answered && readTime(answered.deadline) <= a.now) return null;
    const candidates = answered
      ? [answered]
      : await thread
          .where("answer_comment_id", "is", null)
          .where("relayed_at", "<=", time(a.createdAt))
          .where("deadline", ">", time(a.now))
          .$if(a.quotedCommand !== null, (q) => q.where("command_name", "=", a.quotedCommand ?? ""))
          .orderBy("relayed_at")
          .orderBy("id")
          .execute();
    const at = time(a.updatedAt);
    for (const candidate of candidates) {
      // One statement: of two replicas recording answers at once, each version counts once, an older
      // version (deliveries out of order) changes nothing, and a comment answers one relay only.
      const result = await this.#db
        .updateTable("relays")
        .set((eb) => ({
          answer_comment_id: a.commentId,
          answer_body: a.body,
          answer_url: a.url,
          answer_at: at,
          answer_version: eb("answer_version", "+", 1),
        }))
        .where("id", "=", candidate.id)
        .where((eb) =>
          eb.or([
            eb("answer_comment_id", "is", null),
            eb.and([
              eb("answer_comment_id", "=", a.commentId),
              eb.or([
                eb("answer_at", "<", at),
                eb.and([eb("answer_at", "=", at), eb("answer_body", "<>", a.body)]),
              ]),
            ]),
          ]),
        )
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) > 0) return this.getRelay(candidate.id);
      if (answered) return null;
    }
    return null;
  }

  async presentRelay(id: string, presentation: unknown): Promise<void> {
    await this.#db
      .updateTable("relays")
      .set({ presentation: json(presentation) })
      .where("id", "=", id)
      .execute();
  }

  async supersedeRelays(repository: Repo, pull: number, surface: "github" | "slack"): Promise<void> {
    await this.#db
      .updateTable("relays")
      .set({ superseded: 1 })
      .where("repository_key", "=", repository.key)
      .where("pull_request", "=", pull)
      .where("surface", "=", surface)
      .where("presentation", "is not", null)
      .execute();
  }

  async claimRelayAnswer(id: string, owner: string, now: Date, leaseMs: number): Promise<RelayRecord | null> {
    const result = await this.#db
      .updateTable("relays")
      .set({ apply_owner: owner, apply_until: time(new Date(now.getTime() + leaseMs)) })
      .where("id", "=", id)
      .where("presentation", "is not", null)
      .where("superseded", "=", 0)
      .where((eb) => eb("applied_version", "<", eb.ref("answer_version")))
      .where((eb) => eb.or([eb("apply_until", "is", null), eb("apply_until", "<=", time(now))]))
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return null;
    return this.getRelay(id);
  }

  async releaseRelayAnswer(id: string, owner: string, appliedVersion: number | null): Promise<void> {
    await this.#db
      .updateTable("relays")
      .set({
        apply_owner: null,
        apply_until: null,
        ...(appliedVersion === null ? {} : { applied_version: appliedVersion }),
      })
      .where("id", "=", id)
      .where("apply_owner", "=", owner)
      .execute();
  }

  async listUnappliedRelays(now: Date, limit: number): Promise<RelayRecord[]> {
    const rows = await this.#db
      .selectFrom("relays")
      .selectAll()
      .where("presentation", "is not", null)
      .where("superseded", "=", 0)
      .where("deadline", ">", time(now))
      .where((eb) => eb("applied_version", "<", eb.ref("answer_version")))
      .where((eb) => eb.or([eb("apply_until", "is", null), eb("apply_until", "<=", time(now))]))
      .orderBy("relayed_at")
      .limit(limit)
      .execute();
    return rows.map((row) => toRelay(row, this.#v));
  }

  // GitHub's own merge queue: what its webhooks said of each pull request

  async rememberQueueEntry(
    entry: Omit<GitHubQueuePull, "groupSha" | "removedBy"> & { deliveryId: string },
  ): Promise<void> {
    await this.#pruneIfDue("github_queue_pulls", entry.enteredAt, async () => {
      await this.#db
        .deleteFrom("github_queue_pulls")
        .where("entered_at", "<", time(new Date(entry.enteredAt.getTime() - GITHUB_QUEUE_PULL_RETENTION_MS)))
        .execute();
    });
    const values = {
      repository: entry.repository.fullName,
      base_ref: entry.baseRef,
      entered_at: time(entry.enteredAt),
      entry_delivery: entry.deliveryId,
      group_sha: null,
      removed_by: null,
      removed_at: null,
    };
    await this.#db
      .insertInto("github_queue_pulls")
      .values({ repository_key: entry.repository.key, pull_number: entry.number, ...values })
      .onConflict((oc) =>
        oc
          .columns(["repository_key", "pull_number"])
          .doUpdateSet(values)
          .where("github_queue_pulls.entry_delivery", "!=", entry.deliveryId),
      )
      .execute();
  }

  async rememberMergeGroup(repository: Repo, number: number, sha: string): Promise<void> {
    await this.#db
      .updateTable("github_queue_pulls")
      .set({ group_sha: sha })
      .where("repository_key", "=", repository.key)
      .where("pull_number", "=", number)
      .execute();
  }

  async rememberRemoval(repository: Repo, number: number, by: { login: string; at: Date }): Promise<void> {
    await this.#db
      .updateTable("github_queue_pulls")
      .set({ removed_by: by.login, removed_at: time(by.at) })
      .where("repository_key", "=", repository.key)
      .where("pull_number", "=", number)
      .execute();
  }

  async getQueuePull(repository: Repo, number: number): Promise<GitHubQueuePull | null> {
    const row = await this.#db
      .selectFrom("github_queue_pulls")
      .selectAll()
      .where("repository_key", "=", repository.key)
      .where("pull_number", "=", number)
      .executeTakeFirst();
    return row
      ? {
          repository: Repo.from(row.repository),
          number: row.pull_number,
          baseRef: row.base_ref,
          enteredAt: readTime(row.entered_at),
          groupSha: row.group_sha,
          removedBy:
            row.removed_by && row.removed_at ? { login: row.removed_by, at: readTime(row.removed_at) } : null,
        }
      : null;
  }

  // Scheduled unpauses

  async putScheduledUnpause(u: ScheduledUnpause): Promise<void> {
    const values = {
      repository: u.repository.fullName,
      reason: u.reason,
      resumes_at: time(u.resumesAt),
      scheduled_by: u.scheduledBy,
      surface: u.surface,
      created_at: time(u.createdAt),
      claimed_by: null,
      claimed_until: null,
    };
    await this.#db
      .insertInto("scheduled_unpauses")
      .values({ repository_key: u.repository.key, ...values })
      .onConflict((oc) => oc.column("repository_key").doUpdateSet(values))
      .execute();
  }

  async deleteScheduledUnpause(repository: Repo): Promise<boolean> {
    const row = await this.#db
      .deleteFrom("scheduled_unpauses")
      .where("repository_key", "=", repository.key)
      .returning("repository_key")
      .executeTakeFirst();
    return row !== undefined;
  }

  async getScheduledUnpause(repository: Repo): Promise<ScheduledUnpause | null> {
    const row = await this.#db
      .selectFrom("scheduled_unpauses")
      .selectAll()
      .where("repository_key", "=", repository.key)
      .executeTakeFirst();
    return row ? toScheduledUnpause(row) : null;
  }

  async claimScheduledUnpauses(claim: {
    owner: string;
    now: Date;
    leaseMs: number;
    limit: number;
  }): Promise<ScheduledUnpause[]> {
    const now = time(claim.now);
    const free = sql<boolean>`(claimed_until IS NULL OR claimed_until <= ${now})`;
    const candidates = this.#db
      .selectFrom("scheduled_unpauses")
      .select("repository_key")
      .where("resumes_at", "<=", now)
      .where(free)
      .orderBy("resumes_at")
      .limit(claim.limit)
      .$if(this.kind === "postgres", (q) => q.forUpdate().skipLocked());
    const rows = await this.#db
      .updateTable("scheduled_unpauses")
      .set({ claimed_by: claim.owner, claimed_until: time(new Date(claim.now.getTime() + claim.leaseMs)) })
      .where("repository_key", "in", candidates)
      .where("resumes_at", "<=", now)
      .where(free)
      .returningAll()
      .execute();
    return rows.map(toScheduledUnpause).sort((a, b) => a.resumesAt.getTime() - b.resumesAt.getTime());
  }

  renewScheduledUnpauseClaim(repository: Repo, owner: string, until: Date): Promise<boolean> {
    return this.#renewClaim("scheduled_unpauses", repository, owner, until);
  }

  async finishScheduledUnpause(repository: Repo, owner: string): Promise<boolean> {
    const row = await this.#db
      .deleteFrom("scheduled_unpauses")
      .where("repository_key", "=", repository.key)
      .where("claimed_by", "=", owner)
      .returning("repository_key")
      .executeTakeFirst();
    return row !== undefined;
  }

  // The GitHub App's writes shared by its replicas (shared-github-writes.ts)

  updateGitHubWritePace<T>(app: string, change: (state: WritePaceState) => PaceChange<T>): Promise<T> {
    return shared.updateWritePace(this.#database, app, change);
  }

  getSummaryComment(repository: Repo, issueNumber: number): Promise<number | null> {
    return shared.getSummaryComment(this.#database, repository, issueNumber);
  }

  claimSummaryComment(claim: {
    repository: Repo;
    issueNumber: number;
    owner: string;
    now: Date;
    until: Date;
  }): Promise<SummaryClaim> {
    return shared.claimSummaryComment(this.#database, claim);
  }

  async recordSummaryComment(
    repository: Repo,
    issueNumber: number,
    commentId: number,
    now: Date,
  ): Promise<void> {
    await shared.recordSummaryComment(this.#database, repository, issueNumber, commentId, now);
    await this.#pruneIfDue("summary_comments", now, () =>
      shared.pruneSummaryComments(this.#database, new Date(now.getTime() - SUMMARY_COMMENT_RETENTION_MS)),
    );
  }

  releaseSummaryClaim(repository: Repo, issueNumber: number, owner: string): Promise<void> {
    return shared.releaseSummaryClaim(this.#database, repository, issueNumber, owner);
  }

  forgetSummaryComment(repository: Repo, issueNumber: number, commentId: number): Promise<void> {
    return shared.forgetSummaryComment(this.#database, repository, issueNumber, commentId);
  }
}

// Dialect values: what SQLite and PostgreSQL keep differently (the migrations' ColumnTypes).

interface DialectValues {
  /** A JSON column as read: PostgreSQL's jsonb comes back parsed, SQLite's text does not. */
  readJson(value: unknown): unknown;
  /** A list of strings: text[] in PostgreSQL (pg writes an array as one), JSON text in SQLite. */
  writeList(list: string[]): string[] | string;
  readList(value: string[] | string): string[];
  /**
   * A column to order by, compared byte by byte as SQLite always does: PostgreSQL's default collation
   * may follow the locale (and sort "Acme" after "acme" on one machine, before it on another).
   */
  bytewise(column: string): RawBuilder<unknown>;
}

const SQLITE: DialectValues = {
  readJson: (value) => JSON.parse(value as string),
  writeList: (list) => JSON.stringify(list),
  readList: (value) => JSON.parse(value as string) as string[],
  bytewise: (column) => sql.ref(column),
};

const POSTGRES: DialectValues = {
  readJson: (value) => value,
  writeList: (list) => list,
  readList: (value) => value as string[],
  bytewise: (column) => sql`${sql.ref(column)} COLLATE "C"`,
};

// Conversions both dialects share.

/**
 * A time as written: ISO-8601 UTC with milliseconds, which SQLite keeps as text (and which sorts as
 * text) and PostgreSQL parses into timestamptz. Throws RangeError on an invalid Date.
 */
function time(date: Date): string {
  return date.toISOString();
}

/** The UTC day (`YYYY-MM-DD`, as stats days and digest weeks are kept) `ms` before `now`. */
function dayBefore(now: Date, ms: number): string {
  return new Date(now.getTime() - ms).toISOString().slice(0, 10);
}

/** A time as read: pg's Date or SQLite's text. */
function readTime(value: Date | string): Date {
  return new Date(value);
}

function json(value: unknown): string {
  return JSON.stringify(value ?? null);
}

/** A 64-bit integer as read: pg hands bigint back as a string, SQLite as a number. */
function int(value: number | string): number {
  return Number(value);
}

function toLink(row: Selectable<Tables["identity_links"]>): IdentityLink {
  return {
    teamId: row.team_id,
    slackUserId: row.slack_user_id,
    githubLogin: row.github_login,
    githubId: int(row.github_id),
    linkedAt: readTime(row.linked_at),
  };
}

function toNoticePreferences(
  row: Selectable<Tables["notice_preferences"]>,
  v: DialectValues,
): NoticePreferences {
  return {
    teamId: row.team_id,
    slackUserId: row.slack_user_id,
    enabled: Number(row.enabled) === 1,
    groups: v.readList(row.groups),
    mutedRepositories: v.readList(row.muted).map((name) => Repo.from(name)),
    updatedAt: readTime(row.updated_at),
  };
}

function toOAuthState(row: Selectable<Tables["oauth_states"]>): OAuthState {
  return {
    state: row.state,
    teamId: row.team_id,
    slackUserId: row.slack_user_id,
    channelId: row.channel_id,
    responseUrl: row.response_url,
    expiresAt: readTime(row.expires_at),
  };
}

function toSubscription(row: Selectable<Tables["subscriptions"]>, v: DialectValues): Subscription {
  return {
    channelId: row.channel_id,
    teamId: row.team_id,
    repository: Repo.from(row.repository),
    branchGlob: row.branch_glob,
    groups: v.readList(row.groups),
    createdBy: row.created_by,
    createdAt: readTime(row.created_at),
    ...(row.digest
      ? {
          digest: {
            cadence: row.digest,
            ...(row.digest_since ? { since: readTime(row.digest_since) } : {}),
          },
        }
      : {}),
  };
}

function toPollCursor(row: Selectable<Tables["poll_cursors"]>, v: DialectValues): PollCursor {
  return {
    repository: Repo.from(row.repository),
    receivedFrom: readTime(row.received_from),
    seenEventIds: v.readJson(row.seen_event_ids) as number[],
    updatedAt: readTime(row.updated_at),
  };
}

function toPollSchedule(row: Selectable<Tables["poll_schedule"]>): PollSchedule {
  const maybe = (value: Date | string | null) => (value === null ? null : readTime(value));
  return {
    repository: Repo.from(row.repository),
    nextPollAt: readTime(row.next_poll_at),
    cadence: row.cadence,
    doorbellAt: maybe(row.doorbell_at),
    recheckAt: maybe(row.recheck_at),
    activeUntil: maybe(row.active_until),
    failures: row.failures,
    lastError: row.last_error,
    claimedBy: row.claimed_by,
    claimedUntil: maybe(row.claimed_until),
    lastReadAt: maybe(row.last_read_at),
  };
}

function toScheduledUnpause(row: Selectable<Tables["scheduled_unpauses"]>): ScheduledUnpause {
  return {
    repository: Repo.from(row.repository),
    reason: row.reason,
    resumesAt: readTime(row.resumes_at),
    scheduledBy: row.scheduled_by,
    surface: row.surface,
    createdAt: readTime(row.created_at),
  };
}

function toPendingNotification(
  row: Selectable<Tables["notifications"]>,
  v: DialectValues,
): PendingNotification {
  return {
    channelId: row.channel_id,
    eventId: int(row.event_id),
    repository: Repo.from(row.repository),
    pullRequest: row.pull_request === null ? null : int(row.pull_request),
    eventType: row.event_type,
    payload: v.readJson(row.payload),
    claimedAt: readTime(row.claimed_at),
    attempts: row.attempts,
    ...(row.order_at === null
      ? {}
      : { order: { at: readTime(row.order_at), seq: row.order_seq === null ? 0 : int(row.order_seq) } }),
  };
}

function toThread(row: Selectable<Tables["threads"]>, v: DialectValues): ThreadRecord {
  return {
    channelId: row.channel_id,
    repository: Repo.from(row.repository),
    pullRequest: int(row.pull_request),
    parentTs: row.parent_ts,
    state: v.readJson(row.state),
    parentStale: Number(row.parent_stale) === 1,
    updatedAt: readTime(row.updated_at),
  };
}

function toRelay(row: Selectable<Tables["relays"]>, v: DialectValues): RelayRecord {
  const answer =
    row.answer_comment_id === null || row.answer_body === null || row.answer_at === null
      ? null
      : {
          commentId: int(row.answer_comment_id),
          body: row.answer_body,
          url: row.answer_url ?? "",
          at: readTime(row.answer_at),
        };
  return {
    id: row.id,
    repository: Repo.from(row.repository),
    pull: int(row.pull_request),
    commandName: row.command_name,
    surface: row.surface,
    relayedAt: readTime(row.relayed_at),
    deadline: readTime(row.deadline),
    relay: v.readJson(row.relay),
    presentation: row.presentation === null ? null : v.readJson(row.presentation),
    answer,
    answerVersion: Number(row.answer_version),
    appliedVersion: Number(row.applied_version),
    superseded: Number(row.superseded) === 1,
  };
}
