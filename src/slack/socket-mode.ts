import { type App, SocketModeReceiver } from "@slack/bolt";
import type { Logger } from "../logger.js";
import type { WebhookJobStore } from "../store/index.js";
import { boltLogger } from "./bolt-logger.js";

/**
 * Socket Mode (README, Deploy): with an app-level token, Bolt's SocketModeReceiver opens its connection
 * with `apps.connections.open` through SLACK_API_URL, like every other Web API call, and Slack sends
 * everything over it; the HTTP endpoint is off. Each replica holds its own connection.
 */
export function socketModeReceiver(options: {
  appToken: string;
  apiUrl: string;
  logger: Logger;
  retries?: number;
}): SocketModeReceiver {
  return new SocketModeReceiver({
    appToken: options.appToken,
    logger: boltLogger(options.logger),
    // Bolt hands these to the SocketModeClient's WebClient (no installer is made without a client id).
    installerOptions: {
      clientOptions: {
        slackApiUrl: options.apiUrl,
        ...(options.retries !== undefined ? { retryConfig: { retries: options.retries } } : {}),
      },
    },
  });
}

/**
 * Every Events API event is handled once by its `event_id`, on whichever replica it reaches: Slack
 * retries an event with the same id (over HTTP, or over Socket Mode to another replica's connection).
 * The ids are kept with the webhook deliveries (the store's claimDelivery), shared by every replica.
 */
export function handleEventsOnce(
  app: App,
  store: Pick<WebhookJobStore, "claimDelivery">,
  logger: Logger,
): void {
  app.use(async ({ body, next }) => {
    const { type, event_id: eventId } = body as { type?: unknown; event_id?: unknown };
    if (type !== "event_callback") {
      await next();
      return;
    }
    if (typeof eventId !== "string" || eventId === "" || eventId.length > 100) {
      logger.warn({ kind: "event_callback" }, "Slack event refused: no event_id");
      return;
    }
    let first: boolean;
    try {
      first = await store.claimDelivery(`slack-event:${eventId}`, new Date());
    } catch (error) {
      logger.error({ err: error }, "could not record a Slack event's id: not handled");
      return;
    }
    if (!first) {
      logger.info({ eventId }, "Slack event already handled (a retry, or another replica had it)");
      return;
    }
    await next();
  });
}
