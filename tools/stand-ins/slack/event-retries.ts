import type { Logger } from "pino";
import { type EventDelivery, type EventSender, postForm } from "./sender.js";
import { signSlackRequest, unixSeconds } from "./signing.js";

/**
 * Slack's retries of Events API deliveries (https://api.slack.com/apis/events-api#retries): a delivery
 * the app did not answer with a 2xx within 3 seconds (an error status, a timeout, a connection that
 * failed) is sent again, up to 3 times (nearly at once, after 1 minute, after 5 minutes), the same body
 * signed anew, with `X-Slack-Retry-Num` (1, 2, 3) and `X-Slack-Retry-Reason`. Then Slack gives up.
 *
 * The stand-in keeps each failed event's next retry and sends the retries due when a test calls
 * `retry()` (the test plays the minutes between them). `cut` makes the next deliveries fail as a
 * network would: before they reach the app, or after it answered (the answer lost, as one later than
 * Slack's 3 seconds is).
 */

export type SlackRetryReason = "http_error" | "http_timeout" | "connection_failed";

/** When Slack sends each retry after the delivery before it failed. */
export const SLACK_EVENT_RETRY_DELAYS_MS = [0, 60_000, 300_000] as const;

export interface PendingEventRetry {
  eventId: string;
  body: string;
  /** Retries sent so far (0: only the first delivery). */
  retries: number;
  reason: SlackRetryReason;
}

/** A delivery whose answer never came: status 0. */
export interface EventDeliveryAttempt extends EventDelivery {
  eventId: string;
  /** 0 for the first delivery; else this retry's X-Slack-Retry-Num. */
  retryNum: number;
  /** Why Slack will retry it, or null when it was answered 2xx. */
  failed: SlackRetryReason | null;
}

export class SlackEventRetries implements EventSender {
  readonly #pending = new Map<string, PendingEventRetry>();
  readonly #cuts: ("before" | "after")[] = [];
  /** The last timestamp each event was signed with: a retry is never signed in the same second. */
  readonly #signedAt = new Map<string, number>();
  /** Every delivery of an event, first ones and retries, oldest first. */
  readonly attempts: EventDeliveryAttempt[] = [];

  constructor(
    private readonly target: {
      eventsUrl: () => string | undefined;
      signingSecret: string;
      timeoutMs: number;
      logger?: Logger | undefined;
    },
  ) {}

  /**
   * The next `count` deliveries of events (first ones or retries) fail: `before` never reach the app
   * (`connection_failed`); `after` reach it and are answered, but the answer is lost (`http_timeout`).
   */
  cut(count = 1, when: "before" | "after" = "after"): void {
    for (let i = 0; i < count; i++) this.#cuts.push(when);
  }

  /** The events Slack will retry, with how many retries each had. */
  pending(): PendingEventRetry[] {
    return [...this.#pending.values()].map((p) => ({ ...p }));
  }

  async deliver(body: string, overrides: { timestamp?: number; signature?: string }): Promise<EventDelivery> {
    return this.#send(body, 0, overrides, undefined);
  }

  /**
   * Sends the next retry of every event whose last delivery failed (to `url`: another replica's, say;
   * default the events URL). Those answered 2xx are done; those that fail again wait for the next call,
   * until their third retry.
   */
  async retry(options: { url?: string } = {}): Promise<EventDeliveryAttempt[]> {
    const sent: EventDeliveryAttempt[] = [];
    for (const pending of [...this.#pending.values()]) {
      sent.push(await this.#send(pending.body, pending.retries + 1, {}, options.url, pending.reason));
    }
    return sent;
  }

  async #send(
    body: string,
    retryNum: number,
    overrides: { timestamp?: number; signature?: string },
    url: string | undefined,
    reason?: SlackRetryReason,
  ): Promise<EventDeliveryAttempt> {
    const eventId = eventIdOf(body);
    const to = url ?? this.target.eventsUrl();
    if (to === undefined) throw new Error("Slack stand-in: no eventsUrl (pass it or call setEventsUrl)");
    const last = this.#signedAt.get(eventId);
    const timestamp =
      overrides.timestamp ?? (last === undefined ? unixSeconds() : Math.max(unixSeconds(), last + 1));
    this.#signedAt.set(eventId, Math.max(timestamp, last ?? timestamp));
    const signature = overrides.signature ?? signSlackRequest(this.target.signingSecret, timestamp, body);
    const sentHeaders: Record<string, string> = {
      "x-slack-request-timestamp": String(timestamp),
      "x-slack-signature": signature,
      ...(retryNum > 0
        ? { "x-slack-retry-num": String(retryNum), "x-slack-retry-reason": reason ?? "" }
        : {}),
    };
    const cut = this.#cuts.shift();
    let answer: { status: number; body: string } = { status: 0, body: "" };
    let failed: SlackRetryReason | null = null;
    if (cut === "before") failed = "connection_failed";
    else {
      try {
        answer = await postForm(
          to,
          body,
          { ...sentHeaders, "content-type": "application/json" },
          this.target.timeoutMs,
        );
        if (cut === "after") {
          answer = { status: 0, body: "" };
          failed = "http_timeout";
        } else if (answer.status < 200 || answer.status > 299) failed = "http_error";
      } catch (error) {
        failed = /no answer/.test((error as Error).message) ? "http_timeout" : "connection_failed";
      }
    }
    this.#settle(eventId, body, retryNum, failed);
    const attempt = { ...answer, sentBody: body, sentHeaders, eventId, retryNum, failed };
    this.attempts.push(attempt);
    this.target.logger?.debug(
      { eventId, retryNum, status: answer.status, failed },
      "slack stand-in: event delivered",
    );
    return attempt;
  }

  /** Keeps the event's next retry when this delivery failed and Slack has retries left, else forgets it. */
  #settle(eventId: string, body: string, retryNum: number, failed: SlackRetryReason | null): void {
    if (failed === null || retryNum >= SLACK_EVENT_RETRY_DELAYS_MS.length) {
      this.#pending.delete(eventId);
      return;
    }
    this.#pending.set(eventId, { eventId, body, retries: retryNum, reason: failed });
  }
}

function eventIdOf(body: string): string {
  try {
    const id = (JSON.parse(body) as { event_id?: unknown }).event_id;
    return typeof id === "string" ? id : "";
  } catch {
    return "";
  }
}
