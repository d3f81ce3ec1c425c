import { LRUCache } from "lru-cache";
import pLimit from "p-limit";
import { DEFAULT_NOTICE_GROUPS, defaultNoticePreferences, noticeWanted } from "../commands/notify.js";
import type { PermissionLookup } from "../commands/ports.js";
import type { EventGroup } from "../core/event-groups.js";
import { satisfies } from "../core/permission-level.js";
import { CURRENT_STORED_EVENTS, type StoredEvents } from "../core/pushed-events.js";
import { groupOfEvent, OUT_OF_QUEUE_KINDS, QUEUE_WIDE_KINDS, type QueueEvent } from "../core/queue.js";
import type { Logger } from "../logger.js";
import type { Repo } from "../repo.js";
import type { IdentityLink, IdentityLinkStore, NoticePreferenceStore, ThreadStore } from "../store/index.js";
import { ENTRY_LOOKBACK_MS, type HistoryReader, nextUp } from "./notes.js";
import type { ThreadState } from "./types.js";

/**
 * Personal notices (docs/notifications.md, "Personal notices"): the pull request's author, when they
 * linked their Slack account, hears about it in a direct message. A person's direct messages go through
 * the outbox like a channel's, under the address `dm:<team>:<user>` (the poster opens the conversation).
 */
const DIRECT_PREFIX = "dm:";

export function directAddress(teamId: string, slackUserId: string): string {
  return `${DIRECT_PREFIX}${teamId}:${slackUserId}`;
}

/** The person a direct-message address names, or null for a channel. */
export function parseDirectAddress(address: string): { teamId: string; slackUserId: string } | null {
  if (!address.startsWith(DIRECT_PREFIX)) return null;
  const [teamId, slackUserId, ...rest] = address.slice(DIRECT_PREFIX.length).split(":");
  return teamId && slackUserId && rest.length === 0 ? { teamId, slackUserId } : null;
}

/** At most this many pull requests' authors are remembered; the least recently used go first. */
const MAX_AUTHORS = 10_000;
/** An author is remembered a day (authors never change; a pull request's events come within days). */
const AUTHOR_MS = 24 * 60 * 60_000;
/** Authors looked up at once for a read's events (GitHub's secondary limits frown on many at once). */
const AUTHOR_LOOKUPS_AT_ONCE = 4;
/** A failed lookup is remembered this long (the backlog's other events of the pull request skip it). */
const FAILED_AUTHOR_MS = 60_000;
/** Checks starts whose "you're next" is remembered (route, then forPeople, ask for the same event). */
const MAX_NEXT = 1_000;

export interface PersonalNoticesDeps {
  store: Pick<IdentityLinkStore, "getLink" | "listLinksByGithubLogin"> &
    Pick<NoticePreferenceStore, "getNoticePreferences" | "listNoticePreferences"> &
    Pick<ThreadStore, "listThreadsOfRepository"> &
    HistoryReader;
  /** The GitHub login of a pull request's author, or null when GitHub does not know the pull request. */
  author: (repository: Repo, number: number) => Promise<string | null>;
  /** What a login may do on a repository (cached briefly: cached-permission.ts). */
  permission: PermissionLookup;
  /** A person's pull request changed (their Home tab is refreshed). */
  onPullRequestChange?: (person: { teamId: string; slackUserId: string }) => void;
  /**
   * How a thread's stored state is read back; the wiring gives the backends' reader, which reads states
   * an earlier version stored in its format too. Default: states as this version stores them.
   */
  storedEvents?: StoredEvents;
  logger: Logger;
  now?: () => Date;
  /** The clock the authors' time to live is read on, in ms (tests move it); default: the process's. */
  cacheNow?: () => number;
}

/** Who hears about an event in a direct message, and which groups the poller must read for them. */
export class PersonalNotices {
  /**
   * Authors never change: remembered per pull request (bounded), looked up once even when several events
   * of it ask at the same time (the lookup under way is shared).
   */
  private readonly authors: LRUCache<string, Promise<string | null>>;
  /** Per checks start: whether it is its pull request's first of the entry ("you're next"), with the estimate. */
  private readonly nexts = new LRUCache<string, Promise<{ estimatedMergeAt: string | null } | null>>({
    max: MAX_NEXT,
  });
  private groups: EventGroup[] | undefined;

  constructor(private readonly deps: PersonalNoticesDeps) {
    this.authors = new LRUCache({
      max: MAX_AUTHORS,
      ttl: AUTHOR_MS,
      ...(deps.cacheNow ? { perf: { now: deps.cacheNow }, ttlResolution: 0 } : {}),
    });
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /**
   * The groups some person's notices want: the poller asks the log for them too. Read again at the
   * start of each poller pass that reads a log (refreshGroups), so a change of preferences counts from the next pass.
   */
  async wantedGroups(): Promise<EventGroup[]> {
    return this.groups ?? this.refreshGroups();
  }

  async refreshGroups(): Promise<EventGroup[]> {
    // The checks' starts too: "you're next" is a queue notice told when a pull request's checks start.
    const wanted = new Set<EventGroup>([...DEFAULT_NOTICE_GROUPS, "checks"]);
    for (const p of await this.deps.store.listNoticePreferences())
      if (p.enabled) for (const g of p.groups) wanted.add(g as EventGroup);
    this.groups = [...wanted].sort();
    return this.groups;
  }

  /**
   * The direct-message addresses an event of `repository`'s log goes to: the pull request's linked
   * author, and the linked person who queued it, for its own events (once each, the same person or
   * not); for a pause, each person whose pull request of the repository is in its queue (as their
   * notices last showed it). Only people whose preferences want it (a pull request's first checks start
   * in an entry, "you're next", counts as a queue notice), who linked before the event, and who can read
   * the repository now. A GitHub lookup that fails skips the person, logged.
   */
  async route(repository: Repo, event: QueueEvent): Promise<string[]> {
    const own = groupOfEvent(event);
    // The queue's health is for channels alone.
    if (!own || own === "health" || QUEUE_WIDE_KINDS.has(event.kind)) return [];
    const group = (await this.next(repository, event)) ? "queue" : own;
    const people =
      group === "pause"
        ? await this.holders(repository)
        : event.pull
          ? await this.pullPeople(repository, event, event.pull)
          : [];
    if (group !== "pause") for (const p of people) this.deps.onPullRequestChange?.(p);
    const at = Date.parse(event.at);
    const addresses: string[] = [];
    for (const link of people) {
      if (link.linkedAt.getTime() > at) continue;
      const preferences =
        (await this.deps.store.getNoticePreferences(link.teamId, link.slackUserId)) ??
        defaultNoticePreferences(link.teamId, link.slackUserId, this.now());
      if (!noticeWanted(preferences, repository, group)) continue;
      if (!(await this.canRead(repository, link.githubLogin))) continue;
      addresses.push(directAddress(link.teamId, link.slackUserId));
    }
    return addresses;
  }

  /** The event as its people's direct messages show it: "you're next", with the estimate, on a first checks start. */
  async forPeople(repository: Repo, event: QueueEvent): Promise<QueueEvent> {
    const next = await this.next(repository, event);
    return next ? { ...event, notes: { ...event.notes, next } } : event;
  }

  private next(repository: Repo, event: QueueEvent): Promise<{ estimatedMergeAt: string | null } | null> {
    if (event.kind !== "checks-started") return Promise.resolve(null);
    const key = `${repository.key}#${event.id}`;
    const known = this.nexts.get(key);
    if (known) return known;
    const found = nextUp(this.deps.store, repository, event).catch((error: unknown) => {
      this.deps.logger.warn(
        { repository, err: error },
        "could not read the queue's history: no \"you're next\"",
      );
      return null;
    });
    this.nexts.set(key, found);
    return found;
  }

  /** The pull request's linked author and the linked person who queued it, each once. */
  private async pullPeople(repository: Repo, event: QueueEvent, number: number): Promise<IdentityLink[]> {
    const people = new Map<string, IdentityLink>();
    const queuer = await this.queuer(repository, event, number);
    const queuers = queuer ? await this.deps.store.listLinksByGithubLogin(queuer) : [];
    for (const link of [...(await this.authorLinks(repository, number)), ...queuers])
      people.set(directAddress(link.teamId, link.slackUserId), link);
    return [...people.values()];
  }

  /** Who queued the pull request: its entry says (this event, or its latest entry in the history). */
  private async queuer(repository: Repo, event: QueueEvent, number: number): Promise<string | null> {
    if (event.kind === "entered") return event.queuedBy ?? null;
    const at = Date.parse(event.at);
    try {
      const entries = await this.deps.store.readPullQueueEvents(
        repository,
        number,
        { from: new Date(at - ENTRY_LOOKBACK_MS), to: new Date(at + 1) },
        ["entered"],
      );
      const entry = entries.at(-1);
      return entry?.kind === "entered" ? (entry.queuedBy ?? null) : null;
    } catch (error) {
      this.deps.logger.warn(
        { repository, pullRequest: number, err: error },
        "could not read who queued a pull request: their direct message is left out",
      );
      return null;
    }
  }

  private async canRead(repository: Repo, login: string): Promise<boolean> {
    try {
      return satisfies(await this.deps.permission(repository, login), "read");
    } catch (error) {
      this.deps.logger.warn(
        { repository, login, err: error },
        "could not look up a permission: no direct message for this event",
      );
      return false;
    }
  }

  /**
   * Looks up, a few at a time, the authors of the pull requests `events` concern that are not remembered
   * yet: one GitHub request per pull request, however many of its events a read brings (a backlog).
   * A failed lookup is remembered a minute: route skips the person's notices of that pull request, logged.
   */
  async lookUpAuthors(repository: Repo, events: readonly QueueEvent[]): Promise<void> {
    const numbers = new Set<number>();
    for (const event of events) {
      const group = groupOfEvent(event);
      if (group && group !== "pause" && group !== "health" && !QUEUE_WIDE_KINDS.has(event.kind) && event.pull)
        numbers.add(event.pull);
    }
    await pLimit(AUTHOR_LOOKUPS_AT_ONCE).map([...numbers], (n) =>
      this.author(repository, n).catch(() => null),
    );
  }

  private author(repository: Repo, number: number): Promise<string | null> {
    const key = `${repository.key}#${number}`;
    const known = this.authors.get(key);
    if (known) return known;
    const lookup = this.deps.author(repository, number);
    this.authors.set(key, lookup);
    // A failure is remembered a minute (the backlog's other events of the pull request skip it, as it
    // does), then forgotten: a later event asks again.
    lookup.catch(() => {
      if (this.authors.peek(key) === lookup) this.authors.set(key, lookup, { ttl: FAILED_AUTHOR_MS });
    });
    return lookup;
  }

  private async authorLinks(repository: Repo, number: number): Promise<IdentityLink[]> {
    let login: string | null;
    try {
      login = await this.author(repository, number);
    } catch (error) {
      this.deps.logger.warn(
        { repository, pullRequest: number, err: error },
        "could not read a pull request's author: no direct message for this event",
      );
      return [];
    }
    return login ? this.deps.store.listLinksByGithubLogin(login) : [];
  }

  /** The people whose pull request of the repository is in its queue, as their own notices show it. */
  private async holders(repository: Repo): Promise<IdentityLink[]> {
    const threads = await this.deps.store.listThreadsOfRepository(repository, DIRECT_PREFIX);
    const people = new Map<string, IdentityLink>();
    const stored = this.deps.storedEvents ?? CURRENT_STORED_EVENTS;
    for (const thread of threads) {
      const state = thread.state as ThreadState;
      // A thread whose latest event ended its stay in the queue: a pause does not concern it.
      if (OUT_OF_QUEUE_KINDS.has(stored.kind(state.latestType))) continue;
      const person = parseDirectAddress(thread.channelId);
      if (!person || people.has(thread.channelId)) continue;
      const link = await this.deps.store.getLink(person.teamId, person.slackUserId);
      if (link) people.set(thread.channelId, link);
    }
    return [...people.values()];
  }
}
