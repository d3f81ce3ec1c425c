import type { YardmasterOptions } from "../app/options.js";
import type { GitHubGateway } from "../core/github.js";
import type { MergeQueues } from "../core/merge-queue.js";
import type { MergeWitness } from "../core/merged-pulls.js";
import type { QueueEventPushes, StoredEvents } from "../core/pushed-events.js";
import type { QueueEvent, QueueEventLog } from "../core/queue.js";
import type { StatsEvents } from "../history/stats-reader.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics.js";
import type { Repo } from "../repo.js";
import type { Settings } from "../settings/read-settings.js";
import type { GateStore } from "../store/gates.js";
import type {
  GitHubQueueMemory,
  MergedPullStore,
  PollCursorStore,
  QueueHistory,
  QueueRequestStore,
} from "../store/index.js";
import { backendPlan, cachedHasQueue, mergeQueues, mergeWitness, queueStatsEvents } from "./choose.js";
import { GitHubQueueClient, type GraphQL } from "./github/client.js";
import type { GateOctokit, GateWrites } from "./github/gate/github.js";
import { createGitHubGate, type GateTimes, type GateWork, type GitHubGate } from "./github/gate/index.js";
import { githubMergeWitness } from "./github/merge-witness.js";
import { type GitHubPushesDeps, githubQueuePushes } from "./github/pushed-events.js";
import type { FailedCheck } from "./github/queue-events.js";
import { MergeQueueClient } from "./mergify/index.js";
import { mergifyMergeWitness } from "./mergify/merge-witness.js";
import { mergifyEventLog, mergifyStoredEvents } from "./mergify/queue-events.js";

/** Every repository's log is read when none can be on GitHub's queue: one settled answer for all. */
const EVERY_LOG_READ = Promise.resolve(true);

/** The merge queues, built once for every feature that drives or reads one. */
export interface Backends {
  /**
   * Whether some backend that may serve a repository pushes its queue's events as they happen (GitHub's
   * merge queue, by webhooks): the GitHub surface hears them, and a removal asked here is remembered to
   * name who asked when its event comes.
   */
  pushesEvents: boolean;
  /** The merge queue serving a repository's branch, in the core's terms (src/core/merge-queue.ts). */
  queues: MergeQueues;
  /** Where `stats` and the weekly digest read a repository's queue events. */
  statsEvents: StatsEvents;
  /** The log the notifier reads (Mergify's); null when no repository is on a backend that has one. */
  eventLog: QueueEventLog | null;
  /** Whether the notifier reads the repository's log (false: GitHub's webhooks bring its notices). */
  readsLog(repository: Repo): Promise<boolean>;
  /**
   * The events pushed as they happen (GitHub's merge queue: its webhooks and the gate's pauses, as queue
   * events); null where GitHub's queue is off or has no app.
   */
  pushes: QueueEventPushes | null;
  /** How the notifier reads back its outbox rows and threads, those an earlier version stored too. */
  storedEvents: StoredEvents;
  /** The gate check that pauses GitHub's merge queue; null where GitHub's queue is off or has no app. */
  gate: GitHubGate | null;
  /** Whether a merged pull request went through its branch's merge queue (src/outside-merges). */
  witness: MergeWitness;
}

export interface BackendsDeps {
  config: Settings;
  options: Pick<YardmasterOptions, "mergeQueueTimeoutMs" | "mergeQueueRetries" | "onMergeQueueCall">;
  metrics: Metrics;
  history: QueueHistory;
  /** Who asked Yardmaster to queue a pull request (its relayed command names the app's bot). */
  queueRequests?: Pick<QueueRequestStore, "getQueueRequest">;
  /** The GitHub App's installations, which GitHub's merge queue acts as; null when the app is off. */
  installations: QueueInstallations | null;
  /** Why the notifier is reading a repository's log right now (src/notifier/poller.ts), for the metrics. */
  readReason?: () => string | undefined;
  /** What the gate check of GitHub's merge queue needs; null: no gate (no GitHub App). */
  gate: GateWiring | null;
  /** What GitHub's merge queue's pushed events need; null: none pushed (no GitHub App). */
  pushes: PushesWiring | null;
  /** What judging a merged pull request reads: the queues' memories and where the log was read up to. */
  merges: Pick<GitHubQueueMemory, "getQueuePull"> &
    Pick<MergedPullStore, "queueMergeNoted"> &
    Pick<PollCursorStore, "getPollCursor">;
}

/**
 * The GitHub App's installations as GitHub's merge queue acts as them: a repository's GraphQL and REST
 * clients, and a commit's failed checks (src/github/installations.ts implements it).
 */
export interface QueueInstallations {
  graphql(repo: Repo): Promise<GraphQL>;
  rest(repo: Repo): Promise<GateOctokit>;
  failedChecks(repo: Repo, sha: string): Promise<FailedCheck[]>;
}

/** Where GitHub's merge-queue webhooks and the gate's announcements are heard, and what reading them needs. */
export type PushesWiring = Pick<
  GitHubPushesDeps,
  "happenings" | "announcements" | "logger" | "now" | "merges"
> & {
  memory: GitHubQueueMemory;
  /** The app's bot login (`<slug>[bot]`). */
  appBot: string;
};

/** The gate check (src/backends/github/gate/): where it keeps its state, writes and tells its pauses. */
export interface GateWiring {
  store: GateStore;
  owner: string;
  now: () => Date;
  logger: Logger;
  writes: GateWrites;
  gateway: GitHubGateway;
  /** This replica's runner of durable work: the gates' check runs and completions are its kinds. */
  work: GateWork;
  /** The gates' claims' clock (default the real time), first retry delay and sweep's interval: tests give theirs. */
  times?: GateTimes;
  /** Tells the channels that a branch paused or resumed. */
  announce: (repository: Repo, event: QueueEvent) => Promise<unknown>;
}

/** The merge-queue backends (docs/backends.md): Mergify's client with its metrics, GitHub's, the choice. */
export function wireBackends(deps: BackendsDeps): Backends {
  const { config, options, metrics, history, installations, queueRequests } = deps;
  // With MERGE_QUEUE_PROVIDER=github the Mergify key may be unset: then nothing calls Mergify.
  const mergify = config.mergeQueue.token
    ? new MergeQueueClient({
        baseUrl: config.mergeQueue.apiUrl,
        token: config.mergeQueue.token,
        ...(options.mergeQueueTimeoutMs ? { timeoutMs: options.mergeQueueTimeoutMs } : {}),
        ...(options.mergeQueueRetries !== undefined ? { retry: { retries: options.mergeQueueRetries } } : {}),
        onCall: (call) => {
          options.onMergeQueueCall?.(call);
          const reason = deps.readReason?.();
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
  const plan = backendPlan(config.mergeQueue.provider);
  // GitHub's own merge queue acts as the repository's installation.
  const github = !plan.github
    ? null
    : new GitHubQueueClient(
        async (repo) => {
          if (!installations)
            throw new Error("GitHub's merge queue needs the GitHub App, which is not configured");
          return installations.graphql(repo);
        },
        { metrics },
      );
  // The gate asks which queue serves a branch: the choice below, made once it is built.
  const choice: { queues?: MergeQueues } = {};
  const gate =
    github && installations && deps.gate
      ? gateOf(deps.gate, config, installations, github, async (repo, branch) =>
          choice.queues ? (await choice.queues.for(repo, branch)).kind === "github" : true,
        )
      : null;
  // Whether a branch has GitHub's merge queue, read once a minute per branch for the choice and the witness.
  const hasQueue = github ? cachedHasQueue((repo, branch) => github.hasQueue(repo, branch)) : undefined;
  const queues = mergeQueues(plan.provider, {
    mergify,
    github,
    githubPauses: gate,
    ...(hasQueue ? { hasQueue } : {}),
  });
  choice.queues = queues;
  return {
    pushesEvents: plan.github,
    queues,
    statsEvents: queueStatsEvents(mergify, queues, history),
    // With MERGE_QUEUE_PROVIDER=github the poller reads nothing; with auto it skips the repositories on
    // GitHub's queue (their notices are pushed).
    eventLog:
      plan.mergify && mergify
        ? mergifyEventLog(
            mergify,
            queueRequests ? { askedOf: (r, n) => queueRequests.getQueueRequest(r, n) } : {},
          )
        : null,
    readsLog: plan.github
      ? async (repository) => (await queues.for(repository).catch(() => null))?.kind !== "github"
      : () => EVERY_LOG_READ,
    pushes: github && installations && deps.pushes ? pushesOf(deps.pushes, deps, installations) : null,
    // Rows stored before the queue-neutral core hold Mergify's log events.
    storedEvents: mergifyStoredEvents,
    gate,
    witness: mergeWitness(queues, {
      github: hasQueue
        ? githubMergeWitness({
            hasQueue,
            memory: deps.merges,
            merges: deps.merges,
          })
        : null,
      mergify: mergify
        ? mergifyMergeWitness({
            branches: (repo) => mergify.listBranches(repo),
            logReadAt: async (repo) => (await deps.merges.getPollCursor(repo))?.updatedAt ?? null,
            history,
          })
        : null,
    }),
  };
}

function pushesOf(
  pushes: PushesWiring,
  deps: BackendsDeps,
  installations: QueueInstallations,
): QueueEventPushes {
  const { queueRequests } = deps;
  return githubQueuePushes({
    ...pushes,
    failedChecks: (repository, sha) => installations.failedChecks(repository, sha),
    ...(queueRequests ? { askedOf: (r: Repo, n: number) => queueRequests.getQueueRequest(r, n) } : {}),
    metrics: deps.metrics,
    logger: pushes.logger.child({ name: "notifier" }),
  });
}

function gateOf(
  wiring: GateWiring,
  config: Settings,
  installations: QueueInstallations,
  github: GitHubQueueClient,
  onGitHubQueue: (repo: Repo, branch: string) => Promise<boolean>,
): GitHubGate {
  return createGitHubGate({
    store: wiring.store,
    checkName: config.mergeQueue.gateCheckName,
    ...(config.github ? { appId: Number(config.github.appId) } : {}),
    owner: wiring.owner,
    now: wiring.now,
    work: wiring.work,
    ...(wiring.times ? { times: wiring.times } : {}),
    logger: wiring.logger.child({ name: "gate" }),
    octokitFor: (repo) => installations.rest(repo),
    writes: () => wiring.writes,
    gateway: () => wiring.gateway,
    announce: wiring.announce,
    onGitHubQueue,
    enqueue: (repo, pull, options) => github.enqueue(repo, pull, options),
    queued: async (repo, branch) =>
      ((await github.status(repo, branch))?.entries ?? []).flatMap((e) => (e.pull ? [e.pull.number] : [])),
    entries: (repo, branch) => github.gateEntries(repo, branch),
  });
}
