import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import type { ProbotOctokit } from "probot";
import type { RunDeps } from "./commands/run.js";
import type { DeliveryLog } from "./delivery-log.js";
import { GitHubWrites, type WriteLimits, type WriteRetry } from "./github/github-writes.js";
import { installationGateway, unavailableGateway } from "./github/installations.js";
import { startGitHubSurface } from "./github/probot.js";
import type { Config } from "./load-config.js";
import type { Logger } from "./logger.js";
import { type CallRecord, MergeQueueClient } from "./merge-queue/index.js";
import { createMetrics, type Metrics } from "./metrics.js";
import { Backoffs } from "./notifier/backoff.js";
import { Deliverer } from "./notifier/deliverer.js";
import { Poller } from "./notifier/poller.js";
import { notificationRenderer } from "./notifier/render-notification.js";
import { webApiPoster } from "./notifier/slack-poster.js";
import { healthHandler, metricsHandler } from "./server/health.js";
import { createHttpServer, type Handler } from "./server/http-server.js";
import { githubUrls } from "./settings/read-settings.js";
import { describeSurfaces } from "./settings/start-log.js";
import { loginUrl, oauthCallbackHandler } from "./slack/identity-linking.js";
import { createSlackSurface } from "./slack/slack-surface.js";
import { openStore, type PauseAttribution, type Store } from "./store/index.js";

export interface YardmasterOptions {
  logger: Logger;
  /** Tests pass an Octokit with retries and throttling off. */
  Octokit?: typeof ProbotOctokit;
  /** Per-attempt timeout and retries of merge-queue calls (tests shorten them). */
  mergeQueueTimeoutMs?: number;
  mergeQueueRetries?: number;
  /** Tests: Bolt's bot identity (skips auth.test) and Web API retries. */
  slackBot?: { botId: string; botUserId: string; retries?: number };
  /** false: the poller does not run by itself (tests call `poller.tick()`). Default true. */
  autoPoll?: boolean;
  /** The notifier's clock; default the system's (the benchmark runs it on the merge-queue simulator's). */
  now?: () => Date;
  /** Repositories the poller reads at once; default the Poller's. */
  pollConcurrency?: number;
  /** Sees every merge-queue HTTP attempt, besides the metrics (the benchmark counts them). */
  onMergeQueueCall?: (call: CallRecord) => void;
  /**
   * The GitHub surface's answers (src/github): the write queue's limits and retries (default GitHub's
   * figures), when 👀 is sent, when an answer GitHub answered 5xx is tried again. Tests run the same
   * rules faster.
   */
  githubAnswers?: {
    limits?: WriteLimits;
    retry?: Partial<WriteRetry>;
    seenAfterMs?: number;
    answerRetryDelayMs?: number;
  };
}

export interface Yardmaster {
  config: Config;
  metrics: Metrics;
  store: Store;
  appSlug: string | null;
  /** The app's GitHub write queue; null when the GitHub surface is off. */
  githubWrites: GitHubWrites | null;
  /** The notifier's poller and deliverer; null when Slack is off (nowhere to notify). */
  poller: Poller | null;
  deliverer: Deliverer | null;
  listen(): Promise<{ url: string; port: number }>;
  close(): Promise<void>;
}

/** The composition root: every surface on one HTTP server (PRODUCT.md section 6). */
export async function createYardmaster(config: Config, options: YardmasterOptions): Promise<Yardmaster> {
  const { logger } = options;
  const metrics = createMetrics();
  const store = await openStore(config.database, logger);
  const mergeQueue = new MergeQueueClient({
    baseUrl: config.mergeQueue.apiUrl,
    token: config.mergeQueue.token,
    ...(options.mergeQueueTimeoutMs ? { timeoutMs: options.mergeQueueTimeoutMs } : {}),
    ...(options.mergeQueueRetries !== undefined ? { retry: { retries: options.mergeQueueRetries } } : {}),
    onCall: (call) => {
      options.onMergeQueueCall?.(call);
      metrics.mergeQueueCalls.inc({ method: call.method, route: call.route, status: String(call.status) });
      metrics.mergeQueueLatency.observe(call.durationMs / 1000, { method: call.method, route: call.route });
    },
  });
  const common = {
    mergeQueue,
    permissions: config.permissions,
    commandPrefix: config.mergeQueue.commandPrefix,
    attributePause: (attribution: PauseAttribution) => store.putPauseAttribution(attribution),
    metrics,
    logger,
  };
  const deliveries: DeliveryLog = { claim: (id) => store.claimDelivery(id, new Date()) };
  const urls = githubUrls(config.githubHost);

  let poller: Poller | null = null;
  let deliverer: Deliverer | null = null;
  const handlers: Handler[] = [
    healthHandler({
      storeReachable: () => store.ping(),
      ...(config.slack ? { pollerLastTick: () => poller?.lastSuccessfulTick ?? null } : {}),
    }),
    metricsHandler(metrics),
  ];
  let appSlug: string | null = null;
  let github: RunDeps["github"] = unavailableGateway();
  let githubWrites: GitHubWrites | null = null;
  try {
    if (config.github) {
      const answers = options.githubAnswers ?? {};
      const writes = new GitHubWrites({
        logger: logger.child({ name: "github-writes" }),
        ...(answers.limits ? { limits: answers.limits } : {}),
        ...(answers.retry ? { retry: answers.retry } : {}),
      });
      githubWrites = writes;
      const surface = await startGitHubSurface(
        config.github,
        config.githubHost,
        {
          ...common,
          deliveries,
          writes,
          githubWebUrl: urls.webUrl,
          ...(answers.seenAfterMs !== undefined ? { seenAfterMs: answers.seenAfterMs } : {}),
          ...(answers.answerRetryDelayMs !== undefined
            ? { answerRetryDelayMs: answers.answerRetryDelayMs }
            : {}),
        },
        logger,
        options.Octokit,
      );
      appSlug = surface.appSlug;
      github = installationGateway(surface.probot, writes);
      handlers.push(surface.handler);
    }
    if (config.oauth) {
      handlers.push(
        oauthCallbackHandler({ ...config.oauth, ...urls, publicUrl: config.publicUrl, store, logger }),
      );
    }
    if (config.slack) {
      const oauth = config.oauth;
      const slack = createSlackSurface({
        ...config.slack,
        store,
        githubWebUrl: urls.webUrl,
        logger,
        run: {
          ...common,
          github,
          account: {
            store,
            loginUrl: oauth
              ? (state) =>
                  loginUrl(
                    { clientId: oauth.clientId, webUrl: urls.webUrl, publicUrl: config.publicUrl },
                    state,
                  )
              : null,
          },
        },
        ...(options.slackBot ?? {}),
      });
      handlers.push(slack.handler);
      const owner = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
      const backoffs = new Backoffs(store);
      deliverer = new Deliverer({
        store,
        poster: webApiPoster({
          token: config.slack.botToken,
          apiUrl: config.slack.apiUrl,
          ...(options.slackBot?.retries !== undefined ? { retries: options.slackBot.retries } : {}),
        }),
        render: notificationRenderer,
        pullInfo: async (repository, number) => {
          const pull = await github.pullRequest(repository, number);
          return pull ? { number, title: pull.title, url: pull.url } : null;
        },
        backoffs,
        githubWebUrl: urls.webUrl,
        owner,
        metrics,
        logger: logger.child({ name: "notifier" }),
        now: options.now,
      });
      poller = new Poller({
        store,
        mergeQueue,
        deliverer,
        backoffs,
        intervalMs: config.pollIntervalSeconds * 1000,
        owner,
        metrics,
        logger: logger.child({ name: "notifier" }),
        now: options.now,
        concurrency: options.pollConcurrency,
      });
    }
  } catch (error) {
    await store.close();
    throw error;
  }

  const server = createHttpServer(handlers, logger);
  return {
    config,
    metrics,
    store,
    appSlug,
    githubWrites,
    poller,
    deliverer,
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
      if (poller && options.autoPoll !== false) {
        poller.start();
        logger.info(`notifier polling every ${config.pollIntervalSeconds} s`);
      }
      return { url, port };
    },
    async close() {
      await poller?.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await store.close();
    },
  };
}
