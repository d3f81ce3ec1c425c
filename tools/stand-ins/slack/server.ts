import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { readSlackAppAsks } from "../../../src/doctor/manifests.js";
import { SlackEventRetries } from "./event-retries.js";
import { SlackFaults } from "./faults.js";
import { BodyTooLargeError, mediaType, readBody, sendJson, sendText } from "./http-util.js";
import { type SlackRateLimitOptions, SlackRateLimits } from "./rate-limits.js";
import { handleResponseUrlPost, ResponseUrls } from "./response-urls.js";
import {
  clickUnfurlButton,
  type SharedLink,
  type ShareLinkArgs,
  sendEventAgain,
  shareLink,
  type UnfurlClickArgs,
} from "./send-links.js";
import {
  type GlobalShortcutArgs,
  type MessageShortcutArgs,
  sendGlobalShortcut,
  sendMessageShortcut,
} from "./send-shortcuts.js";
import { type Submission, type SubmitViewArgs, submitView } from "./send-views.js";
import {
  type AppHomeOpenedArgs,
  type ButtonClickArgs,
  clickButton,
  clickHomeButton,
  type DeliveryResult,
  type EventDelivery,
  type HomeClickArgs,
  type ResendArgs,
  resend,
  type SenderContext,
  type SlashCommandArgs,
  sendAppHomeOpened,
  sendSlashCommand,
} from "./sender.js";
import { SocketModeHub, STAND_IN_APP_TOKEN } from "./socket-mode.js";
import { SlackState } from "./state.js";
import type { RecordedCall } from "./types.js";
import { waitFor } from "./wait-for.js";
import { handleWebApiCall, type WebApiContext } from "./web-api.js";

export interface SlackStandInOptions {
  /** Default 0 (an ephemeral port). */
  port?: number;
  /** Default "127.0.0.1". */
  host?: string;
  /** Signs what the stand-in sends to Yardmaster. */
  signingSecret: string;
  /** The only token the Web API accepts (xoxb-...). */
  botToken: string;
  /** The app-level token (xapp-…) `apps.connections.open` accepts (Socket Mode); default STAND_IN_APP_TOKEN. */
  appToken?: string;
  /** The scopes the token holds (`x-oauth-scopes`); default those slack-manifest.yml asks for. */
  scopes?: readonly string[];
  /** Yardmaster's `POST /slack/events`; can be set later with `setEventsUrl`. */
  eventsUrl?: string;
  /** Default "T0001". */
  teamId?: string;
  /** Default "yardmaster-sandbox" (permalinks, `auth.test` url, `team_domain`). */
  teamDomain?: string;
  /** The workspace's name (`auth.test`, `team.info`). Default "Yardmaster Sandbox". */
  teamName?: string;
  /** Default "U0BOT". */
  botUserId?: string;
  /** Default "B0BOT". */
  botId?: string;
  /** Default "A0YARDMASTER" (`api_app_id`, messages' `app_id`). */
  appId?: string;
  /** The bot user's name. Default "yardmaster". */
  botName?: string;
  /** How long to wait for Yardmaster's answer to a slash command or click. Default 10 s. */
  deliveryTimeoutMs?: number;
  /**
   * Slack's rate limits (rate-limits.ts): `{}` for Slack's figures (chat.postMessage 1 a second per
   * channel, burst 3; chat.update 50 a minute, burst 5), or figures of its own. Default false (off).
   */
  rateLimits?: SlackRateLimitOptions | false;
  logger?: Logger;
}

export interface SlackStandIn {
  /** "http://127.0.0.1:PORT" */
  url: string;
  /** url + "/api/": Yardmaster's SLACK_API_URL (the WebClient appends method names). */
  apiUrl: string;
  state: SlackState;
  /** Every Web API call, oldest first. */
  calls: RecordedCall[];
  faults: SlackFaults;
  /** Socket Mode (socket-mode.ts): the app's connections and the envelopes sent on them. */
  socket: SocketModeHub;
  /** The rate limits in force: `limits.configure(...)` turns them on or off, or changes the figures. */
  limits: SlackRateLimits;
  /**
   * Events API deliveries over HTTP as Slack makes them (event-retries.ts): every attempt, the events
   * Slack will retry, `retry()` to send their next retries, `cut()` to make deliveries fail.
   */
  events: SlackEventRetries;
  sendSlashCommand(args: SlashCommandArgs): Promise<DeliveryResult>;
  clickButton(args: ButtonClickArgs): Promise<DeliveryResult>;
  /** The person opens the app's Home tab: a signed `app_home_opened` event. */
  openHome(args: AppHomeOpenedArgs): Promise<EventDelivery>;
  /** The person clicks a button of the Home tab the app last published for them. */
  clickHomeButton(args: HomeClickArgs): Promise<EventDelivery>;
  /** A person posts a message with links: `link_shared` while composing, then once posted (send-links.ts). */
  shareLink(args: ShareLinkArgs): Promise<SharedLink>;
  /** An event body sent again, newly signed (a retry that reached another replica). */
  sendEventAgain(eventBody: string, timestamp?: number): Promise<EventDelivery>;
  /** The person uses a message shortcut on a message (send-shortcuts.ts). */
  sendMessageShortcut(args: MessageShortcutArgs): Promise<DeliveryResult>;
  /** The person uses a global shortcut (no channel, no response_url). */
  sendGlobalShortcut(args: GlobalShortcutArgs): Promise<EventDelivery>;
  /** The person submits the modal the app opened for them (send-views.ts). */
  submitView(args: SubmitViewArgs): Promise<Submission>;
  /** The person clicks a button of an app's unfurl. */
  clickUnfurlButton(args: UnfurlClickArgs): Promise<DeliveryResult>;
  /** Sends a slash command or click delivered before again, exactly as it was signed (a replay or a retry). */
  resend(delivery: DeliveryResult, args?: ResendArgs): Promise<DeliveryResult>;
  /** Polls until `predicate` returns a value (default 15 s: a loaded machine is slow, never a fixed wait). */
  waitFor<T>(predicate: () => T | undefined | null | false, timeoutMs?: number): Promise<T>;
  setEventsUrl(url: string): void;
  /** The scopes the bot token holds from now on, as after a reinstall with other scopes. */
  setScopes(scopes: readonly string[]): void;
  /** Makes a response_url answer `410 expired_url`, as after Slack's 30 minutes. */
  expireResponseUrl(idOrUrl: string): void;
  close(): Promise<void>;
}

export async function startSlackStandIn(options: SlackStandInOptions): Promise<SlackStandIn> {
  const host = options.host ?? "127.0.0.1";
  const teamDomain = options.teamDomain ?? "yardmaster-sandbox";
  const logger = options.logger?.child({ component: "slack-stand-in" });
  const state = new SlackState({
    teamId: options.teamId ?? "T0001",
    botUserId: options.botUserId ?? "U0BOT",
    botId: options.botId ?? "B0BOT",
    appId: options.appId ?? "A0YARDMASTER",
    botName: options.botName ?? "yardmaster",
  });
  const faults = new SlackFaults();
  const limits = new SlackRateLimits(options.rateLimits ?? false);
  const calls: RecordedCall[] = [];
  let baseUrl = "";
  let eventsUrl = options.eventsUrl;
  const responseUrls = new ResponseUrls(() => baseUrl);
  const socket = new SocketModeHub(() => baseUrl, state.identity.appId);
  const appToken = options.appToken ?? STAND_IN_APP_TOKEN;

  const api: WebApiContext = {
    state,
    faults,
    limits,
    calls,
    botToken: options.botToken,
    scopes: [...(options.scopes ?? readSlackAppAsks().botScopes)],
    teamName: options.teamName ?? "Yardmaster Sandbox",
    teamDomain,
    logger,
  };
  const sender: SenderContext = {
    state,
    responseUrls,
    signingSecret: options.signingSecret,
    teamDomain,
    verificationToken: "stand-in-verification-token",
    eventsUrl: () => eventsUrl,
    socket,
    timeoutMs: options.deliveryTimeoutMs ?? 10_000,
    logger,
  };
  const events = new SlackEventRetries({
    eventsUrl: () => eventsUrl,
    signingSecret: options.signingSecret,
    timeoutMs: sender.timeoutMs,
    logger,
  });
  sender.events = events;

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://stand-in");
    const path = url.pathname;
    if (path === "/api/apps.connections.open") {
      // Socket Mode's one call made with the app-level token, not the bot token.
      await readBody(req);
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      const ok = token === appToken;
      sendJson(
        res,
        200,
        ok ? { ok: true, url: socket.open() } : { ok: false, error: token ? "invalid_auth" : "not_authed" },
      );
      return;
    }
    if (path.startsWith("/api/")) {
      const rawBody = await readBody(req);
      const answer = await handleWebApiCall(api, {
        method: decodeURIComponent(path.slice("/api/".length)),
        rawBody,
        mediaType: mediaType(req.headers["content-type"]),
        query: url.searchParams,
        authorization: req.headers.authorization,
      });
      sendJson(res, answer.status, answer.body, answer.headers);
      return;
    }
    const response = /^\/response\/([^/]+)$/.exec(path);
    if (response?.[1] !== undefined) {
      if (req.method !== "POST") {
        sendText(res, 405, "method_not_allowed");
        return;
      }
      const rawBody = await readBody(req);
      const answer = handleResponseUrlPost(
        state,
        responseUrls,
        response[1],
        rawBody,
        mediaType(req.headers["content-type"]),
      );
      logger?.debug({ status: answer.status, body: answer.body }, "slack stand-in: response_url");
      sendText(res, answer.status, answer.body);
      return;
    }
    if (path === "/" || path === "/health") {
      sendJson(res, 200, { ok: true, service: "slack-stand-in" });
      return;
    }
    sendText(res, 404, "not_found");
  }

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (error instanceof BodyTooLargeError) {
        sendText(res, 413, "request_too_large");
        return;
      }
      logger?.error({ err: error }, "slack stand-in: request failed");
      if (!res.headersSent) sendJson(res, 500, { ok: false, error: "internal_error" });
      else res.end();
    });
  });

  socket.attach(server);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  logger?.info({ url: baseUrl }, "slack stand-in listening");

  return {
    url: baseUrl,
    apiUrl: `${baseUrl}/api/`,
    state,
    calls,
    faults,
    socket,
    limits,
    events,
    sendSlashCommand: (args) => sendSlashCommand(sender, args),
    clickButton: (args) => clickButton(sender, args),
    resend: (delivery, args) => resend(sender, delivery, args),
    shareLink: (args) => shareLink(sender, args),
    sendEventAgain: (body, timestamp) => sendEventAgain(sender, body, timestamp),
    clickUnfurlButton: (args) => clickUnfurlButton(sender, args),
    submitView: (args) => submitView(sender, args),
    sendMessageShortcut: (args) => sendMessageShortcut(sender, args),
    sendGlobalShortcut: (args) => sendGlobalShortcut(sender, args),
    openHome: (args) => sendAppHomeOpened(sender, args),
    clickHomeButton: (args) => clickHomeButton(sender, args),
    waitFor: (predicate, timeoutMs) => waitFor(predicate, timeoutMs),
    setEventsUrl(url) {
      eventsUrl = url;
    },
    setScopes(scopes) {
      api.scopes = [...scopes];
    },
    expireResponseUrl(idOrUrl) {
      responseUrls.expire(idOrUrl);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        socket.close();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
