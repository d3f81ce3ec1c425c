import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { WEBHOOKS_PATH } from "../github/probot.js";
import { CONFIRMATION_MAX_BODY_BYTES, OAUTH_CALLBACK_PATH } from "../identity/linking.js";
import { healthHandler, metricsHandler } from "../server/health.js";
import { createHttpServer, type Handler } from "../server/http-server.js";
import { SLACK_EVENTS_PATH, SLACK_MAX_BODY_BYTES } from "../slack/slack-surface.js";
import { VERSION } from "../version.js";
import type { Infrastructure } from "./infrastructure.js";
import type { Service } from "./service.js";
import { describeSurfaces } from "./start-log.js";
import type { CloseReport, Yardmaster } from "./types.js";

/**
 * The endpoints that take a body and the most each reads; every other path takes none (the HTTP server
 * refuses a larger body, or one of unknown length, before reading it).
 */
export const BODY_LIMITS: Readonly<Record<string, number>> = {
  /** GitHub caps webhook payloads at 25 MB. */
  [WEBHOOKS_PATH]: 25 * 1024 * 1024,
  [SLACK_EVENTS_PATH]: SLACK_MAX_BODY_BYTES,
  /** The confirmation form after GitHub's sign-in: its one-time state and the button pressed. */
  [OAUTH_CALLBACK_PATH]: CONFIRMATION_MAX_BODY_BYTES,
};

export interface Parts {
  /** Every feature's endpoints, tried in this order. */
  handlers: Handler[];
  /** Connections that bring requests besides the server (Slack's Socket Mode): stopped first. */
  connections: Service[];
  /** Every feature's background services, started in this order once listening. */
  services: Service[];
  /** The GitHub App's slug, for the start log; null when it is off. */
  appSlug: string | null;
  /** When the notifier's poller last finished a pass, for /healthz; absent without the notifier. */
  pollerLastTick?: () => Date | null;
}

/**
 * One HTTP server for /healthz, /metrics and every feature's endpoints; starting and stopping the app.
 * With METRICS_PORT, /metrics is served by a second server on that port alone (the main one answers it
 * 404): the port GitHub and Slack reach does not show the repositories, channels and version it names.
 */
export function serve(
  infra: Infrastructure,
  parts: Parts,
): Pick<Yardmaster, "listen" | "close" | "webhookWorkDone"> {
  const { config, logger, inFlight, store } = infra;
  const health = healthHandler({
    storeReachable: () => store.ping(),
    ...(parts.pollerLastTick ? { pollerLastTick: parts.pollerLastTick } : {}),
  });
  const metrics = metricsHandler(infra.metrics);
  const apart = config.metricsPort !== undefined;
  const handlers = [health, ...(apart ? [] : [metrics]), ...parts.handlers];
  const stopping = () => infra.stopping.signal.aborted;
  const server = createHttpServer(handlers, logger, { bodyLimits: BODY_LIMITS, inFlight, stopping });
  const metricsServer = apart ? createHttpServer([metrics], logger, { stopping }) : null;
  let closing: Promise<CloseReport> | undefined;
  return {
    async webhookWorkDone() {
      await infra.webhookWork.idle();
    },
    async listen() {
      const host = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;
      const port = await listenOn(server, config.port, config.host);
      const url = `http://${host}:${port}`;
      const metricsUrl = metricsServer
        ? `http://${host}:${await listenOn(metricsServer, config.metricsPort ?? 0, config.host)}/metrics`
        : `${url}/metrics`;
      for (const line of describeSurfaces(config)) logger.info(line);
      if (parts.appSlug) logger.info(`GitHub commands: comment "@${parts.appSlug} help" on a pull request`);
      logger.info({ url, metricsUrl, version: VERSION }, `Yardmaster ${VERSION} listening on ${url}`);
      for (const service of [...parts.connections, ...parts.services]) await service.start();
      return { url, port, metricsUrl };
    },
    close({ timeoutMs = 0 } = {}) {
      closing ??= (async () => {
        infra.stopping.abort();
        for (const connection of parts.connections) await connection.stop();
        const closed = Promise.all(
          [server, ...(metricsServer ? [metricsServer] : [])].map(
            (s) => new Promise<void>((resolve) => (s.listening ? s.close(() => resolve()) : resolve())),
          ),
        );
        server.closeIdleConnections();
        metricsServer?.closeIdleConnections();
        // Requests in flight, work left after answers, and each service's work get until the deadline.
        const deadline = AbortSignal.timeout(timeoutMs);
        const [finished, ...stopped] = await Promise.all([
          inFlight.idle(deadline),
          ...parts.services.map((service) => before(service.stop(), deadline)),
        ]);
        const abandoned = (finished ? 0 : inFlight.size) + stopped.filter((done) => !done).length;
        server.closeAllConnections();
        metricsServer?.closeAllConnections();
        await closed;
        await store.close();
        return { abandoned };
      })();
      return closing;
    },
  };
}

/** Listens on `port` (0: any free one); the port taken. */
async function listenOn(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/** True once `work` is done, false if `signal` aborts first. */
function before(work: Promise<unknown>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const abort = () => resolve(false);
    signal.addEventListener("abort", abort, { once: true });
    work.then(
      () => {
        signal.removeEventListener("abort", abort);
        resolve(true);
      },
      () => {
        signal.removeEventListener("abort", abort);
        resolve(true);
      },
    );
  });
}
