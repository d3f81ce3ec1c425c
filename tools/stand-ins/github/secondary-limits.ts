import { HttpError } from "./http.js";

/**
 * GitHub's secondary rate limits on an app's writes, as GitHub documents them ("Rate limits for the
 * REST API", "Best practices for using the REST API"): writes about one a second sustained, and no
 * more than 80 content-creating requests a minute and 500 an hour. GitHub does not publish how much
 * of a burst it tolerates; the stand-in allows a few writes above the pace (a token bucket).
 *
 * Breaking a rule is answered as GitHub answers it: 403 with `retry-after` (whole seconds) and a
 * secondary-rate-limit message; the refused request counts for nothing. Every such answer is recorded.
 */

export interface ContentLimit {
  limit: number;
  windowMs: number;
}

export interface SecondaryLimitOptions {
  /** The sustained pace of the app's writes: one per `writeIntervalMs`. */
  writeIntervalMs: number;
  /** Writes allowed above the pace at once (the token bucket's size). */
  writeBurst: number;
  /** Content-creating requests (a comment, a reaction) allowed in any window. */
  content: readonly ContentLimit[];
}

/** GitHub's figures (the burst is the stand-in's choice). */
export const GITHUB_SECONDARY_LIMITS: SecondaryLimitOptions = {
  writeIntervalMs: 1_000,
  writeBurst: 3,
  content: [
    { limit: 80, windowMs: 60_000 },
    { limit: 500, windowMs: 3_600_000 },
  ],
};

/** The same rules on a faster clock (tests): every duration times `factor`. */
export function scaleSecondaryLimits(limits: SecondaryLimitOptions, factor: number): SecondaryLimitOptions {
  return {
    writeIntervalMs: limits.writeIntervalMs * factor,
    writeBurst: limits.writeBurst,
    content: limits.content.map((c) => ({ limit: c.limit, windowMs: c.windowMs * factor })),
  };
}

export const WRITE_PACE_MESSAGE =
  "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.";
export const CONTENT_MESSAGE =
  "You have exceeded a secondary rate limit and have been temporarily blocked from content creation. Please retry your request again later.";
const DOCS =
  "https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits";

export interface SecondaryLimitHit {
  at: string;
  method: string;
  path: string;
  /** Which rule was broken. */
  rule: "write-pace" | "content";
  retryAfterSeconds: number;
}

/** One of the app's writes as the limits counted it: when it was admitted (after any hold). */
export interface AppWrite {
  /** ms since the epoch. */
  at: number;
  method: string;
  /** The API path, without `/api/v3`. */
  path: string;
  content: boolean;
  /** Refused for a secondary limit (403 with retry-after). */
  limited: boolean;
}

const WRITE_METHODS = new Set(["POST", "PATCH", "PUT", "DELETE"]);

/** Whether a request (API path without `/api/v3`) is a write; whether it creates content. */
export function classifyRequest(method: string, path: string): { write: boolean; content: boolean } {
  const write = WRITE_METHODS.has(method);
  const content =
    method === "POST" &&
    (/^\/repos\/[^/]+\/[^/]+\/issues\/\d+\/comments\/?$/.test(path) ||
      /^\/repos\/[^/]+\/[^/]+\/issues(\/comments\/\d+|\/\d+)\/reactions\/?$/.test(path) ||
      /^\/repos\/[^/]+\/[^/]+\/issues\/?$/.test(path) ||
      /^\/repos\/[^/]+\/[^/]+\/pulls(\/\d+\/(comments|reviews))?\/?$/.test(path));
  return { write, content };
}

/** The limits of one app (all its installations together: their writes are all the app bot's). */
export class SecondaryLimits {
  readonly hits: SecondaryLimitHit[] = [];
  private tokens: number;
  private refilledAt: number;
  private readonly created: number[] = [];

  constructor(readonly options: SecondaryLimitOptions) {
    this.tokens = options.writeBurst;
    this.refilledAt = Date.now();
  }

  /** Admits one of the app's writes, or throws the 403 GitHub would answer (nothing is counted then). */
  admit(method: string, path: string, content: boolean, now = Date.now()): void {
    const { writeIntervalMs, writeBurst } = this.options;
    if (writeIntervalMs > 0) {
      this.tokens = Math.min(writeBurst, this.tokens + (now - this.refilledAt) / writeIntervalMs);
    } else {
      this.tokens = writeBurst;
    }
    this.refilledAt = now;
    if (this.tokens < 1) {
      this.refuse(method, path, "write-pace", ((1 - this.tokens) * writeIntervalMs) / 1000, now);
    }
    if (content) {
      const longest = Math.max(0, ...this.options.content.map((c) => c.windowMs));
      while (this.created.length > 0 && this.created[0]! <= now - longest) this.created.shift();
      for (const { limit, windowMs } of this.options.content) {
        const inWindow = this.created.filter((t) => t > now - windowMs);
        if (inWindow.length >= limit) {
          const freeAt = inWindow[inWindow.length - limit]! + windowMs;
          this.refuse(method, path, "content", (freeAt - now) / 1000, now);
        }
      }
      this.created.push(now);
    }
    this.tokens -= 1;
  }

  private refuse(
    method: string,
    path: string,
    rule: SecondaryLimitHit["rule"],
    seconds: number,
    now: number,
  ) {
    const retryAfterSeconds = Math.max(1, Math.ceil(seconds));
    this.hits.push({ at: new Date(now).toISOString(), method, path, rule, retryAfterSeconds });
    throw new HttpError(
      403,
      rule === "content" ? CONTENT_MESSAGE : WRITE_PACE_MESSAGE,
      { documentation_url: DOCS },
      { "retry-after": String(retryAfterSeconds) },
    );
  }
}
