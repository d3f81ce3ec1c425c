import { App, HTTPReceiver, type SocketModeReceiver } from "@slack/bolt";
import { type Handler, pathOf } from "../../server/http-server.js";
import { boltLogger } from "../bolt-logger.js";
import { SlackEventFailed, SlackEventHeld } from "../events-once.js";
import { claimSignaturesOnce, guardSlackRequests } from "../request-verification.js";
import { socketModeReceiver } from "../socket-mode.js";
import type { SlackSurfaceOptions } from "./kit.js";

export const SLACK_EVENTS_PATH = "/slack/events";
/** The largest request body Slack sends (Bolt's limit); the HTTP server refuses a larger one before reading it. */
export const SLACK_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Bolt's app on its receiver: Socket Mode with an app-level token, else the HTTP endpoint. */
export function boltApp(options: SlackSurfaceOptions): {
  app: App;
  socket: SocketModeReceiver | null;
  receiver: SocketModeReceiver | HTTPReceiver;
} {
  const { logger } = options;
  const socket: SocketModeReceiver | null = options.appToken
    ? socketModeReceiver({
        appToken: options.appToken,
        apiUrl: options.apiUrl,
        logger,
        ...(options.retries !== undefined ? { retries: options.retries } : {}),
      })
    : null;
  const receiver =
    socket ??
    new HTTPReceiver({
      signingSecret: options.signingSecret,
      endpoints: SLACK_EVENTS_PATH,
      processBeforeResponse: false,
      bodyLimit: SLACK_MAX_BODY_BYTES,
      logger: boltLogger(logger),
    });
  const app = new App({
    receiver,
    token: options.botToken,
    logger: boltLogger(logger),
    clientOptions: {
      slackApiUrl: options.apiUrl,
      ...(options.retries !== undefined ? { retryConfig: { retries: options.retries } } : {}),
    },
    ...(options.botId
      ? { botId: options.botId, botUserId: options.botUserId, tokenVerificationEnabled: false }
      : {}),
  });
  return { app, socket, receiver };
}

/**
 * The HTTP endpoint: timestamps either way and replays across replicas, before Bolt
 * (request-verification.ts). Events API deliveries (`event_callback`) go to a receiver of their own
 * that answers once the event was handled: 200, or 5xx when it was not (events-once.ts), so that
 * Slack's retry of it runs it. Everything else (commands, clicks, forms) is acknowledged at once.
 */
export function slackHttpHandler(options: SlackSurfaceOptions, app: App, receiver: HTTPReceiver): Handler {
  const events = eventsReceiver(options);
  events.init(app);
  const guarded = guardSlackRequests(
    {
      signingSecret: options.signingSecret,
      claim: claimSignaturesOnce(options.store, options.owner),
      logger: options.logger,
    },
    (req, res) => {
      const body = (req as { rawBody?: Buffer }).rawBody;
      if (body && isEventCallback(req.headers["content-type"], body)) events.requestListener(req, res);
      else receiver.requestListener(req, res);
    },
  );
  return async (req, res) => {
    if (pathOf(req) !== SLACK_EVENTS_PATH) return false;
    await guarded(req, res);
    return true;
  };
}

/** Bolt's receiver for Events API deliveries: the answer waits for the listeners, 5xx when they failed. */
function eventsReceiver(options: SlackSurfaceOptions): HTTPReceiver {
  const log = options.logger.child({ name: "slack-events" });
  return new HTTPReceiver({
    signingSecret: options.signingSecret,
    endpoints: SLACK_EVENTS_PATH,
    processBeforeResponse: true,
    bodyLimit: SLACK_MAX_BODY_BYTES,
    logger: boltLogger(options.logger),
    processEventErrorHandler: async ({ error, response }) => {
      if (response.headersSent) return false;
      const status = error instanceof SlackEventHeld ? 503 : 500;
      if (!(error instanceof SlackEventHeld || error instanceof SlackEventFailed))
        log.error({ err: error }, "a Slack event failed unexpectedly: answered 500, Slack retries it");
      response.writeHead(status);
      response.end();
      return false;
    },
  });
}

/** An Events API delivery: JSON whose `type` is `event_callback`. */
function isEventCallback(contentType: string | undefined, body: Buffer): boolean {
  if (!contentType?.toLowerCase().startsWith("application/json")) return false;
  try {
    return (JSON.parse(body.toString("utf8")) as { type?: unknown } | null)?.type === "event_callback";
  } catch {
    return false;
  }
}
