import { type Selectable, sql } from "kysely";
import type { NoticePreferences, OAuthState } from "../core/records.js";
import { Repo } from "../repo.js";
import type { Tables } from "./database.js";
import { type DialectValues, int, readTime, type StoreContext, time } from "./query-helpers.js";

// Who a Slack user is on GitHub (identity links), what they want to hear about (notice preferences),
// and the single-use states of the GitHub sign-in that links them (OAuth states). The core owns the
// last two records' types (src/core/records.ts: the account commands keep them).

export interface IdentityLink {
  teamId: string;
  slackUserId: string;
  githubLogin: string;
  githubId: number;
  linkedAt: Date;
}

/** Identity links: Slack user -> GitHub login. */
export interface IdentityLinkStore {
  getLink(teamId: string, slackUserId: string): Promise<IdentityLink | null>;
  /** Upsert on (teamId, slackUserId). */
  putLink(link: IdentityLink): Promise<void>;
  /** True when a link was removed. */
  deleteLink(teamId: string, slackUserId: string): Promise<boolean>;
  /** The Slack users linked to a GitHub login (compared case-insensitively), by team then user. */
  listLinksByGithubLogin(githubLogin: string): Promise<IdentityLink[]>;
}

/** Personal notices: each linked Slack user's preferences (none recorded: the defaults). */
export interface NoticePreferenceStore {
  getNoticePreferences(teamId: string, slackUserId: string): Promise<NoticePreferences | null>;
  /** Upsert on (teamId, slackUserId). */
  putNoticePreferences(preferences: NoticePreferences): Promise<void>;
  /** Every recorded preference (the poller asks the log for the groups they want). */
  listNoticePreferences(): Promise<NoticePreferences[]>;
}

/** OAuth `state` values: single use, bound to a Slack team and user, with an expiry. */
export interface OAuthStateStore {
  createOAuthState(state: OAuthState): Promise<void>;
  /**
   * Deletes the state and returns it; null when unknown, already used, or expired (`expiresAt <= now`).
   * Atomic: of two concurrent consumes of one state, exactly one gets it. Also sweeps expired states.
   */
  consumeOAuthState(state: string, now: Date): Promise<OAuthState | null>;
}

export type IdentityStore = IdentityLinkStore & NoticePreferenceStore & OAuthStateStore;

export function kyselyIdentities(ctx: StoreContext): IdentityStore {
  return {
    getLink: getLink(ctx),
    putLink: putLink(ctx),
    deleteLink: deleteLink(ctx),
    listLinksByGithubLogin: listLinksByGithubLogin(ctx),
    getNoticePreferences: getNoticePreferences(ctx),
    putNoticePreferences: putNoticePreferences(ctx),
    listNoticePreferences: listNoticePreferences(ctx),
    createOAuthState: createOAuthState(ctx),
    consumeOAuthState: consumeOAuthState(ctx),
  };
}

function getLink(ctx: StoreContext): IdentityStore["getLink"] {
  const { db } = ctx;
  return async (teamId, slackUserId) => {
    const row = await db
      .selectFrom("identity_links")
      .selectAll()
      .where("team_id", "=", teamId)
      .where("slack_user_id", "=", slackUserId)
      .executeTakeFirst();
    return row ? toLink(row) : null;
  };
}

function putLink(ctx: StoreContext): IdentityStore["putLink"] {
  const { db } = ctx;
  return async (link) => {
    const values = {
      github_login: link.githubLogin,
      github_id: link.githubId,
      linked_at: time(link.linkedAt),
    };
    await db
      .insertInto("identity_links")
      .values({ team_id: link.teamId, slack_user_id: link.slackUserId, ...values })
      .onConflict((oc) => oc.columns(["team_id", "slack_user_id"]).doUpdateSet(values))
      .execute();
  };
}

function deleteLink(ctx: StoreContext): IdentityStore["deleteLink"] {
  const { db } = ctx;
  return async (teamId, slackUserId) => {
    const deleted = await db
      .deleteFrom("identity_links")
      .where("team_id", "=", teamId)
      .where("slack_user_id", "=", slackUserId)
      .returning("team_id")
      .executeTakeFirst();
    return deleted !== undefined;
  };
}

function listLinksByGithubLogin(ctx: StoreContext): IdentityStore["listLinksByGithubLogin"] {
  const { db, v } = ctx;
  return async (githubLogin) => {
    const rows = await db
      .selectFrom("identity_links")
      .selectAll()
      .where(sql`lower(github_login)`, "=", githubLogin.toLowerCase())
      .orderBy(v.bytewise("team_id"))
      .orderBy(v.bytewise("slack_user_id"))
      .execute();
    return rows.map(toLink);
  };
}

function getNoticePreferences(ctx: StoreContext): IdentityStore["getNoticePreferences"] {
  const { db, v } = ctx;
  return async (teamId, slackUserId) => {
    const row = await db
      .selectFrom("notice_preferences")
      .selectAll()
      .where("team_id", "=", teamId)
      .where("slack_user_id", "=", slackUserId)
      .executeTakeFirst();
    return row ? toNoticePreferences(row, v) : null;
  };
}

function putNoticePreferences(ctx: StoreContext): IdentityStore["putNoticePreferences"] {
  const { db, v } = ctx;
  return async (p) => {
    const values = {
      enabled: p.enabled ? 1 : 0,
      groups: v.writeList(p.groups),
      muted: v.writeList(p.mutedRepositories.map((r) => r.fullName)),
      updated_at: time(p.updatedAt),
    };
    await db
      .insertInto("notice_preferences")
      .values({ team_id: p.teamId, slack_user_id: p.slackUserId, ...values })
      .onConflict((oc) => oc.columns(["team_id", "slack_user_id"]).doUpdateSet(values))
      .execute();
  };
}

function listNoticePreferences(ctx: StoreContext): IdentityStore["listNoticePreferences"] {
  const { db, v } = ctx;
  return async () => {
    const rows = await db
      .selectFrom("notice_preferences")
      .selectAll()
      .orderBy(v.bytewise("team_id"))
      .orderBy(v.bytewise("slack_user_id"))
      .execute();
    return rows.map((row) => toNoticePreferences(row, v));
  };
}

function createOAuthState(ctx: StoreContext): IdentityStore["createOAuthState"] {
  const { db } = ctx;
  return async (state) => {
    await db
      .insertInto("oauth_states")
      .values({
        state: state.state,
        team_id: state.teamId,
        slack_user_id: state.slackUserId,
        channel_id: state.channelId,
        response_url: state.responseUrl,
        expires_at: time(state.expiresAt),
        github_login: state.signedIn?.githubLogin ?? null,
        github_id: state.signedIn?.githubId ?? null,
      })
      .execute();
  };
}

function consumeOAuthState(ctx: StoreContext): IdentityStore["consumeOAuthState"] {
  const { db } = ctx;
  return async (state, now) => {
    const row = await db
      .deleteFrom("oauth_states")
      .where("state", "=", state)
      .returningAll()
      .executeTakeFirst();
    await ctx.pruneIfDue("oauth_states", now, async () => {
      // Its own statement; PostgreSQL skips the rows another transaction holds: never waits, so never
      // deadlocks with a concurrent consume.
      const expired = db
        .selectFrom("oauth_states")
        .select("state")
        .where("expires_at", "<=", time(now))
        .$if(ctx.kind === "postgres", (q) => q.forUpdate().skipLocked());
      await db.deleteFrom("oauth_states").where("state", "in", expired).execute();
    });
    if (!row || readTime(row.expires_at).getTime() <= now.getTime()) return null;
    return toOAuthState(row);
  };
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
    ...(row.github_login !== null && row.github_id !== null
      ? { signedIn: { githubLogin: row.github_login, githubId: int(row.github_id) } }
      : {}),
  };
}
