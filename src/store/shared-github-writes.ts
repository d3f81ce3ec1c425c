import type { Selectable } from "kysely";
import type { Repo } from "../repo.js";
import { type Database, inTransaction, type Tables } from "./database.js";
import type { StoreContext } from "./query-helpers.js";

/**
 * The store's part of the app's GitHub writes shared by replicas (migration 013): the write pace, and
 * the summary comments known or being created. The records and their interfaces are here (the GitHub
 * surface reads and writes them: src/github/write-pace.ts, summary-comment.ts); the rules are src/github's.
 */

// The write pace (src/github/write-pace.ts).

/** A kind of write as the pace tells them apart: its priority (0 first) and whether it creates content. */
export interface PaceKind {
  rank: number;
  content: boolean;
}

export interface WaitingKind extends PaceKind {
  count: number;
}

/** A replica's writes waiting for the pace, as it last said. */
export interface WaitingWrites {
  kinds: WaitingKind[];
  /** Ignored from then on (ms since the epoch). */
  until: number;
}

/** What the pace keeps, times in ms since the epoch. */
export interface WritePaceState {
  /** The latest write's start; null before the first. */
  lastStartAt: number | null;
  /** No write starts before then (a rate-limit answer's wait); 0: no wait. */
  blockedUntil: number;
  /** The starts of content-creating writes within the longest window, oldest first. */
  contentStarts: number[];
  /** Per replica, its writes waiting. */
  waiting: Record<string, WaitingWrites>;
}

export interface PaceChange<T> {
  state: WritePaceState;
  result: T;
}

/** The store's side of a shared pace: one state per app, changed under a lock (src/store). */
export interface WritePaceStore {
  /** Runs `change` on the app's pace in one transaction holding it (none yet: EMPTY_PACE), keeps its state. */
  updateGitHubWritePace<T>(app: string, change: (state: WritePaceState) => PaceChange<T>): Promise<T>;
}

// Summary comments (src/github/summary-comment.ts).

/**
 * The store's side: one record per issue or pull request, shared by every replica. Its creation is
 * claimed with a once-claim (`once-claims.ts`, scope `summary-comment`), not here.
 */
export interface SummaryCommentRecords {
  /** The summary's comment id, when recorded. */
  getSummaryComment(repository: Repo, issueNumber: number): Promise<number | null>;
  /** Records the summary's comment id (created, or found on GitHub). */
  recordSummaryComment(repository: Repo, issueNumber: number, commentId: number, now: Date): Promise<void>;
  /** Forgets the comment id if it is still `commentId` (GitHub says it is gone). */
  forgetSummaryComment(repository: Repo, issueNumber: number, commentId: number): Promise<void>;
}

/**
 * A summary comment's record is kept this long after it was last written: an older summary is found on
 * GitHub again (and recorded again) when a command comes.
 */
export const SUMMARY_COMMENT_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;

export function kyselySharedGitHubWrites(ctx: StoreContext): WritePaceStore & SummaryCommentRecords {
  const { database } = ctx;
  return {
    updateGitHubWritePace<T>(app: string, change: (state: WritePaceState) => PaceChange<T>): Promise<T> {
      return updateWritePace(database, app, change);
    },
    getSummaryComment: (repository, issueNumber) => getSummaryComment(database, repository, issueNumber),
    async recordSummaryComment(repository, issueNumber, commentId, now) {
      await recordSummaryComment(database, repository, issueNumber, commentId, now);
      await ctx.pruneIfDue("summary_comments", now, () =>
        pruneSummaryComments(database, new Date(now.getTime() - SUMMARY_COMMENT_RETENTION_MS)),
      );
    },
    forgetSummaryComment: (repository, issueNumber, commentId) =>
      forgetSummaryComment(database, repository, issueNumber, commentId),
  };
}

/** A JSON column as read: PostgreSQL's jsonb comes back parsed, SQLite's text does not. */
const readJson = (value: unknown): unknown => (typeof value === "string" ? JSON.parse(value) : value);
const ms = (value: Date | string | null): number | null =>
  value === null ? null : new Date(value).getTime();
const iso = (at: number): string => new Date(at).toISOString();

function toPaceState(row: Selectable<Tables["github_write_pace"]>): WritePaceState {
  return {
    lastStartAt: ms(row.last_start_at),
    blockedUntil: ms(row.blocked_until) ?? 0,
    contentStarts: readJson(row.content_starts) as number[],
    waiting: readJson(row.waiting) as WritePaceState["waiting"],
  };
}

/**
 * Runs `change` on the app's pace in one transaction: PostgreSQL holds the row (`FOR UPDATE`, made
 * first if missing), SQLite its write lock (`BEGIN IMMEDIATE`); so of two replicas asking at once, one
 * sees the other's start.
 */
function updateWritePace<T>(
  database: Database,
  app: string,
  change: (state: WritePaceState) => PaceChange<T>,
): Promise<T> {
  return inTransaction(database, async (tx) => {
    const select = () =>
      tx
        .selectFrom("github_write_pace")
        .selectAll()
        .where("app", "=", app)
        .$if(database.kind === "postgres", (q) => q.forUpdate())
        .executeTakeFirst();
    let row = await select();
    if (!row) {
      await tx
        .insertInto("github_write_pace")
        .values({ app, content_starts: "[]", waiting: "{}", updated_at: new Date().toISOString() })
        .onConflict((oc) => oc.column("app").doNothing())
        .execute();
      row = await select();
    }
    if (!row) throw new Error(`the write pace of app ${app} could not be made`);
    const { state, result } = change(toPaceState(row));
    await tx
      .updateTable("github_write_pace")
      .set({
        last_start_at: state.lastStartAt === null ? null : iso(state.lastStartAt),
        blocked_until: state.blockedUntil > 0 ? iso(state.blockedUntil) : null,
        content_starts: JSON.stringify(state.contentStarts),
        waiting: JSON.stringify(state.waiting),
        updated_at: new Date().toISOString(),
      })
      .where("app", "=", app)
      .execute();
    return result;
  });
}

// Summary comments

const issue = (repository: Repo, issueNumber: number) =>
  ({ repository_key: repository.key, issue_number: issueNumber }) as const;

async function getSummaryComment(
  database: Database,
  repository: Repo,
  issueNumber: number,
): Promise<number | null> {
  const row = await database.db
    .selectFrom("summary_comments")
    .select("comment_id")
    .where("repository_key", "=", repository.key)
    .where("issue_number", "=", issueNumber)
    .executeTakeFirst();
  return row?.comment_id == null ? null : Number(row.comment_id);
}

async function recordSummaryComment(
  database: Database,
  repository: Repo,
  issueNumber: number,
  commentId: number,
  now: Date,
): Promise<void> {
  const values = {
    comment_id: commentId,
    claimed_by: null,
    claimed_until: null,
    updated_at: now.toISOString(),
  };
  await database.db
    .insertInto("summary_comments")
    .values({ ...issue(repository, issueNumber), repository: repository.fullName, ...values })
    .onConflict((oc) => oc.columns(["repository_key", "issue_number"]).doUpdateSet(values))
    .execute();
}

async function forgetSummaryComment(
  database: Database,
  repository: Repo,
  issueNumber: number,
  commentId: number,
): Promise<void> {
  await database.db
    .deleteFrom("summary_comments")
    .where("repository_key", "=", repository.key)
    .where("issue_number", "=", issueNumber)
    .where("comment_id", "=", commentId)
    .execute();
}

/** Records not written for `olderThan`: their summaries are found on GitHub again if asked for. */
async function pruneSummaryComments(database: Database, olderThan: Date): Promise<void> {
  await database.db
    .deleteFrom("summary_comments")
    .where("updated_at", "<", olderThan.toISOString())
    .execute();
}
