import { SocketModeReceiver } from "@slack/bolt";
import type { Logger } from "../logger.js";
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
