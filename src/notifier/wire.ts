import type { Infrastructure } from "../app/infrastructure.js";
import type { Service, Wired } from "../app/service.js";
import type { Backends } from "../backends/wire.js";
import type { GitHubGateway, PermissionLookup } from "../commands/ports.js";
import type { GitHubAppConnection } from "../github/probot.js";
import type { Repo } from "../repo.js";
import type { HomeTab } from "../slack/home/home-tab.js";
import { Backoffs } from "./backoff.js";
import { Deliverer } from "./deliverer.js";
import { directMessagePoster } from "./direct-poster.js";
import { withAlsoFailed } from "./notes.js";
import { PersonalNotices } from "./personal-notices.js";
import { Poller } from "./poller.js";
import { PushedNotices } from "./pushed-notices.js";
import { notificationRenderer } from "./render-notification.js";
import { SLACK_POST_PACE } from "./slack-holds.js";
import { webApiPoster } from "./slack-poster.js";

export interface NotifierDeps {
  infra: Pick<
    Infrastructure,
    "config" | "options" | "logger" | "metrics" | "store" | "owner" | "now" | "urls" | "trackWebhookWork"
  > &
    Pick<Infrastructure, "rings" | "happenings" | "announcements">;
  slack: { botToken: string; apiUrl: string };
  backends: Pick<Backends, "plan" | "eventLog" | "readsLog">;
  /** The commands' GitHub (pull requests' titles and authors), and who may read a repository (cached). */
  github: { gateway: GitHubGateway; readPermission: PermissionLookup };
  /** The GitHub App: the doorbell, GitHub's merge queue's webhooks; null when it is off. */
  app: GitHubAppConnection | null;
  /** Refreshed when a person's pull request moves (personal notices). */
  home: HomeTab | null;
}

export interface NotifierWiring extends Wired {
  poller: Poller;
  deliverer: Deliverer;
}

/**
 * The notifier (src/notifier): the deliverer posting the outbox at Slack's pace, personal notices, the
 * poller reading the backends' logs (rung by the hub's `rings`), and the notices GitHub's merge queue
 * pushes (told by the hub's `happenings`).
 */
export function wireNotifier(deps: NotifierDeps): NotifierWiring {
  const { infra, app } = deps;
  const { store, logger, now } = infra;
  const deliverer = wireDeliverer(deps);
  // Personal notices need the pull request's author, from GitHub.
  const personal = app
    ? new PersonalNotices({
        store,
        author: async (repository, number) =>
          (await deps.github.gateway.pullRequest(repository, number))?.author.login ?? null,
        permission: deps.github.readPermission,
        onPullRequestChange: (person) => deps.home?.refreshSoon(person),
        logger: logger.child({ name: "notifier" }),
        now: infra.options.now,
      })
    : undefined;
  const history = {
    record: (repository: Repo, events: Parameters<typeof store.recordQueueEvents>[1]) =>
      store.recordQueueEvents(repository, events, now()),
  };
  const poller = wirePoller(deps, deliverer, personal, history);
  infra.rings.listen((repository) => poller.ring(repository));
  // GitHub's own merge queue pushes its notices as webhooks (src/notifier/pushed-notices.ts).
  if (deps.backends.plan.github && app) {
    const pushed = new PushedNotices({
      deliverer,
      ...(personal ? { personal } : {}),
      memory: store,
      subscriptions: (repository) => store.listSubscriptions({ repository }),
      failedChecks: (repository, sha) => app.installations.failedChecks(repository, sha),
      deliver: () => poller.deliver(),
      track: infra.trackWebhookWork,
      appBot: `${app.appSlug}[bot]`,
      askedOf: (repository, number) => store.getQueueRequest(repository, number),
      history,
      annotate: (repository, event) => withAlsoFailed(store, repository, event),
      metrics: infra.metrics,
      logger: logger.child({ name: "notifier" }),
      now: infra.options.now,
    });
    infra.happenings.listen((happening, deliveryId) => pushed.accept(happening, deliveryId));
    // The gate's pauses and resumes of GitHub's merge queue, which GitHub does not announce.
    infra.announcements.listen((repository, event) => pushed.acceptEvent(repository, event));
  }
  return { poller, deliverer, services: [notifierService(deps, poller)] };
}

function wireDeliverer({ infra, slack, github }: NotifierDeps): Deliverer {
  const { options } = infra;
  const slackPoster = webApiPoster({
    token: slack.botToken,
    apiUrl: slack.apiUrl,
    ...(options.slackBot?.retries !== undefined ? { retries: options.slackBot.retries } : {}),
  });
  return new Deliverer({
    store: infra.store,
    poster: directMessagePoster(slackPoster, (user) => slackPoster.openDirect(user)),
    render: notificationRenderer,
    pullInfo: async (repository, number) => {
      const pull = await github.gateway.pullRequest(repository, number);
      return pull ? { number, title: pull.title, url: pull.url } : null;
    },
    backoffs: new Backoffs(infra.store),
    githubWebUrl: infra.urls.webUrl,
    owner: infra.owner,
    // A backlog drains at about a post a second per channel, not into Slack's 429s.
    ...(options.slackPace === false ? {} : { pace: options.slackPace ?? SLACK_POST_PACE }),
    metrics: infra.metrics,
    logger: infra.logger.child({ name: "notifier" }),
    now: options.now,
  });
}

/**
 * With MERGE_QUEUE_PROVIDER=github the poller reads nothing and only delivers what GitHub's webhooks
 * brought; with auto it skips the repositories on GitHub's queue (their notices are pushed).
 */
function wirePoller(
  { infra, backends, app }: NotifierDeps,
  deliverer: Deliverer,
  personal: PersonalNotices | undefined,
  history: ConstructorParameters<typeof Poller>[0]["history"],
): Poller {
  const { config, options } = infra;
  const announced = app?.installations;
  return new Poller({
    store: infra.store,
    eventLog: backends.eventLog,
    ...(history ? { history } : {}),
    annotate: (repository, event) => withAlsoFailed(infra.store, repository, event),
    readsLog: (repository) => backends.readsLog(repository),
    deliverer,
    ...(personal ? { personal } : {}),
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

/** The poller's loop, once listening (unless `autoPoll` is off: tests tick it by hand). */
function notifierService({ infra, backends, app }: NotifierDeps, poller: Poller): Service {
  const { config, logger } = infra;
  const { plan } = backends;
  return {
    name: "notifier",
    start: () => {
      if (infra.options.autoPoll === false) return;
      poller.start();
      logger.info(
        !plan.mergify
          ? "notifier posting what GitHub's merge queue announces in its webhooks"
          : `notifier reading each repository every ${config.pollIntervalSeconds} s${app ? `, or every ${config.pollIdleSeconds} s while idle where GitHub announces its activity` : ""}${plan.github ? "; repositories on GitHub's merge queue are told by its webhooks" : ""}`,
      );
    },
    stop: () => poller.stop(),
  };
}
