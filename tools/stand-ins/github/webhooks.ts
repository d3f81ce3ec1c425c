import { createHmac, randomInt, randomUUID } from "node:crypto";
import type { Logger } from "pino";

/** `sha256=<hex HMAC-SHA256 of the exact body>`, GitHub's `X-Hub-Signature-256`. */
export function signWebhookBody(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

export interface DeliveryRecord {
  deliveryId: string;
  event: string;
  action: string | null;
  /** "sync": awaited by deliverWebhook/deliverIssueComment; "background": sent after an API call. */
  mode: "sync" | "background";
  url: string;
  /** Yardmaster's status, null when the request failed (recorded in `error`). */
  status: number | null;
  error: string | null;
  at: string;
  /** What was sent, for a redelivery. */
  payload: object;
}

/** A signed webhook request, as it goes on the wire. */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * How a webhook request travels: by default a `fetch` from this process. A benchmark may send from
 * another process instead (GitHub's Hookshot is not on Yardmaster's machine), so that sending 200 at once
 * does not take the CPU that answering them needs. Rejects with a `TimeoutError` after 10 s, as GitHub.
 */
export type WebhookTransport = (
  request: WebhookRequest,
  signal: AbortSignal,
) => Promise<{ status: number; text: string }>;

const fetchTransport: WebhookTransport = async ({ url, headers, body }, signal) => {
  const response = await fetch(url, {
    method: "POST",
    headers,
    body,
    signal: AbortSignal.any([signal, AbortSignal.timeout(10_000)]),
  });
  return { status: response.status, text: await response.text() };
};

export interface DeliverOptions {
  deliveryId?: string;
  /** Where to, instead of the webhook URL (e.g. one replica of several). */
  url?: string;
  /** Replaces `X-Hub-Signature-256` (and drops the SHA-1 one), e.g. to send a bad signature. */
  signature?: string;
  /** Resolve once answered, even when the receiver is not done yet (see setReceiverDone). */
  answerOnly?: boolean;
}

/**
 * Signs and POSTs webhooks like GitHub's Hookshot. Synchronous deliveries answer with the receiver's
 * response; background ones (events caused by API calls) go out one at a time, in order.
 */
export class WebhookSender {
  readonly hookId = randomInt(100_000_000, 999_999_999);
  readonly deliveries: DeliveryRecord[] = [];
  private url: string | undefined;
  private queue: Promise<void> = Promise.resolve();
  private readonly aborter = new AbortController();
  private receiverDone: (() => Promise<unknown>) | null = null;
  private transport: WebhookTransport = fetchTransport;

  constructor(
    private readonly secret: string,
    private readonly appId: number,
    private readonly logger: Logger,
    url?: string,
  ) {
    this.url = url;
  }

  setUrl(url: string): void {
    this.url = url;
  }

  /** See GitHubStandIn.setWebhookTransport. */
  setTransport(transport: WebhookTransport | null): void {
    this.transport = transport ?? fetchTransport;
  }

  /** See GitHubStandIn.setReceiverDone. */
  setReceiverDone(done: (() => Promise<unknown>) | null): void {
    this.receiverDone = done;
  }

  get webhookUrl(): string | undefined {
    return this.url;
  }

  async deliver(
    event: string,
    payload: object,
    options: DeliverOptions = {},
    mode: "sync" | "background" = "sync",
  ): Promise<{ status: number; body: string; deliveryId: string }> {
    const url = options.url ?? this.url;
    if (!url) throw new Error("GitHub stand-in: no webhook URL (pass webhookUrl or call setWebhookUrl)");
    const deliveryId = options.deliveryId ?? randomUUID();
    const body = JSON.stringify(payload);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": "GitHub-Hookshot/stand-in",
      "x-github-event": event,
      "x-github-delivery": deliveryId,
      "x-github-hook-id": String(this.hookId),
      "x-github-hook-installation-target-type": "integration",
      "x-github-hook-installation-target-id": String(this.appId),
      "x-hub-signature-256": options.signature ?? signWebhookBody(this.secret, body),
    };
    if (options.signature === undefined) {
      headers["x-hub-signature"] = `sha1=${createHmac("sha1", this.secret).update(body).digest("hex")}`;
    }
    const action = "action" in payload && typeof payload.action === "string" ? payload.action : null;
    const record: DeliveryRecord = {
      deliveryId,
      event,
      action,
      mode,
      url,
      status: null,
      error: null,
      at: new Date().toISOString(),
      payload,
    };
    this.deliveries.push(record);
    try {
      const response = await this.transport({ url, headers, body }, this.aborter.signal);
      const text = response.text;
      record.status = response.status;
      this.logger.debug({ event, action, deliveryId, status: response.status }, "webhook delivered");
      if (!options.answerOnly) await this.receiverDone?.();
      return { status: response.status, body: text, deliveryId };
    } catch (error) {
      record.error = error instanceof Error ? error.message : String(error);
      this.logger.warn({ event, action, deliveryId, err: record.error }, "webhook delivery failed");
      throw error;
    }
  }

  /**
   * GitHub's "Redeliver" of a recorded delivery: the same event, payload and delivery id (its GUID), to
   * the webhook URL now set or `url`; awaited.
   */
  async redeliver(deliveryId: string, url?: string): Promise<{ status: number }> {
    const record = this.deliveries.find((d) => d.deliveryId === deliveryId);
    if (!record) throw new Error(`GitHub stand-in: no delivery ${deliveryId} to redeliver`);
    const previous = this.url;
    if (url) this.url = url;
    try {
      return await this.deliver(record.event, record.payload, { deliveryId });
    } finally {
      this.url = previous;
    }
  }

  /** Sends in the background when a webhook URL is set (otherwise drops it, as an app without a URL would). */
  enqueue(event: string, payload: object): void {
    if (!this.url) return;
    this.queue = this.queue.then(async () => {
      if (this.aborter.signal.aborted) return;
      try {
        await this.deliver(event, payload, {}, "background");
      } catch {
        // Recorded in `deliveries` and logged.
      }
    });
  }

  /** Resolves once every background delivery queued so far has been answered or has failed. */
  async settle(): Promise<void> {
    let current: Promise<void>;
    do {
      current = this.queue;
      await current;
    } while (current !== this.queue);
  }

  /** Aborts deliveries in flight and drops queued ones. */
  async close(): Promise<void> {
    this.aborter.abort();
    await this.settle();
  }
}
