import { LRUCache } from "lru-cache";
import type { MergeQueues } from "../core/merge-queue.js";
import type { QueueEvent } from "../core/queue.js";
import { freezeReason } from "../freezes/runner.js";
import type { Logger } from "../logger.js";
import type { Repo } from "../repo.js";
import type { HealthEpisode, Store } from "../store/index.js";
import type { ChatMessage, Inline } from "../wording/message.js";
import {
  type Condition,
  failingChecks,
  failingChecksOf,
  type Pause,
  passAfter,
  pausedLong,
  type QueueState,
  queueState,
  slowChecks,
  stalled,
} from "./assess.js";
import { branchOfPull, lookAtHead } from "./head-look.js";
import { HealthHistory } from "./history-cache.js";
import { QueuePauseLook } from "./queue-pauses.js";
import { endedMessage, endingOf, endingWords, openedMessage, storedEnding } from "./text.js";
import { HOUR_MS } from "./thresholds.js";

/** What the evaluator keeps and reads in the store. */
export type HealthStore = Pick<
  Store,
  | "openHealthEpisode"
  | "listHealthEpisodes"
  | "addHealthEpisodePosts"
  | "reviseHealthEpisode"
  | "closeHealthEpisode"
  | "listUneditedHealthEpisodes"
  | "recordHealthEndingEdited"
  | "readQueueEvents"
  | "readRecentQueueEvents"
  | "listSubscriptions"
  | "getPauseAttribution"
  | "getScheduledUnpause"
  | "listFreezes"
  | "claimOnce"
  | "finishOnce"
>;

/** Posts a top-level message in a channel (its id), and edits one: the chat surface lays it out. */
export interface AlertPoster {
  post(channel: string, message: ChatMessage, key: string): Promise<string>;
  update(channel: string, ts: string, message: ChatMessage): Promise<void>;
}

export interface HealthSettings {
  /** HEALTH_STALL_MINUTES: the stall's threshold; null: from the history. */
  stallMinutes: number | null;
  /** HEALTH_PAUSE_REMINDER_HOURS. */
  pauseReminderHours: number;
}

export interface HealthEvaluatorDeps {
  store: HealthStore;
  poster: AlertPoster;
  settings: HealthSettings;
  githubWebUrl: string;
  owner: string;
  logger: Logger;
  now: () => Date;
  /**
   * The merge queues, read once when a stalled or slow-checks alert opens to name the checks still
   * pending and what holds the head, and for the pauses in force (queue-pauses.ts); without them the
   * alert says what the history tells.
   */
  queues?: Pick<MergeQueues, "for">;
}

/** A long pause is reminded again after this long at most. */
export const PAUSE_REMINDER_EVERY_MS = 24 * HOUR_MS;
/**
 * A long pause the queue no longer holds, while the history has not yet recorded its resume (the poller
 * reads it shortly), is ended at the latest this long after a replica first saw it: its edit then names
 * who resumed, as the history tells.
 */
export const RESUME_RECORD_WAIT_MS = 10 * 60_000;
/**
 * An opened alert with no message yet is posted by any replica after this long; a closed one whose
 * messages were not recorded as edited (its replica died while editing) is edited by any replica this
 * long after its closing.
 */
export const UNPOSTED_AFTER_MS = 5 * 60_000;
/**
 * An alert with messages in some of its channels but not all (its replica died while posting, or a channel
 * did not take it) is posted in the others by any replica once its last message is this old: longer than
 * UNPOSTED_AFTER_MS, so that a live replica whose next post Slack answers slowly is not raced.
 */
export const PARTLY_POSTED_AFTER_MS = 10 * 60_000;
/**
 * The once-claims' scopes (src/store/once-claims.ts): a reminder, claimed once per episode and the time
 * it was last posted; an ended alert's edit taken over, once per episode and closing.
 */
const REMINDER_SCOPE = "health-reminder";
const ENDING_SCOPE = "health-ending";
/** Those claims are forgotten after this (longer than the longest lease, a long pause's day). */
const CLAIMS_KEPT_MS = 2 * PAUSE_REMINDER_EVERY_MS;
/** An episode's name in those keys. */
const episodeKey = (e: HealthEpisode, at: Date) =>
  `${e.repository.key}\n${e.kind}\n${e.key}@${at.toISOString()}`;
/** The kinds of events the alerts are judged on. */
export const NORMAL_KINDS = [
  "entered",
  "left",
  "merged",
  "checks-started",
  "checks-ended",
  "checks-not-started",
  "paused",
  "resumed",
];

/**
 * The queue watching itself (docs/notifications.md, "The queue's health"): each pass (`tick`: one
 * replica's, every 30 s, as durable work: passes.ts), for each repository a channel follows with the `health` group, judges its recorded history against its own
 * normal; an alert is opened once per episode in the store (whichever replica claims it posts it in each
 * such channel) and its posts edited once it ends. Episodes whose condition ended while no replica ran
 * are closed on the first pass.
 */
export class HealthEvaluator {
  /** The 7 days' normal, kept a few minutes per repository; each pass reads only the last stretch. */
  readonly history: HealthHistory;
  /** Passes finished, failed or not (tests wait on it rather than on time). */
  passCount = 0;
  /** The pauses in force as the queue tells them; null without the queues (the history's then). */
  private readonly pauseLook: QueuePauseLook | null;
  /** Long pauses the queue no longer holds whose resume the history has not recorded: first seen, ms. */
  private readonly unrecordedResumes = new LRUCache<string, number>({ max: 2_000 });

  constructor(private readonly deps: HealthEvaluatorDeps) {
    this.history = new HealthHistory({
      history: deps.store,
      stallMinutes: deps.settings.stallMinutes,
      kinds: NORMAL_KINDS,
      now: deps.now,
    });
    this.pauseLook = deps.queues
      ? new QueuePauseLook({ queues: deps.queues, logger: deps.logger, now: deps.now })
      : null;
  }

  /** One pass over every repository followed for its health. */
  async tick(): Promise<void> {
    try {
      const channels = new Map<string, { repository: Repo; channels: Set<string> }>();
      for (const sub of await this.deps.store.listSubscriptions()) {
        if (!sub.groups.includes("health")) continue;
        const entry = channels.get(sub.repository.key) ?? { repository: sub.repository, channels: new Set() };
        entry.channels.add(sub.channelId);
        channels.set(sub.repository.key, entry);
      }
      for (const { repository, channels: chosen } of channels.values()) {
        await this.evaluate(repository, [...chosen]).catch((error: unknown) =>
          this.deps.logger.warn({ err: error, repository: repository.fullName }, "health: evaluation failed"),
        );
      }
      // Episodes of repositories no channel follows for their health any more end here.
      for (const episode of await this.deps.store.listHealthEpisodes())
        if (!channels.has(episode.repository.key))
          await this.close(episode, "no channel follows its health any more");
      await this.finishEndings();
    } finally {
      this.passCount += 1;
    }
  }

  /** Judges one repository: opens, reminds and closes its episodes. */
  async evaluate(repository: Repo, channels: readonly string[]): Promise<void> {
    const { store } = this.deps;
    const now = this.deps.now();
    const { normal, events } = await this.history.read(repository);
    const state = queueState(events);
    // The pauses in force, as the queue says (null: it did not answer; its long pauses wait a pass).
    const held = this.pauseLook ? await this.pauseLook.held(repository, events, state.pauses) : state.pauses;
    const conditions = [
      stalled(state, normal, now),
      slowChecks(state, normal, now),
      ...failingChecks(events, now),
      ...(held ? await this.pausedLong(repository, state, held, now) : []),
    ].filter((c): c is Condition => c !== null);
    const open = await store.listHealthEpisodes(repository);
    const openKeys = new Set(open.map((e) => `${e.kind}\n${e.key}`));
    for (const condition of conditions) {
      if (!openKeys.has(`${condition.kind}\n${condition.key}`))
        await this.open(repository, condition, channels, events);
    }
    const holding = new Set(conditions.map((c) => `${c.kind}\n${c.key}`));
    for (const episode of open) {
      if (holding.has(`${episode.kind}\n${episode.key}`)) {
        if (episode.kind === "failing-check") await this.revise(episode, conditions);
        // The channels without its message (all when none was posted) are posted to after a while.
        const told = new Set(episode.posts.map((p) => p.channel));
        const untold = channels.filter((c) => !told.has(c));
        if (untold.length > 0)
          await this.remind(
            episode,
            conditions,
            untold,
            told.size === 0 ? UNPOSTED_AFTER_MS : PARTLY_POSTED_AFTER_MS,
          );
        else if (episode.kind === "paused-long")
          await this.remind(episode, conditions, channels, PAUSE_REMINDER_EVERY_MS);
        continue;
      }
      if (episode.kind === "paused-long" && held === null) continue;
      const ending = this.ending(episode, events, state, held ?? state.pauses, now);
      if (ending !== null) await this.close(episode, ending);
    }
  }

  /** The pauses held for long, the repository's and each branch's, of those in force. */
  private async pausedLong(
    repository: Repo,
    state: QueueState,
    inForce: ReadonlyMap<string, Pause>,
    now: Date,
  ): Promise<(Condition | null)[]> {
    if (inForce.size === 0) return [];
    const { store, settings } = this.deps;
    const [attribution, timed, freezes] = await Promise.all([
      store.getPauseAttribution(repository),
      store.getScheduledUnpause(repository),
      store.listFreezes(repository),
    ]);
    return [...inForce.values()].map((held) => {
      // Yardmaster's record names who paused when it is of this pause (made at its start or since).
      const ours =
        attribution?.action === "pause" && attribution.at.getTime() >= held.since - 60_000
          ? attribution
          : null;
      return pausedLong(state, held, settings.pauseReminderHours * HOUR_MS, now, {
        timed: timed !== null,
        freeze: freezes.some((f) => freezeReason(f) === held.reason || freezeReason(f) === ours?.reason),
        by: ours?.actor ?? null,
        reason: ours?.reason ?? null,
      });
    });
  }

  /** What ended an episode whose condition no longer holds; null when it goes on (a failing check not passed). */
  private ending(
    episode: HealthEpisode,
    events: readonly QueueEvent[],
    state: QueueState,
    held: ReadonlyMap<string, Pause>,
    now: Date,
  ): Inline | null {
    const place = this.place(episode.repository, now);
    const after = (e: QueueEvent) => Date.parse(e.at) >= episode.since.getTime();
    switch (episode.kind) {
      case "stalled": {
        const merge = events.find((e) => after(e) && e.kind === "merged");
        if (merge) return endingWords(place, { kind: "merged", pull: merge.pull });
        return endingWords(place, { kind: state.waiting.size === 0 ? "emptied" : "gone" });
      }
      case "failing-check": {
        // Ends once every check it names has passed since its last failure.
        const passes = failingChecksOf(episode.facts).map((c) =>
          passAfter(events, Date.parse(c.lastFailureAt)),
        );
        if (passes.some((pass) => !pass)) return null;
        const last = passes.at(-1);
        return passes.length > 1
          ? endingWords(place, { kind: "passed-all" })
          : endingWords(place, { kind: "passed", pull: last?.pull ?? null });
      }
      case "paused-long": {
        // A branch's pause ends with a resume of its branch; the repository's with any resume.
        const branch = typeof episode.facts.branch === "string" ? episode.facts.branch : null;
        const resumed = events.find(
          (e) => after(e) && e.kind === "resumed" && (branch === null || e.branch === branch),
        );
        const stillHeld = held.has(branch ?? "");
        if (!resumed && !stillHeld && this.resumeUnrecorded(episode, state, now)) return null;
        return endingWords(place, {
          kind: resumed || !stillHeld ? "resumed" : "gone",
          by: resumed?.kind === "resumed" ? resumed.by : null,
        });
      }
      default:
        return endingWords(place, { kind: "checks-ended" });
    }
  }

  /**
   * The queue no longer holds the pause but the history, which names who resumed, has not recorded its
   * resume yet: wait for it, RESUME_RECORD_WAIT_MS at most.
   */
  private resumeUnrecorded(episode: HealthEpisode, state: QueueState, now: Date): boolean {
    const branch = typeof episode.facts.branch === "string" ? episode.facts.branch : null;
    const id = `${episode.repository.key}\n${episode.key}`;
    if (!state.pauses.has(branch ?? "")) {
      this.unrecordedResumes.delete(id);
      return false;
    }
    const first = this.unrecordedResumes.get(id) ?? now.getTime();
    if (now.getTime() - first >= RESUME_RECORD_WAIT_MS) {
      this.unrecordedResumes.delete(id);
      return false;
    }
    this.unrecordedResumes.set(id, first);
    return true;
  }

  private place(repository: Repo, now: Date) {
    return { repository, githubWebUrl: this.deps.githubWebUrl, now };
  }

  /** Claims the episode; the replica that did posts its notice in each channel. */
  private async open(
    repository: Repo,
    condition: Condition,
    channels: readonly string[],
    events: readonly QueueEvent[],
  ): Promise<void> {
    const { store, owner, logger } = this.deps;
    const now = this.deps.now();
    const opened = await store.openHealthEpisode({
      repository,
      kind: condition.kind,
      key: condition.key,
      since: condition.since,
      openedAt: now,
      openedBy: owner,
      facts: condition.facts,
    });
    if (!opened) return;
    logger.info(
      { repository: repository.fullName, kind: condition.kind, key: condition.key },
      "health: alert opened",
    );
    const told = await this.withHead(repository, condition, events);
    const message = openedMessage(this.place(repository, now), told);
    const episode = { repository, ...told, openedAt: now, openedBy: owner, posts: [], lastPostedAt: now };
    await this.postAll(episode, channels, message, `${repository.key}:${condition.kind}:${condition.key}`);
  }

  /**
   * The checks failing for everyone changed (one more, one passed): the alert's facts are replaced and
   * its posts edited to name them, by one replica.
   */
  private async revise(episode: HealthEpisode, conditions: readonly Condition[]): Promise<void> {
    const condition = conditions.find((c) => c.kind === episode.kind && c.key === episode.key);
    if (!condition) return;
    const names = (facts: Record<string, unknown>) =>
      failingChecksOf(facts)
        .map((c) => c.check)
        .join("\n");
    if (names(condition.facts) === names(episode.facts)) return;
    const now = this.deps.now();
    const { store } = this.deps;
    const revised = await store.reviseHealthEpisode(episode, condition.facts, episode.lastPostedAt, now);
    if (!revised) return;
    this.deps.logger.info(
      { repository: episode.repository.fullName, checks: failingChecksOf(condition.facts).length },
      "health: failing checks changed",
    );
    const message = openedMessage(this.place(episode.repository, now), condition);
    for (const post of revised.posts) {
      await this.deps.poster.update(post.channel, post.ts, message).catch((error: unknown) => {
        this.deps.logger.warn({ err: error, channel: post.channel }, "health: alert not edited");
      });
    }
  }

  /** A stalled or slow-checks condition with what the queue says of its head (`facts.look`), read once. */
  private async withHead(repository: Repo, condition: Condition, events: readonly QueueEvent[]) {
    const { queues, logger } = this.deps;
    if (!queues || (condition.kind !== "stalled" && condition.kind !== "slow-checks")) return condition;
    const f = condition.facts;
    const pull =
      condition.kind === "stalled"
        ? ((f.holding as { pull?: number } | null)?.pull ?? (f.waiting as number[])[0] ?? null)
        : ((f.pulls as number[])[0] ?? null);
    const look = await lookAtHead(queues, { repo: repository, branch: branchOfPull(events, pull) }, logger);
    return look ? { ...condition, facts: { ...f, look } } : condition;
  }

  /**
   * A long pause is said again every PAUSE_REMINDER_EVERY_MS at most; an alert with no message in some of
   * its channels (its replica died before posting there, or the channel did not take it) is posted there
   * after UNPOSTED_AFTER_MS (none posted) or PARTLY_POSTED_AFTER_MS (some). One replica claims each.
   */
  private async remind(
    episode: HealthEpisode,
    conditions: readonly Condition[],
    channels: readonly string[],
    afterMs: number,
  ) {
    const { store, owner } = this.deps;
    const now = this.deps.now();
    const last = episode.lastPostedAt;
    if (!last || now.getTime() - last.getTime() < afterMs) return;
    const condition = conditions.find((c) => c.kind === episode.kind && c.key === episode.key);
    if (!condition) return;
    // Claimed once per time last posted; a replica that dies holding it is taken over `afterMs` on,
    // as is one whose posts all failed (a post that lands moves `lastPostedAt`: another claim).
    const claimKey = episodeKey(episode, last);
    const until = new Date(now.getTime() + afterMs);
    const claim = { owner, now, until, keepMs: CLAIMS_KEPT_MS };
    if ((await store.claimOnce(REMINDER_SCOPE, claimKey, claim)) !== "claimed") return;
    const message = openedMessage(this.place(episode.repository, now), condition);
    const key = `${episode.repository.key}:${episode.kind}:${episode.key}:${now.toISOString()}`;
    if ((await this.postAll(episode, channels, message, key)) > 0)
      await store.finishOnce(REMINDER_SCOPE, claimKey, owner, this.deps.now());
  }

  /**
   * Posts the notice in each channel, recording each message as it lands (so that no replica takes the
   * episode for unposted meanwhile); once the episode has closed (another replica read what ended it),
   * the message just posted is edited to say how, and no other channel is told.
   */
  private async postAll(
    episode: HealthEpisode,
    channels: readonly string[],
    message: ChatMessage,
    key: string,
  ): Promise<number> {
    const { store, poster, logger } = this.deps;
    let posted = 0;
    for (const channel of channels) {
      let post: { channel: string; ts: string };
      try {
        post = { channel, ts: await poster.post(channel, message, key) };
      } catch (error) {
        logger.warn({ err: error, channel }, "health: alert not posted");
        continue;
      }
      posted += 1;
      const recorded = await store.addHealthEpisodePosts(episode, [post], this.deps.now());
      if (recorded.recorded) continue;
      const now = this.deps.now();
      const ending =
        recorded.ending !== null
          ? endingOf(recorded.ending)
          : endingWords(this.place(episode.repository, now), { kind: "gone" });
      await this.edit({ ...episode, posts: [post] }, ending, now);
      break;
    }
    return posted;
  }

  /** Closes the episode (one replica does) and edits its notices to say how it ended. */
  private async close(episode: HealthEpisode, ending: Inline): Promise<void> {
    const now = this.deps.now();
    const closed = await this.deps.store.closeHealthEpisode(episode, storedEnding(ending), now);
    if (!closed) return;
    this.deps.logger.info(
      { repository: closed.repository.fullName, kind: closed.kind, key: closed.key },
      "health: alert ended",
    );
    await this.edit(closed, ending, now);
    await this.deps.store.recordHealthEndingEdited(closed);
  }

  /**
   * Closed episodes whose edit was taken on UNPOSTED_AFTER_MS ago and not recorded as done (the replica
   * that closed them died while editing): one replica claims each once (per closing), for
   * UNPOSTED_AFTER_MS (then another, if it died too), and edits its messages.
   */
  private async finishEndings(): Promise<void> {
    const { store, logger, owner } = this.deps;
    const now = this.deps.now();
    const unedited = await store.listUneditedHealthEpisodes(new Date(now.getTime() - UNPOSTED_AFTER_MS));
    for (const closed of unedited) {
      const claim = {
        owner,
        now,
        until: new Date(now.getTime() + UNPOSTED_AFTER_MS),
        keepMs: CLAIMS_KEPT_MS,
      };
      const claimKey = episodeKey(closed, closed.closedAt);
      if ((await store.claimOnce(ENDING_SCOPE, claimKey, claim)) !== "claimed") continue;
      logger.info(
        { repository: closed.repository.fullName, kind: closed.kind, key: closed.key },
        "health: ended alert's edit taken over",
      );
      // Said as of its closing (how long it lasted), as its closer would have.
      await this.edit(closed, endingOf(closed.ending), closed.closedAt);
      await store.recordHealthEndingEdited(closed);
      await store.finishOnce(ENDING_SCOPE, claimKey, owner, this.deps.now());
    }
  }

  /** Edits an episode's posts to say how it ended. */
  private async edit(closed: HealthEpisode, ending: Inline, now: Date): Promise<void> {
    const message = endedMessage(this.place(closed.repository, now), closed, ending);
    for (const post of closed.posts) {
      await this.deps.poster.update(post.channel, post.ts, message).catch((error: unknown) => {
        this.deps.logger.warn({ err: error, channel: post.channel }, "health: alert not edited");
      });
    }
  }
}
