import { wireBackends } from "../backends/wire.js";
import { satisfies } from "../core/permission-level.js";
import type { QueueEvent } from "../core/queue.js";
import { wireDigests } from "../digests/wire.js";
import { wireDoctor } from "../doctor/wire.js";
import { wireFreezes } from "../freezes/wire.js";
import { connectGitHubApp } from "../github/probot.js";
import { githubWrites, wireGitHub } from "../github/wire.js";
import { wireHealth } from "../health/wire.js";
import { identityLoginUrl, wireIdentity } from "../identity/wire.js";
import { createMetrics } from "../metrics.js";
import { currentReadReason } from "../notifier/poller.js";
import { wireNotifier } from "../notifier/wire.js";
import { wireOutsideMerges } from "../outside-merges/wire.js";
import { wireRelays } from "../relays/wire.js";
import type { Repo } from "../repo.js";
import { wireShield } from "../shield/wire.js";
import {
  slackAlertPoster,
  slackDigestPoster,
  slackIdentityChat,
  slackNoticeChat,
  slackNoticePoster,
} from "../slack/chat-posters.js";
import { wireSlack } from "../slack/wire.js";
import { openStore } from "../store/index.js";
import { wireTimedPauses } from "../timed-pauses/wire.js";
import { commandPorts } from "./command-ports.js";
import type { Config } from "./config.js";
import { type Infrastructure, infrastructure } from "./infrastructure.js";
import { serve } from "./lifecycle.js";
import type { YardmasterOptions } from "./options.js";
import type { Yardmaster } from "./types.js";

/**
 * The composition root (docs/architecture.md, "Composition"): the infrastructure, then each feature's
 * wiring in order, each given only what was built before it; a feature that must notify one wired later
 * tells the infrastructure's hubs (`rings`, `happenings`, `announcements`), which the later one listens to.
 */
export async function createYardmaster(config: Config, options: YardmasterOptions): Promise<Yardmaster> {
  const metrics = createMetrics();
  const store = await openStore(config.database, options.logger);
  metrics.storeProbe.set(() => store.ping());
  try {
    return await compose(infrastructure(config, options, { metrics, store }));
  } catch (error) {
    await store.close();
    throw error;
  }
}

async function compose(infra: Infrastructure): Promise<Yardmaster> {
  const { config, options, store, metrics, logger, owner, now } = infra;
  const { slack } = config;
  // The GitHub App first: GitHub's merge queue acts as its installations.
  const app = config.github
    ? await connectGitHubApp(config.github, config.githubHost, logger, options.Octokit, now)
    : null;
  const writing = githubWrites(infra, app);
  // GitHub's merge queue reads a merge group's failed checks through the reader the notices' details use
  // (one read of a commit's check runs, in turn with the shared pace).
  const installations =
    app && writing
      ? {
          graphql: (repo: Repo) => app.installations.graphql(repo),
          rest: (repo: Repo) => app.installations.rest(repo),
          failedChecks: (repo: Repo, sha: string) => writing.checkRuns.failedChecks(repo, sha),
        }
      : null;
  const announce = (repository: Repo, event: QueueEvent) => infra.announcements.tell(repository, event);
  const {
    gateClaimsNow: claimsNow,
    gateRetryMs: retryBaseMs,
    gateSweepMs: sweepMs,
  } = options.githubAnswers ?? {};
  const gateTimes = {
    ...(claimsNow ? { claimsNow } : {}),
    ...(retryBaseMs ? { retryBaseMs } : {}),
    ...(sweepMs ? { sweepMs } : {}),
  };
  const gate = writing
    ? { store, owner, now, logger, ...writing, announce, work: infra.work, times: gateTimes }
    : null;
  const history = { history: store, queueRequests: store };
  // GitHub's merge queue's webhooks (told by the GitHub surface) and the gate's pauses, as queue events.
  const { happenings, announcements } = infra;
  const appBot = app ? `${app.appSlug}[bot]` : null;
  const pushes = appBot
    ? { happenings, announcements, memory: store, merges: store, appBot, logger, now: options.now }
    : null;
  const readReason = currentReadReason;
  const backends = wireBackends({
    config,
    options,
    metrics,
    ...history,
    installations,
    gate,
    pushes,
    merges: store,
    readReason,
  });
  const { queues } = backends;
  const relays = wireRelays({ hasGitHubApp: app !== null, store, queues, work: infra.work, logger, now });
  const { follower } = relays;
  const commands = commandPorts({ ...infra, backends, followsRelays: follower !== null });
  const hearsQueue = backends.pushesEvents;
  const github = await wireGitHub({
    infra,
    app,
    commands,
    follower,
    hearsQueue,
    writing,
    gate: backends.gate,
  });
  const doctor = wireDoctor(infra, app?.installations ?? null);
  const loginUrl = identityLoginUrl(infra);
  const slackSurface = wireSlack({ infra, commands, github, setup: doctor.check, follower, loginUrl });
  const { home } = slackSurface;
  const identity = wireIdentity(infra, slack ? slackIdentityChat(slack, { logger, home }) : null);
  // The flake shield acts on the notifier's removals, through the GitHub App (src/shield).
  const shield = slack && app && writing ? wireShield({ infra, queues, gateway: github.gateway }) : null;
  const notifier = slack
    ? wireNotifier({
        infra,
        chat: slackNoticeChat(slack, infra),
        backends,
        github,
        app,
        checkRuns: writing?.checkRuns ?? null,
        home,
        shield,
      })
    : null;
  const { statsEvents, statsDays, attributePause } = commands;
  const shieldFigures = commands.flakeShield?.figures;
  const digestPoster = slack && slackDigestPoster(slack, infra);
  const digests = digestPoster
    ? wireDigests({ infra, poster: digestPoster, statsEvents, statsDays, shieldFigures })
    : null;
  const health = slack ? wireHealth({ infra, poster: slackAlertPoster(slack, infra), queues }) : null;
  // Merges that skipped the queue are said where the health alerts are (they need the notifier).
  const outsideMerges = notifier
    ? wireOutsideMerges({ infra, witness: backends.witness, tell: notifier.tell })
    : null;
  // A timed pause's end and a freeze's steps ring the notifier: the notice follows at once.
  const ring = (repository: Repo) => infra.rings.tell(repository);
  const intervalMs = options.scheduledUnpauseIntervalMs;
  const pausing = { store, queues, attributePause, ring, owner, logger, now, intervalMs };
  const timedPauses = wireTimedPauses({ ...pausing, work: infra.work, counter: metrics.scheduledUnpauses });
  const subscriptions = (repository: Repo) => store.listSubscriptions({ repository });
  // A freeze's steps ask GitHub whether its creator may still set it (the freeze command's permission).
  const freezeLevel = config.permissions.freeze;
  const creatorMayFreeze = app
    ? async (repository: Repo, login: string) =>
        satisfies(await github.gateway.permission(repository, login), freezeLevel)
    : undefined;
  // A freeze's notices are posted with their key in Slack's message metadata, and found again by it.
  const notices = slack ? slackNoticePoster(slack) : null;
  const freezes = wireFreezes({
    ...pausing,
    work: infra.work,
    subscriptions,
    notices,
    ...(creatorMayFreeze ? { creatorMayFreeze } : {}),
  });
  const running = serve(infra, {
    handlers: [github, identity, slackSurface].flatMap((feature) => feature.handlers ?? []),
    connections: slackSurface.connections,
    services: [
      timedPauses,
      freezes,
      relays,
      github,
      notifier,
      digests,
      health,
      outsideMerges,
      doctor,
      // Last: stopping it waits for every kind's items under way.
      { services: [{ name: "work", start: () => undefined, stop: () => infra.work.stop() }] },
    ].flatMap((feature) => feature?.services ?? []),
    appSlug: app?.appSlug ?? null,
    ...(notifier ? { pollerLastTick: () => notifier.poller.lastSuccessfulTick } : {}),
  });
  return {
    config,
    metrics,
    store,
    appSlug: app?.appSlug ?? null,
    githubWrites: github.writes,
    poller: notifier?.poller ?? null,
    deliverer: notifier?.deliverer ?? null,
    digests: digests?.digests ?? null,
    scheduledUnpauser: timedPauses.unpauser,
    freezeRunner: freezes.runner,
    health: health?.evaluator ?? null,
    outsideMerges: outsideMerges?.watch ?? null,
    ...running,
  };
}
