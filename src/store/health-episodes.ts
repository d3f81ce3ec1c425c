import { type Selectable, sql } from "kysely";
import { Repo } from "../repo.js";
import type { Tables } from "./database.js";
import { json, maybeTime, readTime, type StoreContext, time } from "./query-helpers.js";

/** A Slack message that told an episode, to edit when it ends. */
export interface HealthEpisodePost {
  channel: string;
  ts: string;
}

/** An open health episode (src/health): one per repository, kind and key. */
export interface HealthEpisode {
  repository: Repo;
  /** "stalled", "slow-checks", "failing-check", "paused-long". */
  kind: string;
  /** What the episode is about within its kind: a check's name, a pause's start, "" for the queue. */
  key: string;
  /** When the condition began (the last merge, the checks' start, the pause's own time). */
  since: Date;
  openedAt: Date;
  openedBy: string;
  /** What the notice said, to say how it ended. */
  facts: Record<string, unknown>;
  posts: HealthEpisodePost[];
  /**
   * When the notice (or its last reminder, or its revision) was posted: the opening sets it to
   * `openedAt`, so that a notice its replica did not post (it died) is claimed again once it is stale
   * (a reminder is claimed once per episode and `lastPostedAt`, src/health/evaluator.ts).
   */
  lastPostedAt: Date | null;
}

export type EpisodeRef = Pick<HealthEpisode, "repository" | "kind" | "key">;

/**
 * A closed episode whose messages may not say yet that it ended: for a closed episode `lastPostedAt` is
 * when its closer took the edit on (the closing sets it), and null once the edit is done.
 */
export interface ClosedHealthEpisode extends HealthEpisode {
  closedAt: Date;
  /** The words of how it ended. */
  ending: string;
}

/** What became of posts recorded on an episode: kept, or the episode had ended (and how, when known). */
export type PostsRecorded = { recorded: true } | { recorded: false; ending: string | null };

/**
 * A closed episode is kept this long: the same one (kind, key and start) is not opened again within it,
 * whatever a replica that has not yet read what ended it judges.
 */
export const CLOSED_EPISODE_KEPT_MS = 60 * 60_000;
/** Closed episodes are deleted after this long. */
const CLOSED_EPISODE_PRUNED_MS = 24 * 60 * 60_000;

/** The queue's health episodes, once across replicas and restarts. */
export interface HealthEpisodeStore {
  /**
   * Opens an episode unless one of the same repository, kind and key is open, or the same one (same
   * start) closed within CLOSED_EPISODE_KEPT_MS: true when this call opened it (its caller posts the
   * notice), false otherwise.
   */
  openHealthEpisode(episode: Omit<HealthEpisode, "posts" | "lastPostedAt">): Promise<boolean>;
  /** The open episodes, of one repository when given. */
  listHealthEpisodes(repository?: Repo): Promise<HealthEpisode[]>;
  /**
   * Records messages that told the episode (appended, in one statement) and when they were posted; when
   * the episode has closed meanwhile they are not kept, and the caller edits them to say how it ended.
   */
  addHealthEpisodePosts(
    episode: EpisodeRef,
    posts: HealthEpisodePost[],
    postedAt: Date,
  ): Promise<PostsRecorded>;
  /**
   * Replaces an open episode's facts (what its notice says, as its condition changed), when it was last
   * posted at `lastPostedAt` (then moved to `now`): the revised episode, with its posts to edit, when this
   * call revised it, so that of two replicas one edits; else null.
   */
  reviseHealthEpisode(
    episode: EpisodeRef,
    facts: Record<string, unknown>,
    lastPostedAt: Date | null,
    now: Date,
  ): Promise<HealthEpisode | null>;
  /**
   * Closes the episode in one statement, with the words of how it ended: the closed one (its posts as of
   * closing) when this call closed it (its caller edits the posts), else null.
   */
  closeHealthEpisode(episode: EpisodeRef, ending: string, now: Date): Promise<ClosedHealthEpisode | null>;
  /**
   * The closed episodes whose edit was taken on at `takenBefore` or before and not recorded as done (one
   * replica takes each over by a once-claim, src/health/evaluator.ts).
   */
  listUneditedHealthEpisodes(takenBefore: Date): Promise<ClosedHealthEpisode[]>;
  /** Records that the closed episode's messages were edited to say how it ended. */
  recordHealthEndingEdited(episode: EpisodeRef & Pick<ClosedHealthEpisode, "closedAt">): Promise<void>;
}

type Row = Selectable<Tables["health_episodes"]>;

function readEpisode(ctx: StoreContext, row: Row): HealthEpisode {
  return {
    repository: Repo.from(row.repository),
    kind: row.kind,
    key: row.key,
    since: readTime(row.since),
    openedAt: readTime(row.opened_at),
    openedBy: row.opened_by,
    facts: ctx.v.readJson(row.facts) as Record<string, unknown>,
    posts: ctx.v.readJson(row.posts) as HealthEpisodePost[],
    lastPostedAt: maybeTime(row.last_posted_at),
  };
}

function readClosed(ctx: StoreContext, row: Row): ClosedHealthEpisode {
  return {
    ...readEpisode(ctx, row),
    closedAt: readTime(row.closed_at ?? row.opened_at),
    ending: row.ending ?? "",
  };
}

/** An UPDATE of one episode, open or closed. */
function updateEpisode(ctx: StoreContext, e: EpisodeRef) {
  return ctx.db
    .updateTable("health_episodes")
    .where("repository_key", "=", e.repository.key)
    .where("kind", "=", e.kind)
    .where("key", "=", e.key);
}

async function openEpisode(ctx: StoreContext, e: Omit<HealthEpisode, "posts" | "lastPostedAt">) {
  const reopenBefore = time(new Date(e.openedAt.getTime() - CLOSED_EPISODE_KEPT_MS));
  const values = {
    repository: e.repository.fullName,
    since: time(e.since),
    opened_at: time(e.openedAt),
    opened_by: e.openedBy,
    facts: json(e.facts),
    posts: json([]),
    last_posted_at: time(e.openedAt),
    closed_at: null,
    ending: null,
  };
  const result = await ctx.db
    .insertInto("health_episodes")
    .values({ repository_key: e.repository.key, kind: e.kind, key: e.key, ...values })
    .onConflict((oc) =>
      oc
        .columns(["repository_key", "kind", "key"])
        .doUpdateSet(values)
        // A closed episode gives way to another (another start), or to the same one once kept long enough.
        .where("health_episodes.closed_at", "is not", null)
        .where((eb) =>
          eb.or([
            eb("health_episodes.since", "!=", time(e.since)),
            eb("health_episodes.closed_at", "<", reopenBefore),
          ]),
        ),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

async function listEpisodes(ctx: StoreContext, repository?: Repo) {
  let query = ctx.db.selectFrom("health_episodes").selectAll().where("closed_at", "is", null);
  if (repository) query = query.where("repository_key", "=", repository.key);
  const rows = await query.orderBy("opened_at").orderBy("kind").orderBy("key").execute();
  return rows.map((row) => readEpisode(ctx, row));
}

async function addPosts(
  ctx: StoreContext,
  e: EpisodeRef,
  posts: HealthEpisodePost[],
  postedAt: Date,
): Promise<PostsRecorded> {
  const added = json(posts);
  // Appended in the statement itself, so that two replicas' appends both stay.
  const appended =
    ctx.kind === "postgres"
      ? sql<string>`posts || ${added}::jsonb`
      : sql<string>`case when posts = '[]' then ${added} else substr(posts, 1, length(posts) - 1) || ',' || substr(${added}, 2) end`;
  const row = await updateEpisode(ctx, e)
    .set({ posts: posts.length === 0 ? sql<string>`posts` : appended, last_posted_at: time(postedAt) })
    .where("closed_at", "is", null)
    .returning("key")
    .executeTakeFirst();
  if (row) return { recorded: true };
  const closed = await ctx.db
    .selectFrom("health_episodes")
    .select("ending")
    .where("repository_key", "=", e.repository.key)
    .where("kind", "=", e.kind)
    .where("key", "=", e.key)
    .executeTakeFirst();
  return { recorded: false, ending: closed?.ending ?? null };
}

async function reviseEpisode(
  ctx: StoreContext,
  e: EpisodeRef,
  facts: Record<string, unknown>,
  lastPostedAt: Date | null,
  now: Date,
) {
  let update = updateEpisode(ctx, e)
    .set({ facts: json(facts), last_posted_at: time(now) })
    .where("closed_at", "is", null);
  update =
    lastPostedAt === null
      ? update.where("last_posted_at", "is", null)
      : update.where("last_posted_at", "=", time(lastPostedAt));
  const row = await update.returningAll().executeTakeFirst();
  return row ? readEpisode(ctx, row) : null;
}

async function closeEpisode(ctx: StoreContext, e: EpisodeRef, ending: string, now: Date) {
  await ctx.pruneIfDue("health_episodes", now, () =>
    ctx.db
      .deleteFrom("health_episodes")
      .where("closed_at", "<", time(new Date(now.getTime() - CLOSED_EPISODE_PRUNED_MS)))
      .execute(),
  );
  // The closing takes on the edit of its messages (last_posted_at: when; null once done).
  const row = await updateEpisode(ctx, e)
    .set({ closed_at: time(now), ending, last_posted_at: time(now) })
    .where("closed_at", "is", null)
    .returningAll()
    .executeTakeFirst();
  return row ? readClosed(ctx, row) : null;
}

async function listUnedited(ctx: StoreContext, takenBefore: Date) {
  const rows = await ctx.db
    .selectFrom("health_episodes")
    .selectAll()
    .where("closed_at", "is not", null)
    .where("last_posted_at", "is not", null)
    .where("last_posted_at", "<=", time(takenBefore))
    .orderBy("closed_at")
    .execute();
  return rows.map((row) => readClosed(ctx, row));
}

async function recordEndingEdited(ctx: StoreContext, e: EpisodeRef & { closedAt: Date }) {
  await updateEpisode(ctx, e)
    .set({ last_posted_at: null })
    .where("closed_at", "=", time(e.closedAt))
    .execute();
}

/** The episodes' queries (the store's facade spreads them into the Store). */
export function kyselyHealthEpisodes(ctx: StoreContext): HealthEpisodeStore {
  return {
    openHealthEpisode: (e) => openEpisode(ctx, e),
    listHealthEpisodes: (repository) => listEpisodes(ctx, repository),
    addHealthEpisodePosts: (e, posts, postedAt) => addPosts(ctx, e, posts, postedAt),
    reviseHealthEpisode: (e, facts, lastPostedAt, now) => reviseEpisode(ctx, e, facts, lastPostedAt, now),
    closeHealthEpisode: (e, ending, now) => closeEpisode(ctx, e, ending, now),
    listUneditedHealthEpisodes: (takenBefore) => listUnedited(ctx, takenBefore),
    recordHealthEndingEdited: (e) => recordEndingEdited(ctx, e),
  };
}
