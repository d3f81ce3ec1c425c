import type { AddressInfo } from "node:net";
import type { ProbotOctokit } from "probot";
import { type Config, describeSurfaces } from "./config/load-config.js";
import { memoryDeliveryLog } from "./delivery-log.js";
import { startGitHubSurface } from "./github/probot.js";
import type { Logger } from "./logger.js";
import { MergeQueueClient } from "./merge-queue/index.js";
import { createMetrics, type Metrics } from "./metrics.js";
import { healthHandler, metricsHandler } from "./server/health.js";
import { createHttpServer, type Handler } from "./server/http-server.js";

export interface YardmasterOptions {
  logger: Logger;
  /** Tests pass an Octokit with retries and throttling off. */
  Octokit?: typeof ProbotOctokit;
  /** Per-attempt timeout and retry policy of merge-queue calls (tests shorten them). */
  mergeQueueTimeoutMs?: number;
  mergeQueueRetries?: number;
}

export interface Yardmaster {
  config: Config;
  metrics: Metrics;
  appSlug: string | null;
  listen(): Promise<{ url: string; port: number }>;
  close(): Promise<void>;
}

/** The composition root: every surface on one HTTP server (PRODUCT.md section 6). */
export async function createYardmaster(config: Config, options: YardmasterOptions): Promise<Yardmaster> {
  const { logger } = options;
  const metrics = createMetrics();
  const mergeQueue = new MergeQueueClient({
    baseUrl: config.mergeQueue.apiUrl,
    token: config.mergeQueue.token,
    ...(options.mergeQueueTimeoutMs ? { timeoutMs: options.mergeQueueTimeoutMs } : {}),
    ...(options.mergeQueueRetries !== undefined ? { retry: { retries: options.mergeQueueRetries } } : {}),
    onCall: (call) => {
      metrics.mergeQueueCalls.inc({ method: call.method, route: call.route, status: String(call.status) });
      metrics.mergeQueueLatency.observe(call.durationMs / 1000, { method: call.method, route: call.route });
    },
  });

  const handlers: Handler[] = [healthHandler({}), metricsHandler(metrics)];
  let appSlug: string | null = null;
  if (config.github) {
    const github = await startGitHubSurface(
      config.github,
      config.githubHost,
      {
        mergeQueue,
        permissions: config.permissions,
        commandPrefix: config.mergeQueue.commandPrefix,
        metrics,
        logger,
        deliveries: memoryDeliveryLog(),
      },
      logger,
      options.Octokit,
    );
    appSlug = github.appSlug;
    handlers.push(github.handler);
  }

  const server = createHttpServer(handlers, logger);
  return {
    config,
    metrics,
    appSlug,
    async listen() {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(config.port, config.host, () => resolve());
      });
      const { port } = server.address() as AddressInfo;
      const host = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;
      const url = `http://${host}:${port}`;
      for (const line of describeSurfaces(config)) logger.info(line);
      if (appSlug) logger.info(`GitHub commands: comment "@${appSlug} help" on a pull request`);
      logger.info({ url }, `Yardmaster listening on ${url}`);
      return { url, port };
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
