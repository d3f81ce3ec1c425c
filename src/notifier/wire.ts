import type { Infrastructure } from "../app/infrastructure.js";
import type { Service, Wired } from "../app/service.js";
import type { GitHubGateway, PermissionLookup } from "../commands/ports.js";
import type { QueueEventPushes, StoredEvents } from "../core/pushed-events.js";
import type { QueueEvent, QueueEventLog } from "../core/queue.js";
import { CheckRunReader } from "../github/check-runs.js";
import type { GitHubWrites } from "../github/github-writes.js";
import type { GitHubAppConnection } from "../github/probot.js";
import { removalSummaryWriter } from "../github/removal-summary.js";
import type { Repo } from "../repo.js";
import { Backoffs } from "./backoff.js";
import type { NoticeChat } from "./chat.js";
import { Deliverer } from "./deliverer.js";
import { directMessagePoster } from "./direct-poster.js";
import { DoorbellWatch } from "./doorbell-watch.js";
import { FailureDetailsKeeper } from "./failure-details.js";
import { withAlsoFailed } from "./notes.js";
import { PersonalNotices } from "./personal-notices.js";
import { Poller } from "./poller.js";
import { PushedNotices } from "./pushed-notices.js";
import { notificationRenderer } from "./render-notification.js";

export interface NotifierDeps {
  infra: Pick<
    Infrastructure,
    | "config"
    | "options"
    | "logger"
    | "metrics"
    | "store"
    | "owner"
    | "now"
    | "urls"
    | "trackWebhookWork"
    | "work"
  > &
    Pick<Infrastructure, "rings">;
  /** Where the notices are said: a chat surface's poster, holds and pace (Slack's: src/slack/chat-posters.ts). */
  chat: NoticeChat;
  backends: NotifierBackends;
  /**
   * The commands' GitHub (pull requests' titles and authors), who may read a repository (cached), and the
   * app's write queue (a removal's summary comment; null when the app is off).
   */
  github: { gateway: GitHubGateway; readPermission: PermissionLookup; writes?: GitHubWrites | null };
  /** The GitHub App: the doorbell, GitHub's merge queue's webhooks; null when it is off. */
  app: GitHubAppConnection | null;
  /** GitHub's check runs, read within the shared pace and cached (src/github/wire.ts); null: the app is off. */
  checkRuns?: CheckRunReader | null;
  /** Refreshed when a person's pull request moves (personal notices): Slack's Home tab. */
  home: { refreshSoon(person: { teamId: string; slackUserId: string }): void } | null;
  /** Acts on removals for a check failing for everyone (src/shield), before their notices; null: off. */
  shield?: { consider(repository: Repo, event: QueueEvent): Promise<QueueEvent> } | null;
}

/**
 * What the notifier takes of the merge queues, in the core's terms (src/backends/wire.ts builds it; the
 * notifier imports no backend: .dependency-cruiser.cjs).
 */
export interface NotifierBackends {
  /** The log the poller reads; null when no repository is on a backend that has one. */
  eventLog: QueueEventLog | null;
  /** Whether the poller reads the repository's log (false: its backend pushes its events). */
  readsLog(repository: Repo): Promise<boolean>;
  /** The events backends push as they happen; null when none may push (the notifier then only reads). */
  pushes: QueueEventPushes | null;
  /** Reads back outbox rows and threads' states, those an earlier version stored in its format too. */
  storedEvents: StoredEvents;
}

export interface NotifierWiring extends Wired {
  poller: Poller;
  deliverer: Deliverer;
  /**
   * Hands a queue event that no backend brings (Yardmaster's own finding: a merge outside the queue,
   * src/outside-merges) to the notices, as a pushed one is: recorded in the history, routed, queued in
   * the outbox (once per address, by its id), delivered.
   */
  tell(repository: Repo, event: QueueEvent): Promise<void>;
}

/**
 * The notifier (src/notifier): the deliverer posting the outbox at its chat's pace, personal notices, the
 * poller reading the backends' logs (rung by the hub's `rings`), and the notices of the events backends
 * push (GitHub's merge queue: its webhooks and the gate's pauses, as queue events).
 */
export function wireNotifier(deps: NotifierDeps): NotifierWiring {
  const { infra, app } = deps;
  const { store, logger, now } = infra;
  // Why a removal's checks failed: read once, its notices wait a while for it (failure-details.ts).
  const late: { poller?: Poller; deliverer?: Deliverer } = {};
  const details = failureDetails(deps, () => {
    // The channels whose notices wait for them, or are to be edited with them, are delivered now.
    const deliver = async () => {
      await late.deliverer?.askAll();
      await late.poller?.deliver();
    };
    deliver().catch((error: unknown) => logger.warn({ err: error }, "delivery failed"));
  });
  const deliverer = wireDeliverer(deps, details);
  late.deliverer = deliverer;
  // Personal notices need the pull request's author, from GitHub.
  const personal = app
    ? new PersonalNotices({
        store,
        author: async (repository, number) =>
          (await deps.github.gateway.pullRequest(repository, number))?.author.login ?? null,
        permission: deps.github.readPermission,
        onPullRequestChange: (person) => deps.home?.refreshSoon(person),
        storedEvents: deps.backends.storedEvents,
        logger: logger.child({ name: "notifier" }),
        now: infra.options.now,
      })
    : undefined;
  const history = {
    record: (repository: Repo, events: Parameters<typeof store.recordQueueEvents>[1]) =>
      store.recordQueueEvents(repository, events, now()),
  };
  // A failed check that also failed for others says so (notes.ts), whether read or pushed; and what the
  // flake shield did of it.
  const { shield } = deps;
  const annotate = async (repository: Repo, event: QueueEvent) => {
    const noted = await withAlsoFailed(store, repository, event);
    return shield ? shield.consider(repository, noted) : noted;
  };
  const poller = wirePoller(deps, deliverer, {
    personal,
    history,
    annotate,
    ...(details ? { details } : {}),
  });
  late.poller = poller;
  infra.rings.listen((repository) => poller.ring(repository));
  // A backend that pushes its events (GitHub's merge queue) is heard, not read (pushed-notices.ts); so
  // are Yardmaster's own findings (`tell`).
  const pushed = new PushedNotices({
    deliverer,
    ...(personal ? { personal } : {}),
    subscriptions: (repository) => store.listSubscriptions({ repository }),
    deliver: () => poller.deliver(),
    track: infra.trackWebhookWork,
    history,
    annotate,
    ...(details ? { details } : {}),
    logger: logger.child({ name: "notifier" }),
  });
  deps.backends.pushes?.listen((repository, event) => pushed.accept(repository, event));
  return {
    poller,
    deliverer,
    tell: (repository, event) => pushed.accept(repository, event),
    services: [notifierService(deps, poller, doorbellWatch(deps), details)],
  };
}

/**
 * Why a removal's checks failed, read from GitHub's check runs as the repository's installation, and the
 * pull request's summary comment that shows it; none without the GitHub App.
 */
function failureDetails(
  { infra, app, github, checkRuns }: NotifierDeps,
  deliver: () => void,
): FailureDetailsKeeper | undefined {
  if (!app) return undefined;
  const { installations } = app;
  const githubWebUrl = infra.urls.webUrl;
  const reader =
    checkRuns ?? new CheckRunReader({ octokitFor: (repo) => installations.rest(repo), githubWebUrl });
  const summarize = github.writes
    ? removalSummaryWriter({
        octokitFor: (repo) => installations.rest(repo),
        writes: github.writes,
        appSlug: app.appSlug,
        claims: { records: infra.store, owner: infra.owner },
        githubWebUrl,
      })
    : undefined;
  return new FailureDetailsKeeper({
    store: infra.store,
    work: infra.work,
    read: (repository, event) => reader.failures(repository, event.ranOn, event.failedChecks),
    summarize,
    deliver,
    track: infra.trackWebhookWork,
    owner: infra.owner,
    logger: infra.logger.child({ name: "notifier" }),
  });
}

function wireDeliverer(
  { infra, chat, github, backends }: NotifierDeps,
  details: FailureDetailsKeeper | undefined,
): Deliverer {
  const { options } = infra;
  const { pace } = chat;
  return new Deliverer({
    store: infra.store,
    poster: directMessagePoster(chat.poster, (user) => chat.openDirect(user)),
    holds: chat.holds,
    render: notificationRenderer,
    pullInfo: async (repository, number) => {
      const pull = await github.gateway.pullRequest(repository, number);
      return pull ? { number, title: pull.title, url: pull.url } : null;
    },
    backoffs: new Backoffs(infra.store),
    storedEvents: backends.storedEvents,
    githubWebUrl: infra.urls.webUrl,
    owner: infra.owner,
    work: infra.work,
    // A backlog drains at about a post a second per channel, not into Slack's 429s.
    ...(pace ? { pace } : {}),
    ...(details ? { details } : {}),
    metrics: infra.metrics,
    logger: infra.logger.child({ name: "notifier" }),
    now: options.now,
  });
}

/**
 * Without a log to read (MERGE_QUEUE_PROVIDER=github) the poller reads nothing and only delivers what
 * was pushed; with auto it skips the repositories whose backend pushes (GitHub's queue).
 */
function wirePoller(
  { infra, backends, app }: NotifierDeps,
  deliverer: Deliverer,
  made: Pick<ConstructorParameters<typeof Poller>[0], "personal" | "history" | "annotate" | "details">,
): Poller {
  const { config, options } = infra;
  const announced = app?.installations;
  return new Poller({
    store: infra.store,
    work: infra.work,
    eventLog: backends.eventLog,
    history: made.history,
    annotate: made.annotate,
    ...(made.details ? { details: made.details } : {}),
    readsLog: (repository) => backends.readsLog(repository),
    deliverer,
    ...(made.personal ? { personal: made.personal } : {}),
    intervalMs: config.pollIntervalSeconds * 1000,
    idleMs: config.pollIdleSeconds * 1000,
    minGapMs: config.doorbellMinGapSeconds * 1000,
    ...(announced ? { doorbellServes: (repository) => announced.announcesActivity(repository) } : {}),
    owner: infra.owner,
    metrics: infra.metrics,
    logger: infra.logger.child({ name: "notifier" }),
    now: options.now,
    concurrency: options.pollConcurrency,
  });
}

/**
 * Where an idle repository may wait POLL_IDLE_SECONDS (the GitHub App's doorbell, a log to read), what
 * brings it back to the interval once its installation no longer announces its activity.
 */
function doorbellWatch({ infra, backends, app }: NotifierDeps): DoorbellWatch | null {
  const { config } = infra;
  const installations = app?.installations;
  if (!installations || !backends.eventLog || config.pollIdleSeconds <= config.pollIntervalSeconds)
    return null;
  return new DoorbellWatch({
    store: infra.store,
    work: infra.work,
    doorbellServes: (repository) => installations.announcesActivity(repository),
    intervalMs: config.pollIntervalSeconds * 1000,
    logger: infra.logger.child({ name: "notifier" }),
    now: infra.now,
  });
}

/**
 * The poller's reads and the doorbell's watch (kinds of durable work this replica's runner claims) and
 * its deliveries' look, once listening (unless `autoPoll` is off: tests tick them by hand).
 */
function notifierService(
  { infra, backends, app }: NotifierDeps,
  poller: Poller,
  watch: DoorbellWatch | null,
  details: FailureDetailsKeeper | undefined,
): Service {
  const { config, logger } = infra;
  const pushes = backends.pushes !== null;
  return {
    name: "notifier",
    start: () => {
      if (infra.options.autoPoll === false) return;
      poller.start();
      details?.start();
      watch
        ?.start()
        .catch((error: unknown) => logger.warn({ err: error }, "could not start the doorbell's watch"));
      logger.info(
        !backends.eventLog
          ? "notifier posting the events the merge queue pushes (GitHub's merge queue's webhooks)"
          : `notifier reading each repository every ${config.pollIntervalSeconds} s${app ? `, or every ${config.pollIdleSeconds} s while idle where GitHub announces its activity` : ""}${pushes ? "; repositories whose merge queue pushes its events (GitHub's) are told by it" : ""}`,
      );
    },
    stop: async () => {
      await Promise.all([poller.stop(), watch?.stop(), details?.stop()]);
    },
  };
}
