import { type RawBuilder, type Selectable, sql } from "kysely";
import type { Tables } from "./database.js";
import { chosenBy, maybeTime, readTime, type StoreContext, time } from "./query-helpers.js";

// Durable work (src/work, docs/architecture.md, "Durable work"): one row per piece of work of any kind,
// due at a time, claimed by one replica at a time. One takeover rule for every kind: an item whose
// claim has lapsed (its replica stopped renewing it: stopped, killed, cut off) is claimable by any
// replica. While an item is claimed its `due_at` is its claim's end, unless it was asked for sooner
// meanwhile (then it runs again once this run ends).

/** A small JSON object a kind keeps with its item; `null` values count as absent. */
export type WorkPayload = Record<string, unknown>;

export interface WorkItem {
  kind: string;
  key: string;
  dueAt: Date;
  claimedBy: string | null;
  claimedUntil: Date | null;
  /** When the latest run began (its claim); null before the first. */
  startedAt: Date | null;
  /** Runs that failed in a row (0 after a success), and the last failure. */
  attempts: number;
  lastError: string | null;
  payload: WorkPayload;
}

export interface ScheduleWork {
  kind: string;
  key: string;
  dueAt: Date;
  /** The item's payload (`replace`, or a new item); merged into the one kept otherwise (top-level keys). */
  payload?: WorkPayload;
  /**
   * `replace` (default): due at `dueAt` with this payload, its claim and failures dropped (a run under
   * way cannot renew or complete it). `earlier`: due at `dueAt` unless due sooner, payload merged; a
   * claimed item runs again once its run ends. `absent`: only made if there is none.
   */
  when?: "replace" | "earlier" | "absent";
  /** Only an item that exists is changed (none is made). */
  existingOnly?: boolean;
  /**
   * A new item is made claimed by `owner` until `until` (due then: any replica takes it over at the
   * lapse), for the replica that makes it to run next; an item kept is changed as `when` says.
   */
  claim?: { owner: string; until: Date };
}

/** A run that ended well: when its item is due next (its payload merged into the kept one), or null: done. */
export interface WorkDone {
  kind: string;
  key: string;
  next: { dueAt: Date; payload?: WorkPayload } | null;
}

export interface ClaimWork {
  kind: string;
  owner: string;
  now: Date;
  leaseMs: number;
  limit: number;
  /** Only this item (when due and not claimed): a replica runs at once what it just scheduled. */
  key?: string;
}

export interface ClaimedWork {
  claimed: WorkItem[];
  /**
   * When the earliest item of the kind that is not claimed now becomes claimable (null: none); only
   * when fewer than `limit` were claimed (otherwise more may be due now).
   */
  nextDueAt: Date | null;
}

/** The five store methods of durable work: every kind's items go through them. */
export interface WorkStore {
  /** Makes or reschedules an item (ScheduleWork's `when`); the item after, or null when none was made. */
  scheduleWork(item: ScheduleWork): Promise<WorkItem | null>;
  /**
   * Claims up to `limit` items of `kind` due at `now` whose claim (if any) has lapsed, the earliest due
   * first: each is `owner`'s until `now + leaseMs`. One statement; on PostgreSQL the rows another replica
   * is claiming are skipped (FOR UPDATE SKIP LOCKED): of two concurrent claims, each item goes to one.
   */
  claimWork(claim: ClaimWork): Promise<ClaimedWork>;
  /** Extends `owner`'s claim until `until`; false if the item is not (or no longer) theirs. */
  renewWork(kind: string, key: string, owner: string, until: Date): Promise<boolean>;
  /**
   * Ends `owner`'s runs with success, in as few statements as it can (one for those due again): each item
   * is due again at its `next.dueAt` (or sooner, if asked for meanwhile) with `next.payload` merged in, its
   * failures forgotten; with `next` null it is done and removed (unless asked for again meanwhile). For
   * each, in order: false if its claim is not theirs any more.
   */
  completeWork(owner: string, done: readonly WorkDone[]): Promise<boolean[]>;
  /**
   * Ends `owner`'s run with a failure: counted, its error kept, due again at `retryAt` (the kind's
   * backoff; sooner if asked for meanwhile). The failures in a row, or null if the claim is not theirs.
   */
  failWork(
    kind: string,
    key: string,
    owner: string,
    failure: { error: string; retryAt: Date },
  ): Promise<number | null>;
}

export function kyselyWorkItems(ctx: StoreContext): WorkStore {
  return {
    scheduleWork: (item) => scheduleWork(ctx, item),
    claimWork: (claim) => claimWork(ctx, claim),
    async renewWork(kind, key, owner, until) {
      const end = time(until);
      const row = await ctx.db
        .updateTable("work_items")
        .set({
          // A due time that is the claim's end follows it; one asked for sooner stays.
          due_at: sql`CASE WHEN due_at >= claimed_until THEN ${end} ELSE due_at END`,
          claimed_until: end,
        })
        .where("kind", "=", kind)
        .where("key", "=", key)
        .where("claimed_by", "=", owner)
        .returning("key")
        .executeTakeFirst();
      return row !== undefined;
    },
    completeWork: (owner, done) => completeWork(ctx, owner, done),
    async failWork(kind, key, owner, failure) {
      const row = await ctx.db
        .updateTable("work_items")
        .set({
          // The backoff holds even when the item was asked for again while it ran: a run that failed is
          // not tried again at once because more work came in (a store outage is not hammered).
          due_at: time(failure.retryAt),
          attempts: sql`attempts + 1`,
          last_error: failure.error.slice(0, 1000),
          claimed_by: null,
          claimed_until: null,
        })
        .where("kind", "=", kind)
        .where("key", "=", key)
        .where("claimed_by", "=", owner)
        .returning("attempts")
        .executeTakeFirst();
      return row ? Number(row.attempts) : null;
    },
  };
}

/** The SQL that merges a payload (JSON text) into the kept one (the column `kept`), top-level keys replaced. */
export function mergePayload(ctx: StoreContext, kept: string, added: string) {
  return mergedJson(ctx, sql.ref(kept), ctx.kind === "postgres" ? sql`${added}::jsonb` : sql`${added}`);
}

/** The JSON object `added` merged into `kept`, top-level keys replaced, as each database writes it. */
function mergedJson(ctx: StoreContext, kept: RawBuilder<unknown>, added: RawBuilder<unknown>) {
  return ctx.kind === "postgres" ? sql`${kept} || ${added}` : sql`json_patch(${kept}, ${added})`;
}

async function scheduleWork(ctx: StoreContext, item: ScheduleWork): Promise<WorkItem | null> {
  const { db } = ctx;
  const when = item.when ?? "replace";
  const dueAt = time(item.dueAt);
  const payload = JSON.stringify(item.payload ?? {});
  const jsonValue = ctx.kind === "postgres" ? sql`${payload}::jsonb` : sql`${payload}`;
  const replaced = {
    due_at: dueAt,
    payload: jsonValue,
    claimed_by: null,
    claimed_until: null,
    attempts: 0,
    last_error: null,
  };
  const earlier = {
    due_at: sql`CASE WHEN work_items.due_at <= ${dueAt} THEN work_items.due_at ELSE ${dueAt} END`,
    payload: mergePayload(ctx, "work_items.payload", payload),
  };
  if (item.existingOnly) {
    const row = await db
      .updateTable("work_items")
      .set((when === "replace" ? replaced : earlier) as never)
      .where("kind", "=", item.kind)
      .where("key", "=", item.key)
      .returningAll()
      .executeTakeFirst();
    return row ? toWorkItem(ctx, row) : null;
  }
  const claimed = item.claim && {
    due_at: time(item.claim.until),
    claimed_by: item.claim.owner,
    claimed_until: time(item.claim.until),
    started_at: dueAt,
  };
  const row = await db
    .insertInto("work_items")
    .values({ kind: item.kind, key: item.key, due_at: dueAt, payload: jsonValue as never, ...claimed })
    .onConflict((oc) => {
      const on = oc.columns(["kind", "key"]);
      if (when === "absent") return on.doNothing();
      return on.doUpdateSet((when === "replace" ? replaced : earlier) as never);
    })
    .returningAll()
    .executeTakeFirst();
  return row ? toWorkItem(ctx, row) : null;
}

async function claimWork(ctx: StoreContext, claim: ClaimWork): Promise<ClaimedWork> {
  const rows = claim.limit > 0 ? await claimRows(ctx, claim) : [];
  const claimed = rows.map((row) => toWorkItem(ctx, row)).sort((a, b) => a.key.localeCompare(b.key));
  if (claimed.length >= claim.limit) return { claimed, nextDueAt: null };
  const next = await ctx.db
    .selectFrom("work_items")
    .select(
      sql<Date | string | null>`MIN(CASE WHEN claimed_until > due_at THEN claimed_until ELSE due_at END)`.as(
        "next",
      ),
    )
    .where("kind", "=", claim.kind)
    .executeTakeFirst();
  return { claimed, nextDueAt: maybeTime(next?.next ?? null) };
}

/**
 * One statement: up to `limit` of the kind's earliest due items whose claim (if any) has lapsed, claimed
 * by `owner` for the lease. Written as SQL, not built: the reads claim a batch many times a second.
 */
async function claimRows(ctx: StoreContext, claim: ClaimWork) {
  const pg = ctx.kind === "postgres";
  const now = time(claim.now);
  const until = time(new Date(claim.now.getTime() + claim.leaseMs));
  const free = sql`(claimed_until IS NULL OR claimed_until <= ${now})`;
  const onlyKey = claim.key === undefined ? sql`` : sql`AND key = ${claim.key}`;
  const candidates = sql`SELECT key FROM work_items
    WHERE kind = ${claim.kind} ${onlyKey} AND due_at <= ${now} AND ${free}
    ORDER BY due_at LIMIT ${claim.limit} ${pg ? sql`FOR UPDATE SKIP LOCKED` : sql``}`;
  // PostgreSQL looks again at a row it locked (another replica may have changed it meanwhile). SQLite
  // runs the statement under its one write lock, where the looks again are redundant and would lead its
  // planner to scan every due row instead of finding the chosen keys.
  const again = pg ? sql`AND due_at <= ${now} AND ${free}` : sql``;
  const { rows } = await sql<Selectable<Tables["work_items"]>>`
    UPDATE work_items SET claimed_by = ${claim.owner}, claimed_until = ${until}, due_at = ${until}, started_at = ${now}
    WHERE kind = ${claim.kind} AND ${chosenBy(ctx.kind, "key", candidates)} ${again}
    RETURNING *`.execute(ctx.db);
  return rows;
}

/** The most runs one statement completes (their parameters stay far below either database's limit). */
const MOST_DONE_PER_STATEMENT = 100;

async function completeWork(ctx: StoreContext, owner: string, done: readonly WorkDone[]): Promise<boolean[]> {
  const id = (item: { kind: string; key: string }) => `${item.kind}\u0000${item.key}`;
  const completed = new Set<string>();
  const updated: WorkDone[] = [];
  for (const item of done) {
    if (item.next === null && (await removeDone(ctx, owner, item))) completed.add(id(item));
    else updated.push(item);
  }
  for (let i = 0; i < updated.length; i += MOST_DONE_PER_STATEMENT) {
    const rows = await updateDone(ctx, owner, updated.slice(i, i + MOST_DONE_PER_STATEMENT));
    for (const row of rows) completed.add(id(row));
  }
  return done.map((item) => completed.has(id(item)));
}

/** Removes a done item still `owner`'s, unless it was asked for again while it ran; whether it did. */
async function removeDone(ctx: StoreContext, owner: string, item: WorkDone): Promise<boolean> {
  const deleted = await ctx.db
    .deleteFrom("work_items")
    .where("kind", "=", item.kind)
    .where("key", "=", item.key)
    .where("claimed_by", "=", owner)
    .where(sql<boolean>`NOT (due_at < claimed_until)`)
    .returning("key")
    .executeTakeFirst();
  return deleted !== undefined;
}

/**
 * One statement for many runs: each item still `owner`'s is released, due at its next time (or sooner,
 * if asked for while it ran; kept as it is for an item done but asked for again), its payload merged.
 */
async function updateDone(ctx: StoreContext, owner: string, done: readonly WorkDone[]) {
  const pg = ctx.kind === "postgres";
  const values = done.map((item) => {
    const due = item.next ? time(item.next.dueAt) : null;
    const payload = item.next?.payload ? JSON.stringify(item.next.payload) : null;
    return pg
      ? sql`(${item.kind}::text, ${item.key}::text, ${due}::timestamptz, ${payload}::jsonb)`
      : sql`(${item.kind}, ${item.key}, ${due}, ${payload})`;
  });
  const merged = mergedJson(ctx, sql.ref("w.payload"), sql.ref("v.payload"));
  // SQLite's RETURNING sees only the table updated, unqualified; PostgreSQL's sees both, qualified.
  const returned = pg ? sql`w.kind, w.key` : sql`kind, key`;
  const { rows } = await sql<{ kind: string; key: string }>`
    WITH v(kind, key, due, payload) AS (VALUES ${sql.join(values)})
    UPDATE work_items AS w SET
      due_at = CASE
        WHEN v.due IS NULL OR (w.due_at < w.claimed_until AND w.due_at < v.due) THEN w.due_at
        ELSE v.due END,
      payload = CASE WHEN v.payload IS NULL THEN w.payload ELSE ${merged} END,
      claimed_by = NULL, claimed_until = NULL, attempts = 0, last_error = NULL
    FROM v
    WHERE w.kind = v.kind AND w.key = v.key AND w.claimed_by = ${owner}
    RETURNING ${returned}`.execute(ctx.db);
  return rows;
}

export function toWorkItem(ctx: StoreContext, row: Selectable<Tables["work_items"]>): WorkItem {
  return {
    kind: row.kind,
    key: row.key,
    dueAt: readTime(row.due_at),
    claimedBy: row.claimed_by,
    claimedUntil: maybeTime(row.claimed_until),
    startedAt: maybeTime(row.started_at),
    attempts: Number(row.attempts),
    lastError: row.last_error,
    payload: (ctx.v.readJson(row.payload) ?? {}) as WorkPayload,
  };
}
