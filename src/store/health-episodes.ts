import { Repo } from "../repo.js";
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
   * When the notice (or its last reminder) was posted, or claimed to be: the opening sets it to
   * `openedAt`, so that a notice its replica did not post (it died) is claimed again once it is stale.
   */
  lastPostedAt: Date | null;
}

export type EpisodeRef = Pick<HealthEpisode, "repository" | "kind" | "key">;

/** The queue's health episodes, once across replicas and restarts. */
export interface HealthEpisodeStore {
  /**
   * Opens an episode unless one of the same repository, kind and key is open: true when this call opened
   * it (its caller posts the notice), false when another replica (or an earlier pass) had.
   */
  openHealthEpisode(episode: Omit<HealthEpisode, "posts" | "lastPostedAt">): Promise<boolean>;
  /** The open episodes, of one repository when given. */
  listHealthEpisodes(repository?: Repo): Promise<HealthEpisode[]>;
  /** Records the messages that told the episode (added to those kept) and when they were posted. */
  addHealthEpisodePosts(episode: EpisodeRef, posts: HealthEpisodePost[], postedAt: Date): Promise<void>;
  /**
   * Claims a reminder: true (and the last post's time moved to `now`) when the episode was last posted
   * at `lastPostedAt`, so that of two replicas one reminds.
   */
  claimHealthReminder(episode: EpisodeRef, lastPostedAt: Date | null, now: Date): Promise<boolean>;
  /** Closes the episode: the closed one when this call closed it (its caller edits the posts), else null. */
  closeHealthEpisode(episode: EpisodeRef): Promise<HealthEpisode | null>;
}

export function kyselyHealthEpisodes(ctx: StoreContext): HealthEpisodeStore {
  const { db } = ctx;
  const where = (e: EpisodeRef) =>
    db
      .selectFrom("health_episodes")
      .selectAll()
      .where("repository_key", "=", e.repository.key)
      .where("kind", "=", e.kind)
      .where("key", "=", e.key);
  const read = (row: Awaited<ReturnType<ReturnType<typeof where>["executeTakeFirstOrThrow"]>>) => ({
    repository: Repo.from(row.repository),
    kind: row.kind,
    key: row.key,
    since: readTime(row.since),
    openedAt: readTime(row.opened_at),
    openedBy: row.opened_by,
    facts: ctx.v.readJson(row.facts) as Record<string, unknown>,
    posts: ctx.v.readJson(row.posts) as HealthEpisodePost[],
    lastPostedAt: maybeTime(row.last_posted_at),
  });
  return {
    async openHealthEpisode(e) {
      const result = await db
        .insertInto("health_episodes")
        .values({
          repository_key: e.repository.key,
          kind: e.kind,
          key: e.key,
          repository: e.repository.fullName,
          since: time(e.since),
          opened_at: time(e.openedAt),
          opened_by: e.openedBy,
          facts: json(e.facts),
          posts: json([]),
          last_posted_at: time(e.openedAt),
        })
        .onConflict((oc) => oc.columns(["repository_key", "kind", "key"]).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    async listHealthEpisodes(repository) {
      let query = db.selectFrom("health_episodes").selectAll();
      if (repository) query = query.where("repository_key", "=", repository.key);
      const rows = await query.orderBy("opened_at").orderBy("kind").orderBy("key").execute();
      return rows.map(read);
    },

    async addHealthEpisodePosts(e, posts, postedAt) {
      const row = await where(e).executeTakeFirst();
      if (!row) return;
      const kept = ctx.v.readJson(row.posts) as HealthEpisodePost[];
      await db
        .updateTable("health_episodes")
        .set({ posts: json([...kept, ...posts]), last_posted_at: time(postedAt) })
        .where("repository_key", "=", e.repository.key)
        .where("kind", "=", e.kind)
        .where("key", "=", e.key)
        .execute();
    },

    async claimHealthReminder(e, lastPostedAt, now) {
      let update = db
        .updateTable("health_episodes")
        .set({ last_posted_at: time(now) })
        .where("repository_key", "=", e.repository.key)
        .where("kind", "=", e.kind)
        .where("key", "=", e.key);
      update =
        lastPostedAt === null
          ? update.where("last_posted_at", "is", null)
          : update.where("last_posted_at", "=", time(lastPostedAt));
      const result = await update.executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async closeHealthEpisode(e) {
      const row = await where(e).executeTakeFirst();
      if (!row) return null;
      const result = await db
        .deleteFrom("health_episodes")
        .where("repository_key", "=", e.repository.key)
        .where("kind", "=", e.kind)
        .where("key", "=", e.key)
        .where("opened_at", "=", time(readTime(row.opened_at)))
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0 ? read(row) : null;
    },
  };
}
