import { App, HTTPReceiver, type SocketModeReceiver } from "@slack/bolt";
import { type Handler, pathOf } from "../../server/http-server.js";
import { boltLogger } from "../bolt-logger.js";
import { guardSlackRequests } from "../request-verification.js";
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

/** The HTTP endpoint: timestamps either way, replays across replicas and retries, before Bolt (request-verification.ts). */
export function slackHttpHandler(options: SlackSurfaceOptions, receiver: HTTPReceiver): Handler {
  const guarded = guardSlackRequests(
    {
      signingSecret: options.signingSecret,
      claim: (signature, now) => options.store.claimSlackSignature(signature, now),
      logger: options.logger,
    },
    receiver.requestListener,
  );
  return async (req, res) => {
    if (pathOf(req) !== SLACK_EVENTS_PATH) return false;
    await guarded(req, res);
    return true;
  };
}
