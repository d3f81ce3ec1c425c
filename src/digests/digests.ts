import type { ShieldFigures } from "../commands/ports.js";
import type { StatsResult } from "../commands/stats.js";
import type { Subscription } from "../core/records.js";
import { readPeriodFigures, type StatsDays, type StatsEvents } from "../history/stats-reader.js";
import type { Logger } from "../logger.js";
import { DeliveryError, DeliveryErrorCode, RATE_LIMITED_TRIES } from "../notifier/chat.js";
import type { Repo } from "../repo.js";
import type { DigestStore, SubscriptionStore } from "../store/index.js";
import { latestDigestTime } from "./schedule.js";

/**
 * The digests' poster (the composition root gives Slack's: src/slack/chat-posters.ts): posts one
 * top-level message with its key, and finds one posted before a crash by it.
 */
export interface DigestPoster {
  post(message: { channel: string; text: string; blocks: unknown[]; key: string }): Promise<string>;
  /** The ts of the digest with this key posted in the channel since `oldest`, or null. */
  find(channel: string, key: string, oldest: Date): Promise<string | null>;
}

export interface DigestsDeps {
  store: DigestStore & Pick<SubscriptionStore, "listSubscriptions">;
  /** A repository's queue events: Mergify's log, or the recorded history (as `stats` reads them). */
  statsEvents: StatsEvents;
  statsDays: StatsDays;
  /** What the flake shield did in a period (src/shield/figures.ts); absent: not shown. */
  shieldFigures?: (repository: Repo, period: { from: Date; to: Date }) => Promise<ShieldFigures>;
  poster: DigestPoster;
  /** The Slack message of a stats result (the same layout as `/mq stats`). */
  render: (result: StatsResult, now: Date) => { text: string; blocks: unknown[] };
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

/** How often due digests are looked for. */
const DIGEST_CHECK_MS = 60_000;
/** A claimed digest not marked sent within this is in doubt: another replica may take it over. */
const DIGEST_CLAIM_MS = 2 * 60_000;
/** A digest not posted within this after it was due (Yardmaster was down) is skipped, not posted late. */
const DIGEST_LATE_MS = 24 * 60 * 60_000;
const WEEK_MS = 7 * 24 * 60 * 60_000;

/**
 * Weekly digests (docs/notifications.md, "Weekly digest"): each subscription that asked for one gets
 * the 7-day stats of its repository posted in its channel on Monday at 09:00 in DIGEST_TIME_ZONE, once
 * whatever the replicas and restarts. A week's digest is claimed in the store before it is posted and
 * marked sent after; a claim that ran out unmarked is in doubt and the channel's history is searched for
 * the digest's metadata before it is posted again.
 */
export class Digests {
  private timer: NodeJS.Timeout | null = null;
  /** A pass at the lapse of a claim held elsewhere (a replica that died posting a digest is replaced then). */
  private atLapse: NodeJS.Timeout | undefined;
  private wokenFor: number | undefined;
  private running: Promise<void> | null = null;

  constructor(private readonly deps: DigestsDeps) {}

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), DIGEST_CHECK_MS);
    this.timer.unref();
    this.tick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    clearTimeout(this.atLapse);
    this.timer = null;
    await this.running;
  }

  private tick(): void {
    this.running ??= this.runDue()
      .then(() => this.wakeAtLapse())
      .catch((error: unknown) => this.deps.logger.error({ err: error }, "weekly digests failed"))
      .finally(() => {
        this.running = null;
      });
  }

  /**
   * The next pass comes at the first lapse of a digest's claim, when that is before the next check; once
   * per lapse (a clock that does not follow the timers' waits for the regular check).
   */
  private async wakeAtLapse(): Promise<void> {
    const lapse = (await this.deps.store.nextDigestClaimLapse(this.now()))?.getTime();
    if (lapse === undefined || lapse === this.wokenFor || !this.timer) return;
    const ms = lapse - this.now().getTime();
    if (ms >= DIGEST_CHECK_MS) return;
    clearTimeout(this.atLapse);
    this.atLapse = setTimeout(
      () => {
        this.wokenFor = lapse;
        this.tick();
      },
      Math.max(0, ms),
    );
    this.atLapse.unref();
  }

  /** Posts every digest due now and not posted yet; returns how many this replica posted. */
  async runDue(): Promise<number> {
    const now = this.now();
    const due = latestDigestTime(now, this.deps.timeZone);
    let posted = 0;
    for (const sub of await this.deps.store.listSubscriptions()) {
      if (sub.digest?.cadence !== "weekly") continue;
      // The first digest is the first Monday 09:00 after it was asked for.
      if (sub.digest.since && sub.digest.since > due.at) continue;
      if (now.getTime() - due.at.getTime() > DIGEST_LATE_MS) {
        this.deps.logger.debug(
          { channel: sub.channelId, repository: sub.repository.fullName, week: due.week },
          "weekly digest skipped: more than a day late",
        );
        continue;
      }
      const period = { from: new Date(due.at.getTime() - WEEK_MS), to: due.at };
      try {
        if (await this.post(sub, { week: due.week, period }, now)) posted += 1;
      } catch (error) {
        const again =
          error instanceof DigestRateLimitedError
            ? "on the next pass (Slack's rate limit)"
            : "once its claim runs out";
        this.deps.logger.warn(
          { channel: sub.channelId, repository: sub.repository.fullName, week: due.week, err: error },
          `weekly digest not posted: Slack failed; tried again ${again}`,
        );
      }
    }
    return posted;
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
    return this.post(sub, { week: `now-${now.toISOString()}`, period }, now);
  }

  private async post(
    sub: Subscription,
    digest: { week: string; period: { from: Date; to: Date } },
    now: Date,
  ): Promise<boolean> {
    const { store, poster, owner, logger } = this.deps;
    const key = { channelId: sub.channelId, repository: sub.repository, week: digest.week };
    const claimed = await store.claimDigest({
      ...key,
      owner,
      now,
      until: new Date(now.getTime() + DIGEST_CLAIM_MS),
    });
    if (claimed === null) return false;
    const messageKey = `${sub.repository.key}@${digest.week}`;
    const log = { channel: sub.channelId, repository: sub.repository.fullName, week: digest.week };
    if (claimed === "in-doubt") {
      const ts = await poster.find(sub.channelId, messageKey, new Date(digest.period.to.getTime() - 60_000));
      if (ts) {
        await store.markDigestSent({ ...key, owner, messageTs: ts, at: now });
        logger.info(log, "weekly digest found posted before a crash");
        return false;
      }
    }
    let message: { text: string; blocks: unknown[] };
    try {
      const figures = await readPeriodFigures(
        { statsEvents: this.deps.statsEvents, statsDays: this.deps.statsDays },
        sub.repository,
        digest.period,
        now,
      );
      // Best effort: the digest goes without the shield's figures when they cannot be read.
      const shield = await this.deps.shieldFigures?.(sub.repository, digest.period).catch(() => undefined);
      message = this.deps.render(
        {
          name: "stats",
          repo: sub.repository,
          period: "7d",
          ...figures,
          ...(shield ? { shield } : {}),
          digest: true,
        },
        now,
      );
    } catch (error) {
      // Nothing was posted: the next pass tries again.
      await store.releaseDigest({ ...key, owner });
      logger.warn(
        { ...log, err: error },
        "weekly digest not posted: the merge queue's events could not be read",
      );
      return false;
    }
    // The poster waits out Slack's 429s (src/slack/channel-turns.ts, the one place that does). A post
    // Slack refused every time posted nothing: released, so that it is tried again. Any other failed post
    // stays claimed until its claim runs out: it may have landed, and is then in doubt.
    let ts: string;
    try {
      ts = await poster.post({ channel: sub.channelId, ...message, key: messageKey });
    } catch (error) {
      if (!(error instanceof DeliveryError && error.code === DeliveryErrorCode.RateLimited)) throw error;
      await store.releaseDigest({ ...key, owner });
      throw new DigestRateLimitedError(sub.repository);
    }
    await store.markDigestSent({ ...key, owner, messageTs: ts, at: this.now() });
    logger.info(log, "weekly digest posted");
    return true;
  }
}
