import { LRUCache } from "lru-cache";
import { CommandError, CommandErrorCode } from "../core/errors.js";
import type { MergeQueues, QueueKind } from "../core/merge-queue.js";
import type { MergeWitness } from "../core/merged-pulls.js";
import type { QueuePauses } from "../core/pause.js";
import { STATS_KINDS } from "../history/figures.js";
import type { StatsEvents } from "../history/stats-reader.js";
import type { Repo } from "../repo.js";
import type { QueueHistory } from "../store/history.js";
import { type GitHubQueueClient, githubBackend } from "./github/client.js";
import { mergifyBackend } from "./mergify/backend.js";
import type { MergeQueueClient } from "./mergify/client.js";
import { type MergifyLogClient, mergifyStatsEvents } from "./mergify/queue-events.js";

/**
 * Which merge queue serves a repository and branch (docs/backends.md): the one place that decides from
 * MERGE_QUEUE_PROVIDER; the rest of the product asks what it decided.
 */

/** MERGE_QUEUE_PROVIDER: one backend for every repository, or `auto` per repository and branch. */
export type QueueProvider = "mergify" | "github" | "auto";

/** Which backends may serve some repository, for what the process starts (clients, log reads, webhooks). */
export interface BackendPlan {
  provider: QueueProvider;
  /** Mergify may serve some repository: its log is read and its API driven. */
  mergify: boolean;
  /** GitHub's own merge queue may: its webhooks are heard and its GraphQL API driven. */
  github: boolean;
}

export function backendPlan(provider: QueueProvider): BackendPlan {
  return { provider, mergify: provider !== "github", github: provider !== "mergify" };
}

/** The start log's sentence of which merge queue the settings drive. */
export function describeBackends(mergeQueue: { provider: QueueProvider; apiUrl: string }): string {
  const { provider, apiUrl } = mergeQueue;
  if (provider === "github") return "merge queue: GitHub's own (GraphQL, as the GitHub App)";
  if (provider === "auto")
    return `merge queue: GitHub's own where a branch has one, otherwise Mergify at ${apiUrl}`;
  return `merge queue at ${apiUrl}`;
}

/** The stats' kinds that Yardmaster finds itself rather than a backend's log says. */
const YARDMASTERS_OWN = ["merged-outside-queue"] as const;

/** How long `auto` trusts what it read of a branch (a queue is turned on or off in a ruleset). */
const AUTO_CACHE_MS = 60_000;
/** Branches whose backend `auto` remembers; the least recently used go first. */
const AUTO_CACHE_SIZE = 5_000;

/** Whether a branch (null: the default one) has GitHub's merge queue. */
export type HasQueue = (repo: Repo, branch: string | null) => Promise<boolean>;

/**
 * GitHub's answer of whether a branch has its merge queue (GraphQL), kept a minute per repository and
 * branch: what `auto` chooses by, and what the merge witness asks of each merge.
 */
export function cachedHasQueue(ask: HasQueue, now?: () => number): HasQueue {
  const cache = new LRUCache<string, boolean>({
    max: AUTO_CACHE_SIZE,
    ttl: AUTO_CACHE_MS,
    ...(now ? { perf: { now }, ttlResolution: 0 } : {}),
  });
  return async (repo, branch) => {
    const key = `${repo.key}\n${branch ?? ""}`;
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    const has = await ask(repo, branch);
    cache.set(key, has);
    return has;
  };
}

/** Refuses what only Mergify can answer when it is not configured (MERGE_QUEUE_PROVIDER=github without its token). */
function mergifyNotConfigured(): never {
  throw new CommandError(CommandErrorCode.Unavailable, {
    detail:
      "this reads Mergify, which is not configured: with MERGE_QUEUE_PROVIDER=github Yardmaster drives GitHub's own merge queue, which keeps no such log",
  });
}

export interface QueueClients {
  /** Mergify's client; null when it is not configured (then nothing calls Mergify). */
  mergify: MergeQueueClient | null;
  /** GitHub's merge queue client; null when the provider is `mergify`. */
  github: GitHubQueueClient | null;
  /** The pause of GitHub's merge queue (its gate check, src/backends/github/gate/); absent: it has none. */
  githubPauses?: QueuePauses | null;
  /** Milliseconds, for `auto`'s cache (tests). */
  now?: () => number;
  /** Whether a branch has GitHub's merge queue, cached (`cachedHasQueue`); absent: made here. */
  hasQueue?: HasQueue;
}

/**
 * Which merge queue serves a branch: the provider's, or with `auto` GitHub's where the branch has one
 * (read with GraphQL, cached a minute per repository and branch), otherwise Mergify.
 */
export function mergeQueues(provider: QueueProvider, clients: QueueClients): MergeQueues {
  const mergify = clients.mergify ? mergifyBackend(clients.mergify) : null;
  const github = clients.github ? githubBackend(clients.github, clients.githubPauses ?? null) : null;
  const gh = clients.github;
  const hasQueue = clients.hasQueue ?? (gh ? cachedHasQueue((r, b) => gh.hasQueue(r, b), clients.now) : null);
  const kindOf = async (
    repo: Repo,
    named?: string | (() => Promise<string | undefined>),
  ): Promise<QueueKind> => {
    if (provider !== "auto" || !hasQueue) return provider === "github" ? "github" : "mergify";
    const branch = typeof named === "function" ? await named() : named;
    return (await hasQueue(repo, branch ?? null)) ? "github" : "mergify";
  };
  return {
    async for(repo, branch) {
      const kind = await kindOf(repo, branch);
      if (kind === "github" && github) return github;
      return mergify ?? mergifyNotConfigured();
    },
    relaying: mergify,
  };
}

/**
 * Where `stats` and the weekly digest read a repository's queue events: for a repository on GitHub's
 * merge queue, the history Yardmaster recorded (GitHub keeps no log); otherwise Mergify's log, which
 * reaches back before the subscription, with the merges outside the queue Yardmaster found (its own
 * events, which no log holds) from the history.
 */
export function queueStatsEvents(
  mergify: MergifyLogClient | null,
  queues: MergeQueues,
  history: QueueHistory,
): StatsEvents {
  return async function* statsEvents(repo, range) {
    if ((await queues.for(repo)).kind === "github") {
      yield* await history.readQueueEvents(repo, range, STATS_KINDS);
      return;
    }
    if (!mergify)
      throw new CommandError(CommandErrorCode.Unavailable, {
        detail: "this reads Mergify, which is not configured",
      });
    yield* mergifyStatsEvents(mergify, repo, range);
    yield* await history.readQueueEvents(repo, range, YARDMASTERS_OWN);
  };
}

/**
 * Whether a merged pull request went through its branch's merge queue: asked of the backend serving the
 * branch (`auto`: GitHub's where the branch has its queue, else Mergify's), which judges by its own
 * signs (its merge-witness.ts). While the choice cannot be read, it cannot tell yet.
 */
export function mergeWitness(
  queues: MergeQueues,
  witnesses: { github: MergeWitness | null; mergify: MergeWitness | null },
): MergeWitness {
  return {
    async judge(merge, receivedAt) {
      let kind: QueueKind;
      try {
        kind = (await queues.for(merge.repository, merge.branch)).kind;
      } catch (error) {
        return {
          verdict: "wait",
          why: `which merge queue serves ${merge.branch} is unknown: ${(error as Error).message}`,
        };
      }
      const witness = kind === "github" ? witnesses.github : witnesses.mergify;
      return witness ? witness.judge(merge, receivedAt) : { verdict: "no-queue" };
    },
  };
}
