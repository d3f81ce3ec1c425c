import { describeResult } from "../commands/describe.js";
import type { ShieldFigures } from "../commands/ports.js";
import type { StatsResult } from "../commands/stats.js";
import type { Subscription } from "../core/records.js";
import { readPeriodFigures, type StatsDays, type StatsEvents } from "../history/stats-reader.js";
import type { Logger } from "../logger.js";
import { DeliveryError, DeliveryErrorCode, RATE_LIMITED_TRIES } from "../notifier/chat.js";
import { Repo } from "../repo.js";
import type { OnceClaimStore, SubscriptionStore, WorkItem } from "../store/index.js";
import type { ChatMessage } from "../wording/message.js";
import { backoff, type WorkNext, type WorkRunner } from "../work/runner.js";
import { latestDigestTime, nextDigestTime } from "./schedule.js";

/**
 * The digests' poster, the port this feature owns (the composition root gives Slack's:
 * src/slack/chat-posters.ts, which lays the message out): posts one top-level message with its key, and
 * finds one posted before a crash by it. A 429 Slack answered every time is a DeliveryError RateLimited.
 */
export interface DigestPoster {
  post(digest: { channel: string; message: ChatMessage; key: string }): Promise<string>;
  /** The ts of the digest with this key posted in the channel since `oldest`, or null. */
  find(channel: string, key: string, oldest: Date): Promise<string | null>;
}

export interface DigestsDeps {
  store: Pick<OnceClaimStore, "claimOnce" | "finishOnce" | "releaseOnce" | "readOnce"> &
    Pick<SubscriptionStore, "listSubscriptions">;
  /** The runner of durable work on this replica: the week and each digest are its items. */
  work: Pick<WorkRunner, "register" | "resume" | "pause" | "drain" | "schedule">;
  /** A repository's queue events: Mergify's log, or the recorded history (as `stats` reads them). */
  statsEvents: StatsEvents;
  statsDays: StatsDays;
  /** What the flake shield did in a period (src/shield/figures.ts); absent: not shown. */
  shieldFigures?: (repository: Repo, period: { from: Date; to: Date }) => Promise<ShieldFigures>;
  poster: DigestPoster;
  /** e.g. "https://github.com", for the digest's links. */
  githubWebUrl: string;
  /** DIGEST_TIME_ZONE. */
  timeZone: string;
  /** Which replica this is, for claims. */
  owner: string;
  logger: Logger;
  now?: () => Date;
}

/** A digest Slack refused with a 429 on every try: nothing was posted and nothing stays claimed. */
export class DigestRateLimitedError extends Error {
  constructor(repository: Repo) {
    super(
      `The weekly digest of ${repository.fullName} was not posted: Slack answered "rate limited" ${RATE_LIMITED_TRIES} times in a row. Nothing was posted; try again in a minute.`,
    );
    this.name = "DigestRateLimitedError";
  }
}

/** The durable work of the week (one item, key `weekly`): at Monday 09:00, each subscription's digest is made due. */
export const DIGEST_WEEK_KIND = "digest-week";
/** The durable work of one digest: one item per channel, repository and week, due at its Monday 09:00. */
export const DIGEST_KIND = "digest";
/** The week's item's key (one item for every subscription). */
const WEEK_KEY = "weekly";
/** The once-claims' scope of digests posted: one key per channel, repository and week (or time asked). */
const SCOPE = "digest";
/** A digest posted is remembered this long (only this week's is ever asked for). */
export const DIGEST_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;
/** A claimed digest not marked sent within this is in doubt: another replica may take it over. */
const DIGEST_CLAIM_MS = 2 * 60_000;
/** A digest not posted within this after it was due (Yardmaster was down) is skipped, not posted late. */
const DIGEST_LATE_MS = 24 * 60 * 60_000;
const WEEK_MS = 7 * 24 * 60 * 60_000;

/** What a digest's work item keeps. */
interface DigestDue {
  channelId: string;
  repository: Repo;
  week: string;
  /** Its Monday 09:00. */
  at: Date;
}

/** What came of a digest's post: posted, found posted (in doubt), done before, or held by another until. */
type Posted = "posted" | "found" | "done" | { heldUntil: Date };

/**
 * Weekly digests (docs/notifications.md, "Weekly digest"): each subscription that asked for one gets
 * the 7-day stats of its repository posted in its channel on Monday at 09:00 in DIGEST_TIME_ZONE, once
 * whatever the replicas and restarts. Two kinds of durable work (src/work): the week's item, due every
 * Monday 09:00, makes each subscription's digest an item due then; a digest's item is run by one
 * replica. Its post is claimed once (the once-claims, scope `digest`) before it is posted and marked
 * done with its message after; a claim that lapsed unmarked is in doubt and the channel's history is
 * searched for the digest's metadata before it is posted again.
 */
export class Digests {
  /** What the digests run by hand (runDue) posted. */
  private tally: { posted: number } | undefined;

  constructor(private readonly deps: DigestsDeps) {
    deps.work.register({
      kind: DIGEST_WEEK_KIND,
      // Made at the start unless there is one (the runner's standing item).
      standing: { key: WEEK_KEY, dueAt: () => this.weekDueAt() },
      run: () => this.runWeek(),
    });
    deps.work.register({
      kind: DIGEST_KIND,
      concurrency: 4,
      leaseMs: DIGEST_CLAIM_MS,
      // Figures not read, or Slack failing: tried again soon, a minute apart at most.
      backoff: (attempts) => backoff(attempts, 5_000, 60_000),
      run: (item) => this.runDigest(item),
    });
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  start(): void {
    this.deps.work.resume(DIGEST_WEEK_KIND);
    this.deps.work.resume(DIGEST_KIND);
  }

  async stop(): Promise<void> {
    await this.deps.work.pause(DIGEST_WEEK_KIND);
    await this.deps.work.pause(DIGEST_KIND);
  }

  /**
   * When a new week's item is due: at this week's Monday 09:00 when that is less than a day ago (its
   * digests not posted yet are then posted), else at the next.
   */
  private weekDueAt(): Date {
    const now = this.now();
    const latest = latestDigestTime(now, this.deps.timeZone).at;
    return now.getTime() - latest.getTime() <= DIGEST_LATE_MS
      ? latest
      : nextDigestTime(now, this.deps.timeZone);
  }

  /** The week's item, unless there is one (by hand: runDue). */
  private async scheduleWeek(): Promise<void> {
    const dueAt = this.weekDueAt();
    await this.deps.work.schedule({ kind: DIGEST_WEEK_KIND, key: WEEK_KEY, dueAt, when: "absent" });
  }

  /** Runs the week and the digests due now, by hand (tests); returns how many this replica posted. */
  async runDue(): Promise<number> {
    const tally = { posted: 0 };
    this.tally = tally;
    try {
      await this.scheduleWeek();
      await this.deps.work.drain(DIGEST_WEEK_KIND);
      await this.deps.work.drain(DIGEST_KIND);
    } finally {
      this.tally = undefined;
    }
    return tally.posted;
  }

  /** Monday 09:00: each subscription's digest of the week made due (once: an item is made if absent). */
  private async runWeek(): Promise<WorkNext> {
    const { store, work, timeZone, logger } = this.deps;
    const now = this.now();
    const due = latestDigestTime(now, timeZone);
    if (now.getTime() - due.at.getTime() > DIGEST_LATE_MS) {
      logger.debug({ week: due.week }, "weekly digests skipped: more than a day late");
      return { dueAt: nextDigestTime(now, timeZone) };
    }
    for (const sub of await store.listSubscriptions()) {
      if (sub.digest?.cadence !== "weekly") continue;
      // The first digest is the first Monday 09:00 after it was asked for.
      if (sub.digest.since && sub.digest.since > due.at) continue;
      await work.schedule({
        kind: DIGEST_KIND,
        key: `${sub.channelId} ${sub.repository.key} ${due.week}`,
        dueAt: due.at,
        payload: {
          channelId: sub.channelId,
          repository: sub.repository.fullName,
          week: due.week,
          at: due.at.toISOString(),
        },
        when: "absent",
      });
    }
    return { dueAt: nextDigestTime(now, timeZone) };
  }

  /** One subscription's digest of a week: posted once; due again when another holds its post. */
  private async runDigest(item: WorkItem): Promise<WorkNext> {
    const due = digestDueOf(item);
    const now = this.now();
    const log = { channel: due.channelId, repository: due.repository.fullName, week: due.week };
    if (now.getTime() - due.at.getTime() > DIGEST_LATE_MS) {
      this.deps.logger.debug(log, "weekly digest skipped: more than a day late");
      return null;
    }
    const [sub] = await this.deps.store.listSubscriptions({
      channelId: due.channelId,
      repository: due.repository,
    });
    // Unsubscribed, or the digest turned off, since the week began.
    if (sub?.digest?.cadence !== "weekly") return null;
    const period = { from: new Date(due.at.getTime() - WEEK_MS), to: due.at };
    let posted: Posted;
    try {
      posted = await this.post(sub, { week: due.week, period }, now);
    } catch (error) {
      // The runner tries it again after its backoff (a post that may have landed once its claim lapses).
      if (error instanceof DigestRateLimitedError || error instanceof DeliveryError) {
        const again =
          error instanceof DigestRateLimitedError ? "soon (Slack's rate limit)" : "once its claim runs out";
        this.deps.logger.warn(
          { ...log, err: error },
          `weekly digest not posted: Slack failed; tried again ${again}`,
        );
      }
      throw error;
    }
    if (posted === "posted" && this.tally) this.tally.posted += 1;
    return typeof posted === "object" ? { dueAt: posted.heldUntil } : null;
  }

  /**
   * Posts the digest of a subscription now, for the 7 days up to now, whatever the day (the sandbox's
   * "run the digest now"). Once per call: its key is the time it was asked. A 429 is waited out as for
   * the weekly one; refused every time, it throws DigestRateLimitedError and leaves nothing claimed.
   */
  async postNow(channelId: string, repository: Repo): Promise<boolean> {
    const now = this.now();
    const [sub] = await this.deps.store.listSubscriptions({ channelId, repository });
    if (!sub) return false;
    const period = { from: new Date(now.getTime() - WEEK_MS), to: now };
    return (await this.post(sub, { week: `now-${now.toISOString()}`, period }, now)) === "posted";
  }

  /**
   * Claims the digest's post once (scope `digest`), then posts it; a claim that lapsed unmarked (its
   * replica died, or its post failed and may have landed) is in doubt: the channel is searched first.
   */
  private async post(
    sub: Subscription,
    digest: { week: string; period: { from: Date; to: Date } },
    now: Date,
  ): Promise<Posted> {
    const { store, poster, owner, logger } = this.deps;
    const key = digestKey(sub.channelId, sub.repository, digest.week);
    // Read first: a claim not done, not released and lapsed is one whose post may have landed.
    const before = await store.readOnce(SCOPE, key);
    const claimed = await store.claimOnce(SCOPE, key, {
      owner,
      now,
      until: new Date(now.getTime() + DIGEST_CLAIM_MS),
      keepMs: DIGEST_RETENTION_MS,
    });
    if (claimed === "done") return "done";
    if (claimed === "held")
      return { heldUntil: before?.claimedUntil ?? new Date(now.getTime() + DIGEST_CLAIM_MS) };
    const messageKey = `${sub.repository.key}@${digest.week}`;
    const log = { channel: sub.channelId, repository: sub.repository.fullName, week: digest.week };
    if (before && before.doneAt === null && before.claimedUntil !== null) {
      const ts = await poster.find(sub.channelId, messageKey, new Date(digest.period.to.getTime() - 60_000));
      if (ts) {
        await store.finishOnce(SCOPE, key, owner, now, { messageTs: ts });
        logger.info(log, "weekly digest found posted before a crash");
        return "found";
      }
    }
    let message: ChatMessage;
    try {
      message = await this.message(sub, digest.period, now);
    } catch (error) {
      // Nothing was posted: tried again.
      await store.releaseOnce(SCOPE, key, owner);
      logger.warn(
        { ...log, err: error },
        "weekly digest not posted: the merge queue's events could not be read",
      );
      throw error;
    }
    // The poster waits out Slack's 429s (src/slack/channel-turns.ts, the one place that does). A post
    // Slack refused every time posted nothing: released, so that it is tried again. Any other failed post
    // stays claimed until its claim runs out: it may have landed, and is then in doubt.
    let ts: string;
    try {
      ts = await poster.post({ channel: sub.channelId, message, key: messageKey });
    } catch (error) {
      if (!(error instanceof DeliveryError && error.code === DeliveryErrorCode.RateLimited)) throw error;
      await store.releaseOnce(SCOPE, key, owner);
      throw new DigestRateLimitedError(sub.repository);
    }
    await store.finishOnce(SCOPE, key, owner, this.now(), { messageTs: ts });
    logger.info(log, "weekly digest posted");
    return "posted";
  }

  /** The digest's message: the period's figures, said as `/mq stats` answers them. */
  private async message(
    sub: Subscription,
    period: { from: Date; to: Date },
    now: Date,
  ): Promise<ChatMessage> {
    const figures = await readPeriodFigures(
      { statsEvents: this.deps.statsEvents, statsDays: this.deps.statsDays },
      sub.repository,
      period,
      now,
    );
    // Best effort: the digest goes without the shield's figures when they cannot be read.
    const shield = await this.deps.shieldFigures?.(sub.repository, period).catch(() => undefined);
    const result: StatsResult = {
      name: "stats",
      repo: sub.repository,
      period: "7d",
      ...figures,
      ...(shield ? { shield } : {}),
      digest: true,
    };
    return digestMessage(result, now, this.deps.githubWebUrl);
  }
}

/**
 * A digest's message: the stats result as the command answers in a chat (the core's `slack` surface is
 * the chat's), its parts named `stats` as of `now`; the chat surface lays it out as `/mq stats`.
 */
export function digestMessage(result: StatsResult, now: Date, githubWebUrl: string): ChatMessage {
  return {
    description: describeResult(result, { surface: "slack", now, githubWebUrl }),
    naming: { name: "stats", at: now },
  };
}

/** The once-claim's key of a subscription's digest of a week (or of a time asked, `now-<time>`). */
export function digestKey(channelId: string, repository: Repo, week: string): string {
  return `${channelId} ${repository.key}@${week}`;
}

function digestDueOf(item: WorkItem): DigestDue {
  const p = item.payload as { channelId: string; repository: string; week: string; at: string };
  return { channelId: p.channelId, repository: Repo.from(p.repository), week: p.week, at: new Date(p.at) };
}
