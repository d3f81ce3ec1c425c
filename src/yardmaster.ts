import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import type { ProbotOctokit } from "probot";
import { backendPlan, queueBackends, queueStatsEvents } from "./backends/choose.js";
import { GitHubQueueClient } from "./backends/github/client.js";
import { createGitHubGate, registerGateWebhooks, routedPauses } from "./backends/github/gate/index.js";
import { withoutMergify } from "./backends/github/without-mergify.js";
import { type CallRecord, MergeQueueClient } from "./backends/mergify/index.js";
import { mergifyEventLog } from "./backends/mergify/queue-events.js";
import { cachedPermission } from "./commands/cached-permission.js";
import { githubQueueServing } from "./commands/github-queue.js";
import type { MergeQueue, StatsDays } from "./commands/ports.js";
import { RelayFollower } from "./commands/relay-follow.js";
import type { RunDeps } from "./commands/run.js";
import { ScheduledUnpauser } from "./commands/scheduled-unpause.js";
import { databaseWhere } from "./doctor/database.js";
import { logSetupReport } from "./doctor/log-report.js";
import { runSetupCheck, type SetupCheckDeps, setupCheck } from "./doctor/run-setup-check.js";
import { slackFreezeAnnouncer } from "./freezes/announce.js";
import { nextFreeze } from "./freezes/present.js";
import { FreezeRunner } from "./freezes/runner.js";
import { GitHubWrites, type WriteLimits, type WriteRetry } from "./github/github-writes.js";
import { Installations, unavailableGateway } from "./github/installations.js";
import { startGitHubSurface, WEBHOOKS_PATH } from "./github/probot.js";
import { WebhookArrivals, WebhookJobs } from "./github/webhook-jobs.js";
import { StoreWritePace } from "./github/write-pace.js";
import type { Config } from "./load-config.js";
import type { Logger } from "./logger.js";
import { createMetrics, type Metrics } from "./metrics.js";
import { Backoffs } from "./notifier/backoff.js";
import { Deliverer } from "./notifier/deliverer.js";
import { Digests } from "./notifier/digests.js";
import { directMessagePoster } from "./notifier/direct-poster.js";
import { PersonalNotices } from "./notifier/personal-notices.js";
import { currentReadReason, Poller } from "./notifier/poller.js";
import { PushedNotices } from "./notifier/pushed-notices.js";
import { notificationRenderer } from "./notifier/render-notification.js";
import { type PostPace, SLACK_POST_PACE } from "./notifier/slack-holds.js";
import { webApiDigestPoster, webApiPoster } from "./notifier/slack-poster.js";
import type { Repo } from "./repo.js";
import { healthHandler, metricsHandler } from "./server/health.js";
import { createHttpServer, type Handler } from "./server/http-server.js";
import { InFlight } from "./server/in-flight.js";
import { githubUrls } from "./settings/read-settings.js";
import { describeSurfaces } from "./settings/start-log.js";
import type { HomeTab } from "./slack/home-tab.js";
import { loginUrl, OAUTH_CALLBACK_PATH, oauthCallbackHandler } from "./slack/identity-linking.js";
import { slackNamesFromWebApi } from "./slack/names.js";
import { renderResultMessage } from "./slack/render-blocks.js";
import { createSlackSurface, SLACK_EVENTS_PATH, SLACK_MAX_BODY_BYTES } from "./slack/slack-surface.js";
import { slackTimeZoneFromWebApi } from "./slack/user-time-zone.js";
import {
  MIGRATIONS,
  openStore,
  type PauseAttribution,
  type QueueHistory,
  type ScheduledUnpause,
  type Store,
} from "./store/index.js";
import { VERSION } from "./version.js";

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
  /**
   * Each channel's posts at Slack's pace (default SLACK_POST_PACE: a burst of 3, then one a second);
   * false: as fast as Slack answers (tests that tick the notifier by hand on a clock they move).
   */
  slackPace?: PostPace | false;
  /**
   * The clock of the merge queue's time: the notifier, timed pauses, digests, stats and the times answers
   * show ("in 2 h") run on it; default the system's (the benchmark and the end-to-end tests run it on the
   * merge-queue simulator's). What must follow the real time stays on the system clock (signatures,
   * tokens, rate limits, webhook deliveries' records): docs/architecture.md, "Time".
   */
  now?: () => Date;
  /** How often each replica looks for timed pauses to end, ms; default 5 s (tests shorten it). */
  scheduledUnpauseIntervalMs?: number;
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
    /** How long a replica's claim of a comment's job holds, and how often replicas look for lapsed ones. */
    jobLeaseMs?: number;
    jobSweepMs?: number;
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
  /** Weekly digests; null when Slack is off. */
  digests: Digests | null;
  /** Ends timed pauses when their time comes. */
  scheduledUnpauser: ScheduledUnpauser;
  /** Applies freeze windows (src/freezes). */
  freezeRunner: FreezeRunner;
  /**
   * Resolves once the work that webhooks answered on this replica left to do is done: comment commands
   * (run after their webhook's answer) and pushed notices' deliveries.
   */
  webhookWorkDone(): Promise<void>;
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
  metrics.storeProbe.set(() => store.ping());
  // With MERGE_QUEUE_PROVIDER=github the Mergify key may be unset: then nothing calls Mergify.
  const mergify = config.mergeQueue.token
    ? new MergeQueueClient({
        baseUrl: config.mergeQueue.apiUrl,
        token: config.mergeQueue.token,
        ...(options.mergeQueueTimeoutMs ? { timeoutMs: options.mergeQueueTimeoutMs } : {}),
        ...(options.mergeQueueRetries !== undefined ? { retry: { retries: options.mergeQueueRetries } } : {}),
        onCall: (call) => {
          options.onMergeQueueCall?.(call);
          const reason = currentReadReason();
          if (reason) metrics.logRequests.inc({ reason });
          metrics.mergeQueueCalls.inc({
            method: call.method,
            route: call.route,
            status: String(call.status),
          });
          metrics.mergeQueueLatency.observe(call.durationMs / 1000, {
            method: call.method,
            route: call.route,
          });
        },
      })
    : null;
  const mergeQueue: MergeQueue = mergify ?? withoutMergify();
  const history: QueueHistory = store;
  const now = options.now ?? (() => new Date());
  const statsDays: StatsDays = {
    get: (repo, days) => store.getStatsDays(repo, days),
    // Stamped (and old days pruned) on the clock the days are reckoned on.
    put: (repo, day, facts) => store.putStatsDay(repo, day, facts, now()),
  };
  // This process, as the holder of claims and leases in the store shared with other replicas.
  const owner = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  // The merge queue answers relayed commands in the thread: GitHub's webhooks say when (the GitHub App).
  const follower = config.github
    ? new RelayFollower({
        store,
        mergeQueue,
        owner,
        logger: logger.child({ name: "relays" }),
        now,
      })
    : null;
  // GitHub's own merge queue acts as the repository's installation (known once the GitHub App started).
  let installations: Installations | null = null;
  const plan = backendPlan(config.mergeQueue.provider);
  const backends = !plan.github
    ? undefined
    : queueBackends(
        plan.provider,
        new GitHubQueueClient(
          async (repo) => {
            if (!installations)
              throw new Error("GitHub's merge queue needs the GitHub App, which is not configured");
            return installations.graphql(repo);
          },
          { metrics },
        ),
      );
  // The gate check holds GitHub's merge queue while a branch is paused (src/backends/github/gate/).
  const gate =
    backends && config.github
      ? createGitHubGate({
          store,
          checkName: config.mergeQueue.gateCheckName,
          owner,
          now,
          logger: logger.child({ name: "gate" }),
          octokitFor: async (repo) => {
            if (!installations) throw new Error("the GitHub App has not started");
            return installations.rest(repo);
          },
          gateway: () => github,
          writes: () => githubWrites,
          announce: async (repo, event) => pushed?.acceptEvent(repo, event),
          onGitHubQueue: async (repo, branch) => (await backends.choose(repo, branch)) === "github",
          enqueue: (repo, pull, o) => backends.github.enqueue(repo, pull, o),
        })
      : null;
  // Timed pauses and freeze windows pause whichever queue serves the default branch.
  const pauses = gate
    ? routedPauses(mergeQueue, async (repo) => (await githubQueueServing(backends, repo)) !== null, gate)
    : mergeQueue;
  const statsEvents = queueStatsEvents(mergify, backends, history);
  const common = {
    mergeQueue,
    statsEvents,
    ...(backends ? { queueBackends: backends } : {}),
    ...(gate ? { githubPauses: gate } : {}),
    permissions: config.permissions,
    commandPrefix: config.mergeQueue.commandPrefix,
    ...(follower ? { relayFollow: { store, seconds: config.mergeQueue.followSeconds } } : {}),
    attributePause: (attribution: PauseAttribution) => store.putPauseAttribution(attribution),
    ...(plan.github
      ? {
          attributeDequeue: (repository: Repo, number: number, by: { login: string; at: Date }) =>
            store.rememberRemoval(repository, number, by),
        }
      : {}),
    statsDays,
    pauseAttribution: (repository: Repo) => store.getPauseAttribution(repository),
    unpauseSchedule: {
      now,
      put: (unpause: ScheduledUnpause) => store.putScheduledUnpause(unpause),
      cancel: (repository: Repo) => store.deleteScheduledUnpause(repository),
    },
    freezes: { store, now },
    metrics,
    logger,
    now: options.now,
  };
  // The setup check (src/doctor) on the running store: logged once listening, and `/mq doctor`.
  const setup: SetupCheckDeps = {
    settings: config,
    knownMigrations: MIGRATIONS.map((m) => m.version),
    database: async () => ({
      where: databaseWhere(config.database),
      applied: await store.appliedMigrations(),
    }),
    subscribedRepositories: () => store.listSubscribedRepositories(),
    // The GitHub App's installations once it started: their tokens are this process's own.
    ...(config.github
      ? {
          graphqlFor: (repo: Repo) => {
            if (!installations) throw new Error("the GitHub App has not started");
            return installations.graphql(repo);
          },
        }
      : {}),
  };
  const urls = githubUrls(config.githubHost);
  const inFlight = new InFlight();
  // What webhooks left to do once answered; the stop waits for it as for requests.
  const webhookWork = new InFlight();
  const trackWebhookWork = (work: Promise<unknown>) => {
    inFlight.track(webhookWork.track(work));
  };
  let webhookJobs: WebhookJobs | null = null;
  const arrivals = new WebhookArrivals();
  let stopping = false;

  let poller: Poller | null = null;
  let pushed: PushedNotices | null = null;
  let homeTab: HomeTab | null = null;
  /** The Slack surface's connection, in Socket Mode (started once listening, stopped on close). */
  let slackSocket: { start(): Promise<void>; stop(): Promise<void> } | null = null;
  let deliverer: Deliverer | null = null;
  let digests: Digests | null = null;
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
        // GitHub's limits count per app: every replica of it keeps one pace, in the store they share.
        pace: new StoreWritePace(store, config.github.appId, owner),
        onRateLimited: (status) => metrics.githubRateLimited.inc({ status: String(status) }),
      });
      githubWrites = writes;
      const surface = await startGitHubSurface(
        config.github,
        config.githubHost,
        {
          ...common,
          // A comment command is recorded and answered at once; it runs after (src/github/webhook-jobs.ts).
          jobs: (run) => {
            webhookJobs = new WebhookJobs({
              store,
              owner,
              run,
              track: trackWebhookWork,
              arrivals,
              logger: logger.child({ name: "webhook-jobs" }),
              ...(answers.jobLeaseMs !== undefined ? { leaseMs: answers.jobLeaseMs } : {}),
              ...(answers.jobSweepMs !== undefined ? { sweepMs: answers.jobSweepMs } : {}),
            });
            return webhookJobs;
          },
          writes,
          summaryClaims: { records: store, owner },
          githubWebUrl: urls.webUrl,
          ...(answers.seenAfterMs !== undefined ? { seenAfterMs: answers.seenAfterMs } : {}),
          ...(answers.answerRetryDelayMs !== undefined
            ? { answerRetryDelayMs: answers.answerRetryDelayMs }
            : {}),
          // The poller exists once Slack is configured (below); GitHub's events ring it from then on.
          onRepositoryActivity: async (repository) => {
            await poller?.ring(repository);
          },
          ...(follower ? { relays: { follower, botLogin: config.mergeQueue.botLogin } } : {}),
          // Slack's notifier exists once Slack is configured (below); GitHub's queue webhooks feed it.
          ...(plan.github
            ? { onQueueHappening: async (happening, deliveryId) => pushed?.accept(happening, deliveryId) }
            : {}),
        },
        logger,
        options.Octokit,
        arrivals,
      );
      if (gate) registerGateWebhooks(surface.probot, gate);
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
          onLinked: (person) => homeTab?.refreshSoon(person),
          // A login's link expires on the clock `/mq login` started it on.
          now,
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
      // Who may read a repository, for personal notices and the Home tab (commands ask at the time).
      const readPermission = cachedPermission((repo, login) => github.permission(repo, login));
      const slack = createSlackSurface({
        ...config.slack,
        store,
        githubWebUrl: urls.webUrl,
        logger,
        track: (work) => inFlight.track(work),
        ...(follower ? { relays: follower } : {}),
        run: {
          ...common,
          github,
          slackTimeZone: slackTimeZoneFromWebApi({
            token: config.slack.botToken,
            apiUrl: config.slack.apiUrl,
            logger,
          }),
          setup: setupCheck(setup),
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
        // The Home tab needs GitHub: it shows only the repositories a person can read.
        ...(config.github
          ? {
              home: {
                mergeQueue,
                ...(backends ? { queueBackends: backends } : {}),
                permission: readPermission,
                levels: { dequeue: config.permissions.dequeue, unpause: config.permissions.unpause },
                canLink: oauth !== null && oauth !== undefined,
                nextFreeze: async (repository: Repo) =>
                  nextFreeze(await store.listFreezes(repository), now()),
              },
            }
          : {}),
        ...(options.slackBot ?? {}),
      });
      handlers.push(slack.handler);
      homeTab = slack.home;
      slackSocket = slack;
      const backoffs = new Backoffs(store);
      const slackPoster = webApiPoster({
        token: config.slack.botToken,
        apiUrl: config.slack.apiUrl,
        ...(options.slackBot?.retries !== undefined ? { retries: options.slackBot.retries } : {}),
      });
      deliverer = new Deliverer({
        store,
        poster: directMessagePoster(slackPoster, (user) => slackPoster.openDirect(user)),
        render: notificationRenderer,
        pullInfo: async (repository, number) => {
          const pull = await github.pullRequest(repository, number);
          return pull ? { number, title: pull.title, url: pull.url } : null;
        },
        backoffs,
        githubWebUrl: urls.webUrl,
        owner,
        // A backlog drains at about a post a second per channel, not into Slack's 429s.
        ...(options.slackPace === false ? {} : { pace: options.slackPace ?? SLACK_POST_PACE }),
        metrics,
        logger: logger.child({ name: "notifier" }),
        now: options.now,
      });
      // Weekly digests read what stats reads: Mergify's log, or the history of GitHub's merge queue.
      digests = new Digests({
        store,
        statsEvents,
        statsDays,
        poster: webApiDigestPoster({
          token: config.slack.botToken,
          apiUrl: config.slack.apiUrl,
          ...(options.slackBot?.retries !== undefined ? { retries: options.slackBot.retries } : {}),
        }),
        render: (result, now) => renderResultMessage(result, { now, githubWebUrl: urls.webUrl }),
        timeZone: config.digestTimeZone,
        owner,
        logger: logger.child({ name: "digests" }),
        now: options.now,
      });
      // Personal notices need the pull request's author, from GitHub.
      const personal = config.github
        ? new PersonalNotices({
            store,
            author: async (repository, number) =>
              (await github.pullRequest(repository, number))?.author.login ?? null,
            permission: readPermission,
            onPullRequestChange: (person) => homeTab?.refreshSoon(person),
            logger: logger.child({ name: "notifier" }),
            now: options.now,
          })
        : undefined;
      const announced = installations;
      // With MERGE_QUEUE_PROVIDER=github the poller reads nothing and only delivers what GitHub's webhooks
      // brought; with auto it skips the repositories on GitHub's queue (their notices are pushed).
      poller = new Poller({
        store,
        eventLog: plan.mergify && mergify ? mergifyEventLog(mergify) : null,
        history: { record: (repository, events) => history.recordQueueEvents(repository, events, now()) },
        readsLog: async (repository: Repo) => (await githubQueueServing(backends, repository)) === null,
        deliverer,
        ...(personal ? { personal } : {}),
        intervalMs: config.pollIntervalSeconds * 1000,
        idleMs: config.pollIdleSeconds * 1000,
        minGapMs: config.doorbellMinGapSeconds * 1000,
        ...(announced ? { doorbellServes: (repository) => announced.announcesActivity(repository) } : {}),
        owner,
        metrics,
        logger: logger.child({ name: "notifier" }),
        now: options.now,
        concurrency: options.pollConcurrency,
      });
      // GitHub's own merge queue pushes its notices as webhooks (src/notifier/pushed-notices.ts).
      const app = installations;
      const delivering = poller;
      if (plan.github && app)
        pushed = new PushedNotices({
          deliverer,
          ...(personal ? { personal } : {}),
          memory: store,
          subscriptions: (repository) => store.listSubscriptions({ repository }),
          failedChecks: (repository, sha) => app.failedChecks(repository, sha),
          deliver: () => delivering.deliver(),
          track: trackWebhookWork,
          ...(appSlug ? { appBot: `${appSlug}[bot]` } : {}),
          history: { record: (repository, events) => history.recordQueueEvents(repository, events, now()) },
          metrics,
          logger: logger.child({ name: "notifier" }),
          now: options.now,
        });
    }
  } catch (error) {
    await store.close();
    throw error;
  }

  const scheduledUnpauser = new ScheduledUnpauser({
    claims: store,
    mergeQueue: pauses,
    attributePause: common.attributePause,
    // The notifier reads the repository promptly, as after a GitHub event: the notice follows at once.
    afterUnpause: async (repository) => {
      await poller?.ring(repository);
    },
    owner,
    logger: logger.child({ name: "scheduled-unpause" }),
    now,
    counter: metrics.scheduledUnpauses,
    ...(options.scheduledUnpauseIntervalMs ? { intervalMs: options.scheduledUnpauseIntervalMs } : {}),
  });

  const slackConfig = config.slack;
  const freezeRunner = new FreezeRunner({
    store,
    mergeQueue: pauses,
    attributePause: common.attributePause,
    ...(slackConfig
      ? {
          announce: slackFreezeAnnouncer({
            channels: async (repository) =>
              (await store.listSubscriptions({ repository })).map((s) => s.channelId),
            post: webApiDigestPoster({ token: slackConfig.botToken, apiUrl: slackConfig.apiUrl }).post,
            logger: logger.child({ name: "freezes" }),
          }),
        }
      : {}),
    afterChange: async (repository) => {
      await poller?.ring(repository);
    },
    owner,
    logger: logger.child({ name: "freezes" }),
    now,
    ...(options.scheduledUnpauseIntervalMs ? { intervalMs: options.scheduledUnpauseIntervalMs } : {}),
  });

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
    digests,
    scheduledUnpauser,
    freezeRunner,
    async webhookWorkDone() {
      await webhookWork.idle();
    },
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
      scheduledUnpauser.start();
      freezeRunner.start();
      logger.info({ url, version: VERSION }, `Yardmaster ${VERSION} listening on ${url}`);
      if (config.slack?.appToken) {
        await slackSocket?.start();
        logger.info("Slack surface connected over Socket Mode (no request URL needed)");
      }
      // An answer a stopped replica did not finish showing is shown by another once its lease lapses.
      follower?.start();
      // A command whose replica stopped or died before it ran is run by another once its claim lapses.
      webhookJobs?.start();
      if (poller && options.autoPoll !== false) {
        poller.start();
        digests?.start();
        logger.info(
          !plan.mergify
            ? "notifier posting what GitHub's merge queue announces in its webhooks"
            : `notifier reading each repository every ${config.pollIntervalSeconds} s${installations ? `, or every ${config.pollIdleSeconds} s while idle where GitHub announces its activity` : ""}${plan.github ? "; repositories on GitHub's merge queue are told by its webhooks" : ""}`,
        );
      }
      if (config.setupCheckOnStart) {
        // Once, in the background: the start neither waits for it nor fails for what it finds, and a
        // stop does not wait for it either (what it would say once the store is closed is not logged).
        void runSetupCheck(setup).then(
          (report) => {
            if (!stopping) logSetupReport(report, logger.child({ name: "setup-check" }));
          },
          (error: unknown) => logger.warn({ err: error }, "the setup check could not run"),
        );
      }
      return { url, port };
    },
    close({ timeoutMs = 0 } = {}) {
      closing ??= (async () => {
        stopping = true;
        homeTab?.stop();
        await slackSocket
          ?.stop()
          .catch((error: unknown) => logger.warn({ err: error }, "Socket Mode did not close"));
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const deadline = AbortSignal.timeout(timeoutMs);
        const [finished, pollerStopped, unpauserStopped] = await Promise.all([
          inFlight.idle(deadline),
          poller ? before(Promise.all([poller.stop(), digests?.stop()]), deadline) : true,
          before(
            Promise.all([
              scheduledUnpauser.stop(),
              freezeRunner.stop(),
              follower?.stop(),
              webhookJobs?.stop(),
            ]),
            deadline,
          ),
        ]);
        const abandoned =
          (finished ? 0 : inFlight.size) + (pollerStopped ? 0 : 1) + (unpauserStopped ? 0 : 1);
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
