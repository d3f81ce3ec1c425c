import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import type { ProbotOctokit } from "probot";
import type { RunDeps } from "./commands/run.js";
import type { DeliveryLog } from "./delivery-log.js";
import { GitHubWrites, type WriteLimits, type WriteRetry } from "./github/github-writes.js";
import { Installations, unavailableGateway } from "./github/installations.js";
import { startGitHubSurface, WEBHOOKS_PATH } from "./github/probot.js";
import type { Config } from "./load-config.js";
import type { Logger } from "./logger.js";
import { type CallRecord, MergeQueueClient } from "./merge-queue/index.js";
import { createMetrics, type Metrics } from "./metrics.js";
import { Backoffs } from "./notifier/backoff.js";
import { Deliverer } from "./notifier/deliverer.js";
import { currentReadReason, Poller } from "./notifier/poller.js";
import { notificationRenderer } from "./notifier/render-notification.js";
import { webApiPoster } from "./notifier/slack-poster.js";
import { healthHandler, metricsHandler } from "./server/health.js";
import { createHttpServer, type Handler } from "./server/http-server.js";
import { InFlight } from "./server/in-flight.js";
import { githubUrls } from "./settings/read-settings.js";
import { describeSurfaces } from "./settings/start-log.js";
import { loginUrl, OAUTH_CALLBACK_PATH, oauthCallbackHandler } from "./slack/identity-linking.js";
import { slackNamesFromWebApi } from "./slack/names.js";
import { createSlackSurface, SLACK_EVENTS_PATH, SLACK_MAX_BODY_BYTES } from "./slack/slack-surface.js";
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

/**
 * The endpoints that take a body and the most each reads; every other path takes none (the HTTP server
 * refuses a larger body, or one of unknown length, before reading it).
 */
export const BODY_LIMITS: Readonly<Record<string, number>> = {
  /** GitHub caps webhook payloads at 25 MB. */
  [WEBHOOKS_PATH]: 25 * 1024 * 1024,
  [SLACK_EVENTS_PATH]: SLACK_MAX_BODY_BYTES,
  [OAUTH_CALLBACK_PATH]: 0,
};

/** How a stop ended: `abandoned` requests and commands were still running at its deadline (0: none). */
export interface CloseReport {
  abandoned: number;
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
  /**
   * Stops: no new connection or request is accepted; requests in flight, commands still running after
   * their answer and the poller's tick get `timeoutMs` (default 0) to finish, then are abandoned; the
   * store is closed. Calling it again returns the same stop.
   */
  close(options?: { timeoutMs?: number }): Promise<CloseReport>;
}

/** The composition root: every surface on one HTTP server (docs/architecture.md). */
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
      const reason = currentReadReason();
      if (reason) metrics.logRequests.inc({ reason });
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
  const inFlight = new InFlight();
  let stopping = false;

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
  let installations: Installations | null = null;
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
          // The poller exists once Slack is configured (below); GitHub's events ring it from then on.
          onRepositoryActivity: async (repository) => {
            await poller?.ring(repository);
          },
        },
        logger,
        options.Octokit,
      );
      appSlug = surface.appSlug;
      installations = new Installations(surface.probot);
      github = installations.gateway(writes);
      handlers.push(surface.handler);
    }
    if (config.oauth) {
      const slackConfig = config.slack;
      handlers.push(
        oauthCallbackHandler({
          ...config.oauth,
          ...urls,
          publicUrl: config.publicUrl,
          store,
          logger,
          ...(slackConfig
            ? {
                slackNames: slackNamesFromWebApi({
                  token: slackConfig.botToken,
                  apiUrl: slackConfig.apiUrl,
                  logger,
                }),
              }
            : {}),
        }),
      );
    }
    if (config.slack) {
      const oauth = config.oauth;
      const slack = createSlackSurface({
        ...config.slack,
        store,
        githubWebUrl: urls.webUrl,
        logger,
        track: (work) => inFlight.track(work),
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
      const announced = installations;
      poller = new Poller({
        store,
        mergeQueue,
        deliverer,
        intervalMs: config.pollIntervalSeconds * 1000,
        idleMs: config.pollIdleSeconds * 1000,
        ...(announced ? { doorbellServes: (repository) => announced.announcesActivity(repository) } : {}),
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

  const server = createHttpServer(handlers, logger, {
    bodyLimits: BODY_LIMITS,
    inFlight,
    stopping: () => stopping,
  });
  let closing: Promise<CloseReport> | undefined;
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
        logger.info(
          `notifier reading each repository every ${config.pollIntervalSeconds} s${installations ? `, or every ${config.pollIdleSeconds} s while idle where GitHub announces its activity` : ""}`,
        );
      }
      return { url, port };
    },
    close({ timeoutMs = 0 } = {}) {
      closing ??= (async () => {
        stopping = true;
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const deadline = AbortSignal.timeout(timeoutMs);
        const [finished, pollerStopped] = await Promise.all([
          inFlight.idle(deadline),
          poller ? before(poller.stop(), deadline) : true,
        ]);
        const abandoned = (finished ? 0 : inFlight.size) + (pollerStopped ? 0 : 1);
        server.closeAllConnections();
        await closed;
        await store.close();
        return { abandoned };
      })();
      return closing;
    },
  };
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
