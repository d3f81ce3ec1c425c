import { readableBy } from "../../commands/cached-permission.js";
import { defaultNoticePreferences } from "../../commands/notify.js";
import type { PermissionLookup } from "../../commands/ports.js";
import { estimatedAt, type MergeQueues } from "../../core/merge-queue.js";
import { holdOf } from "../../core/pause.js";
import { type PermissionLevel, satisfies } from "../../core/permission-level.js";
import type { ListedFreeze } from "../../freezes/present.js";
import type { Logger } from "../../logger.js";
import type { Repo } from "../../repo.js";
import type { IdentityLinkStore, NoticePreferenceStore, SubscriptionStore } from "../../store/index.js";
import { pullsBy, queuesOf } from "../../use-cases/person-pulls.js";
import type { KnownBlock } from "../render-kit.js";
import { type HomeModel, type HomeView, renderHome } from "./render.js";

/** At most this many subscribed repositories are looked at for one Home tab (permission, then status). */
const HOME_MAX_REPOSITORIES = 50;
/** A person's Home tab is republished at most this often when their pull requests change. */
const HOME_REFRESH_DELAY_MS = 2_000;

export interface HomeTabDeps {
  store: Pick<IdentityLinkStore, "getLink"> &
    Pick<NoticePreferenceStore, "getNoticePreferences"> &
    Pick<SubscriptionStore, "listSubscriptions" | "listSubscribedRepositories">;
  /** The merge queue serving each repository's default branch (Mergify's: every branch). */
  queues: Pick<MergeQueues, "for">;
  /** What a login may do on a repository (cached briefly: cached-permission.ts). */
  permission: PermissionLookup;
  /** The levels the Home tab's buttons need (the commands' own: the click checks again). */
  levels: { dequeue: PermissionLevel; unpause: PermissionLevel };
  canLink: boolean;
  /** A repository's freeze window in progress or next (src/freezes); absent: none are shown. */
  nextFreeze?: (repo: Repo) => Promise<ListedFreeze | null>;
  /** Whether a repository's flake shield is on (src/shield); absent: not shown. */
  shieldOn?: (repo: Repo) => Promise<boolean>;
  /** views.publish */
  publish: (slackUserId: string, view: HomeView) => Promise<void>;
  logger: Logger;
  now?: () => Date;
}

/**
 * The app's Home tab (docs/commands.md, "Home tab"): published when the person opens it, after a button
 * of it, and when one of their pull requests changes. It shows only repositories the person can read on
 * GitHub (the subscribed ones), asked with the commands' permission lookup, cached briefly.
 */
export class HomeTab {
  private readonly pending = new Map<string, NodeJS.Timeout>();

  constructor(private readonly deps: HomeTabDeps) {}

  /** Publishes the person's Home tab, with what a button just did at the top. */
  async publish(teamId: string, slackUserId: string, notice?: KnownBlock[]): Promise<void> {
    const model = await this.model(teamId, slackUserId);
    await this.deps.publish(slackUserId, renderHome(notice ? { ...model, notice } : model));
  }

  /** Republishes the person's Home tab shortly (several changes in a row publish it once). */
  refreshSoon(person: { teamId: string; slackUserId: string }): void {
    const key = `${person.teamId}:${person.slackUserId}`;
    if (this.pending.has(key)) return;
    const timer = setTimeout(() => {
      this.pending.delete(key);
      this.publish(person.teamId, person.slackUserId).catch((error: unknown) =>
        this.deps.logger.warn({ err: error, user: person.slackUserId }, "could not refresh a Home tab"),
      );
    }, HOME_REFRESH_DELAY_MS);
    timer.unref();
    this.pending.set(key, timer);
  }

  stop(): void {
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }

  async model(teamId: string, slackUserId: string): Promise<HomeModel> {
    const { store } = this.deps;
    const now = this.deps.now?.() ?? new Date();
    const link = await store.getLink(teamId, slackUserId);
    const empty = { queued: [], paused: [], subscriptions: [], repositories: [] };
    if (!link) return { login: null, canLink: this.deps.canLink, preferences: null, now, ...empty };
    const login = link.githubLogin;
    const readable = await this.readable(login);
    const queued: HomeModel["queued"] = [];
    const paused: HomeModel["paused"] = [];
    const couldNot = (repo: Repo, error: unknown) =>
      this.deps.logger.warn({ err: error, repository: repo }, "Home tab: could not read a queue");
    const statuses = await queuesOf(this.deps.queues, readable, couldNot);
    for (const { repo, level, state } of statuses) {
      if (!state) continue;
      for (const { entry, pull, position } of pullsBy(state, login)) {
        const eta = estimatedAt(entry.estimate, now);
        queued.push({
          repo,
          number: pull.number,
          title: pull.title,
          url: pull.url,
          position,
          eta: eta ? new Date(eta) : null,
          canDequeue: satisfies(level, this.deps.levels.dequeue),
        });
      }
      if (state.pause) {
        paused.push({
          repo,
          reason: state.pause.reason || null,
          since: state.pause.pausedAt ? new Date(state.pause.pausedAt) : null,
          canUnpause: satisfies(level, this.deps.levels.unpause),
          hold: holdOf(state.pause),
          by: state.pause.by,
          ...(state.pause.branch !== undefined ? { branch: state.pause.branch } : {}),
          ...(state.pause.except ? { except: state.pause.except } : {}),
        });
      }
    }
    const freezes = await this.freezes(readable.map((r) => r.repo));
    const shielded = await this.shielded(readable.map((r) => r.repo));
    const keys = new Set(readable.map((r) => r.repo.key));
    const subscriptions = (await store.listSubscriptions())
      .filter((s) => keys.has(s.repository.key) && (s.teamId === null || s.teamId === teamId))
      .map((s) => ({
        channelId: s.channelId,
        repo: s.repository,
        branchGlob: s.branchGlob,
        groups: s.groups,
      }));
    const preferences =
      (await store.getNoticePreferences(teamId, slackUserId)) ??
      defaultNoticePreferences(teamId, slackUserId, now);
    return {
      login,
      canLink: this.deps.canLink,
      queued,
      paused,
      ...(freezes.length ? { freezes } : {}),
      ...(shielded.length ? { shielded } : {}),
      subscriptions,
      repositories: readable.map((r) => r.repo),
      preferences: {
        enabled: preferences.enabled,
        groups: preferences.groups,
        muted: preferences.mutedRepositories,
      },
      now,
    };
  }

  /** The next freeze window of each repository, soonest first; one that cannot be read is left out. */
  private async freezes(repos: Repo[]): Promise<NonNullable<HomeModel["freezes"]>> {
    const next = this.deps.nextFreeze;
    if (!next) return [];
    const found = await Promise.all(
      repos.map(async (repo) => ({ repo, freeze: await next(repo).catch(() => null) })),
    );
    return found
      .flatMap(({ repo, freeze }) => (freeze ? [{ repo, freeze }] : []))
      .sort((a, b) => (a.freeze.window?.start.getTime() ?? 0) - (b.freeze.window?.start.getTime() ?? 0));
  }

  /** The repositories whose flake shield is on; one that cannot be read is left out. */
  private async shielded(repos: Repo[]): Promise<Repo[]> {
    const on = this.deps.shieldOn;
    if (!on) return [];
    const found = await Promise.all(
      repos.map(async (repo) => ((await on(repo).catch(() => false)) ? [repo] : [])),
    );
    return found.flat();
  }

  /** The subscribed repositories the login can read, with its level on each. A failed lookup hides one. */
  private async readable(login: string): Promise<{ repo: Repo; level: PermissionLevel }[]> {
    const repos = (await this.deps.store.listSubscribedRepositories()).slice(0, HOME_MAX_REPOSITORIES);
    const readable = await readableBy(repos, (repo) => repo, login, this.deps.permission, 4);
    return readable.map(({ item, level }) => ({ repo: item, level }));
  }
}
