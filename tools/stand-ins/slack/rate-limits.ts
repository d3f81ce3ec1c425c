/**
 * Slack's rate limits as the stand-in plays them (https://api.slack.com/apis/rate-limits):
 * `chat.postMessage` about one a second per channel with short bursts, `chat.update` a workspace-wide
 * tier of its own (Tier 3, 50 a minute). Each is a token bucket; a call that finds it empty is answered
 * HTTP 429 with `Retry-After: <whole seconds until a token>` (at least 1) and consumes nothing.
 */

export interface BucketFigures {
  /** Tokens added per second. */
  perSecond: number;
  /** The bucket's size: calls that may come at once after a quiet while. */
  burst: number;
}

export interface SlackRateLimitOptions {
  /** Per channel. Default 1 a second, burst 3; false: not limited. */
  postMessage?: BucketFigures | false;
  /** Workspace-wide. Default 50 a minute, burst 5; false: not limited. */
  update?: BucketFigures | false;
  /** The buckets' clock, ms; default Date.now (unit tests pass their own). */
  now?: () => number;
}

export const DEFAULT_POST_MESSAGE_LIMIT: BucketFigures = { perSecond: 1, burst: 3 };
export const DEFAULT_UPDATE_LIMIT: BucketFigures = { perSecond: 50 / 60, burst: 5 };

/** A token bucket, full at first. */
export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    private readonly figures: BucketFigures,
    now: number,
  ) {
    if (!(figures.perSecond > 0) || !(figures.burst >= 1)) {
      throw new Error(`Slack stand-in: a rate limit needs perSecond > 0 and burst >= 1`);
    }
    this.tokens = figures.burst;
    this.at = now;
  }

  /** Takes a token: null when there was one, else the whole seconds until there is one (at least 1). */
  take(now: number): number | null {
    const elapsed = Math.max(0, now - this.at) / 1000;
    this.tokens = Math.min(this.figures.burst, this.tokens + elapsed * this.figures.perSecond);
    this.at = Math.max(this.at, now);
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return null;
    }
    return Math.max(1, Math.ceil((1 - this.tokens) / this.figures.perSecond));
  }
}

/** The limits in force; off unless configured. `configure` turns them on or off, or changes the figures. */
export class SlackRateLimits {
  private postMessage: BucketFigures | false = false;
  private update: BucketFigures | false = false;
  private now: () => number = Date.now;
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(options?: SlackRateLimitOptions | false) {
    this.configure(options ?? false);
  }

  /** `false`: no limits; an object: the limits it names (defaults for those left out). Buckets refill. */
  configure(options: SlackRateLimitOptions | false): void {
    this.buckets.clear();
    if (options === false) {
      this.postMessage = false;
      this.update = false;
      return;
    }
    this.postMessage = options.postMessage === undefined ? DEFAULT_POST_MESSAGE_LIMIT : options.postMessage;
    this.update = options.update === undefined ? DEFAULT_UPDATE_LIMIT : options.update;
    this.now = options.now ?? Date.now;
  }

  get enabled(): boolean {
    return this.postMessage !== false || this.update !== false;
  }

  /** Stand-in internal: null when the call may go on, else the Retry-After in seconds. */
  take(method: string, channel: string | undefined): number | null {
    if (method === "chat.postMessage" && this.postMessage && channel !== undefined) {
      return this.bucket(`chat.postMessage:${channel}`, this.postMessage).take(this.now());
    }
    if (method === "chat.update" && this.update) {
      return this.bucket("chat.update", this.update).take(this.now());
    }
    return null;
  }

  private bucket(key: string, figures: BucketFigures): TokenBucket {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = new TokenBucket(figures, this.now());
      this.buckets.set(key, bucket);
    }
    return bucket;
  }
}
