import type { z } from "zod";
import { CommandError, CommandErrorCode } from "../../core/errors.js";
import { fromMergeQueueError } from "../../core/from-merge-queue-error.js";
import type {
  EntryChecks,
  EntryState,
  MergeQueueBackend,
  QueueEntry,
  QueueRefusals,
  QueueState,
} from "../../core/merge-queue.js";
import type { QueuePauses } from "../../core/pause.js";
import { labelKey } from "../../core/pause.js";
import { QueueError } from "../../core/queue-error.js";
import type { Metrics } from "../../metrics.js";
import type { Repo } from "../../repo.js";
import type { GateEntry } from "./gate/decide.js";
import {
  DEQUEUE_MUTATION,
  dequeueAnswer,
  ENQUEUE_MUTATION,
  ENTRY_CHECKS_QUERY,
  enqueueAnswer,
  entryChecksAnswer,
  GATE_ENTRIES_QUERY,
  gateEntriesAnswer,
  HAS_MERGE_QUEUE_QUERY,
  hasMergeQueueAnswer,
  MERGE_QUEUE_QUERY,
  type MergeQueueEntryData,
  mergeQueueAnswer,
  PULL_REQUEST_ENTRY_QUERY,
  pullRequestEntryAnswer,
} from "./queries.js";
import { repositoryError } from "./repository-error.js";

/** Sends one GraphQL document as the repository's installation (Octokit's `graphql`). */
export type GraphQL = (query: string, variables: Record<string, unknown>) => Promise<unknown>;

/** GitHub's words for a failed GraphQL call: its errors' messages, else the HTTP error's. */
function githubMessage(error: unknown): string {
  const errors = (error as { errors?: { message?: string }[] }).errors;
  const messages = Array.isArray(errors) ? errors.map((e) => e.message).filter(Boolean) : [];
  return messages.length ? messages.join("; ") : (error as Error).message;
}

/** GraphQL's answer for a repository it does not know (or the installation cannot see): its 404. */
function unknownRepository(error: unknown): boolean {
  const errors = (error as { errors?: { type?: unknown; message?: unknown }[] }).errors;
  return (
    Array.isArray(errors) &&
    errors.some(
      (e) => e?.type === "NOT_FOUND" && typeof e.message === "string" && /to a Repository/.test(e.message),
    )
  );
}

/** What a GraphQL call is, for its metrics: the client's name for it (GitHub's field for most). */
type GitHubQueueOperation =
  | "hasQueue"
  | "mergeQueue"
  | "mergeQueueEntry"
  | "mergeQueueEntryChecks"
  | "mergeQueueGateEntries"
  | "enqueuePullRequest"
  | "dequeuePullRequest";

/**
 * How a call ended, as the metrics' `outcome`: `ok`; GitHub's error type in lower case (`not_found`,
 * `forbidden`, `unprocessable`, …) or `graphql` when it gave none; `http_<status>`; `timeout`;
 * `unreadable` (an answer that does not match its schema); `installation` (no client for the
 * repository's installation: nothing was sent); else `error` (the network).
 */
function outcomeOf(error: unknown): string {
  const e = error as { errors?: { type?: unknown }[]; status?: unknown; name?: unknown };
  if (Array.isArray(e?.errors) && e.errors.length > 0) {
    const type = e.errors.map((x) => x?.type).find((t): t is string => typeof t === "string");
    return type && /^[A-Z_]{1,40}$/.test(type) ? type.toLowerCase() : "graphql";
  }
  if (typeof e?.status === "number") return `http_${e.status}`;
  if (e?.name === "TimeoutError" || e?.name === "AbortError") return "timeout";
  return "error";
}

interface GitHubQueueClientOptions {
  /** Counts and times each GraphQL call by operation and outcome (/metrics). */
  metrics?: Pick<Metrics, "githubQueueCalls" | "githubQueueLatency">;
  /** Milliseconds, for the durations (tests). */
  clock?: () => number;
}

/**
 * GitHub's own merge queue, over GraphQL, acting as the repository's installation (GitHub Enterprise
 * Server 3.8 and later). Failures throw CommandError.
 */
export class GitHubQueueClient {
  private readonly clock: () => number;

  constructor(
    private readonly graphqlFor: (repo: Repo) => Promise<GraphQL>,
    private readonly options: GitHubQueueClientOptions = {},
  ) {
    this.clock = options.clock ?? (() => performance.now());
  }

  private count(operation: GitHubQueueOperation, outcome: string, startedAt?: number): void {
    const { metrics } = this.options;
    if (!metrics) return;
    metrics.githubQueueCalls.inc({ operation, outcome });
    if (startedAt !== undefined)
      metrics.githubQueueLatency.observe((this.clock() - startedAt) / 1000, { operation, outcome });
  }

  private async call<S extends z.ZodType>(
    operation: GitHubQueueOperation,
    repo: Repo,
    query: string,
    variables: Record<string, unknown>,
    schema: S,
    details: { command: string; pull?: number },
  ): Promise<z.infer<S>> {
    const failed = (detail: string) =>
      new CommandError(CommandErrorCode.GitHubFailed, { ...details, repository: repo.fullName, detail });
    const context = { ...details, repository: repo.fullName };
    let graphql: GraphQL;
    try {
      graphql = await this.graphqlFor(repo);
    } catch (error) {
      this.count(operation, "installation");
      if (error instanceof CommandError) throw error;
      // The app's installation on a repository GitHub does not know (404), or refuses it (403).
      const mapped = repositoryError(repo, error);
      if (mapped instanceof QueueError) throw fromMergeQueueError(mapped, context);
      throw failed(githubMessage(error));
    }
    const startedAt = this.clock();
    let data: unknown;
    try {
      data = await graphql(query, variables);
    } catch (error) {
      this.count(operation, outcomeOf(error), startedAt);
      if (error instanceof CommandError) throw error;
      if (unknownRepository(error)) {
        throw fromMergeQueueError(repositoryError(repo, { status: 404 }), context);
      }
      throw failed(githubMessage(error));
    }
    const parsed = schema.safeParse(data);
    this.count(operation, parsed.success ? "ok" : "unreadable", startedAt);
    if (!parsed.success) throw failed("its merge queue's answer could not be read");
    return parsed.data;
  }

  /**
   * Whether the branch (the default branch when null) has a merge queue. A GitHub without merge queues
   * (GitHub Enterprise Server before 3.8: its schema has no `mergeQueue`) has none.
   */
  async hasQueue(repo: Repo, branch: string | null): Promise<boolean> {
    return (await this.readQueue(repo, branch)).queue;
  }

  /**
   * The default branch's name (null when GitHub does not say) and whether it has a merge queue: what
   * the setup check says of each subscribed repository.
   */
  async defaultBranchQueue(repo: Repo): Promise<{ branch: string | null; queue: boolean }> {
    return this.readQueue(repo, null);
  }

  private async readQueue(
    repo: Repo,
    branch: string | null,
  ): Promise<{ branch: string | null; queue: boolean }> {
    try {
      const data = await this.call(
        "hasQueue",
        repo,
        HAS_MERGE_QUEUE_QUERY,
        { owner: repo.owner, name: repo.name, branch },
        hasMergeQueueAnswer,
        { command: "status" },
      );
      return {
        branch: branch ?? data.repository?.defaultBranchRef?.name ?? null,
        queue: Boolean(data.repository?.mergeQueue),
      };
    } catch (error) {
      const detail = error instanceof CommandError ? (error.details.detail ?? "") : "";
      if (/Field 'mergeQueue' doesn't exist|Cannot query field "mergeQueue"/.test(detail))
        return { branch, queue: false };
      throw error;
    }
  }

  /** The branch's queue (the default branch's when none is named); null when it has none. */
  async status(repo: Repo, branch?: string): Promise<QueueState | null> {
    const data = await this.call(
      "mergeQueue",
      repo,
      MERGE_QUEUE_QUERY,
      { owner: repo.owner, name: repo.name, branch: branch ?? null },
      mergeQueueAnswer,
      { command: "status" },
    );
    const queue = data.repository?.mergeQueue;
    if (!queue) return null;
    return {
      branch: branch ?? data.repository?.defaultBranchRef?.name ?? "",
      url: queue.url,
      entries: queue.entries.nodes
        .flatMap((e) => (e ? [entry(e)] : []))
        .sort((a, b) => a.position - b.position),
      total: queue.entries.totalCount,
      batches: null,
      scopeQueues: [],
      pause: null,
      settings: queue.configuration,
    };
  }

  private async pullRequest(repo: Repo, number: number, command: string) {
    const data = await this.call(
      "mergeQueueEntry",
      repo,
      PULL_REQUEST_ENTRY_QUERY,
      { owner: repo.owner, name: repo.name, number },
      pullRequestEntryAnswer,
      { command, pull: number },
    );
    const pull = data.repository?.pullRequest;
    if (!pull)
      throw new CommandError(CommandErrorCode.NotAPullRequest, {
        command,
        repository: repo.fullName,
        pull: number,
      });
    return pull;
  }

  /**
   * The checks of the pull request's merge group (its entry's head commit), as the backend's words
   * ("pending", "success", "failure", ...); null when it is not queued or GitHub reports none.
   */
  async entryChecks(repo: Repo, number: number): Promise<EntryChecks | null> {
    const data = await this.call(
      "mergeQueueEntryChecks",
      repo,
      ENTRY_CHECKS_QUERY,
      { owner: repo.owner, name: repo.name, number },
      entryChecksAnswer,
      { command: "pr", pull: number },
    );
    const rollup = data.repository?.pullRequest?.mergeQueueEntry?.headCommit?.statusCheckRollup;
    if (!rollup) return null;
    return {
      state: rollup.state.toLowerCase(),
      runIn: "merge_group",
      draftPull: null,
      checks: rollup.contexts.nodes.flatMap((c) => {
        if (!c) return [];
        if (c.__typename === "StatusContext")
          return [{ name: c.context, url: c.targetUrl, state: c.state.toLowerCase(), description: null }];
        const state = c.status === "COMPLETED" ? (c.conclusion ?? "completed") : "pending";
        return [{ name: c.name, url: c.detailsUrl, state: state.toLowerCase(), description: null }];
      }),
    };
  }

  /**
   * The entries of the branch's queue by position (the first GATE_ENTRIES_READ), each with when it entered
   * and its pull request's labels (lower case): what the gate decides on. `complete` is false when the
   * queue holds more than were read; null when the branch has no queue.
   */
  async gateEntries(repo: Repo, branch: string): Promise<{ entries: GateEntry[]; complete: boolean } | null> {
    const data = await this.call(
      "mergeQueueGateEntries",
      repo,
      GATE_ENTRIES_QUERY,
      { owner: repo.owner, name: repo.name, branch },
      gateEntriesAnswer,
      { command: "status" },
    );
    const queue = data.repository?.mergeQueue;
    if (!queue) return null;
    const entries = queue.entries.nodes
      .flatMap((e) => (e?.pullRequest ? [{ ...e, pullRequest: e.pullRequest }] : []))
      .sort((a, b) => a.position - b.position)
      .map((e) => ({
        number: e.pullRequest.number,
        enteredAt: e.enqueuedAt,
        labels: (e.pullRequest.labels?.nodes ?? []).flatMap((l) => (l ? [labelKey(l.name)] : [])),
      }));
    return { entries, complete: queue.entries.totalCount <= queue.entries.nodes.length };
  }

  /** The pull request's entry; null when it is not queued. */
  async entry(repo: Repo, number: number): Promise<QueueEntry | null> {
    const pull = await this.pullRequest(repo, number, "pr");
    return pull.mergeQueueEntry ? entry(pull.mergeQueueEntry) : null;
  }

  async enqueue(
    repo: Repo,
    pull: { number: number; headSha: string },
    options: { jump: boolean },
  ): Promise<QueueEntry | null> {
    const { id } = await this.pullRequest(repo, pull.number, "queue");
    const data = await this.call(
      "enqueuePullRequest",
      repo,
      ENQUEUE_MUTATION,
      // The head the permission check and the person saw: a push since then is not queued unseen.
      { pullRequestId: id, jump: options.jump, expectedHeadOid: pull.headSha || null },
      enqueueAnswer,
      { command: "queue", pull: pull.number },
    );
    const queued = data.enqueuePullRequest?.mergeQueueEntry;
    return queued ? entry(queued) : null;
  }

  async dequeue(repo: Repo, number: number): Promise<boolean> {
    const pull = await this.pullRequest(repo, number, "dequeue");
    if (!pull.mergeQueueEntry) return false;
    await this.call("dequeuePullRequest", repo, DEQUEUE_MUTATION, { id: pull.id }, dequeueAnswer, {
      command: "dequeue",
      pull: number,
    });
    return true;
  }
}

/** GitHub's MergeQueueEntryState in the core's words. */
const STATES: Record<string, EntryState> = {
  QUEUED: "waiting",
  AWAITING_CHECKS: "checks-running",
  MERGEABLE: "mergeable",
  UNMERGEABLE: "failing",
  LOCKED: "merging",
};

function entry(e: MergeQueueEntryData): QueueEntry {
  const state = STATES[e.state];
  return {
    position: e.position,
    state: state ?? "other",
    stateName: state ? null : e.state,
    enteredAt: e.enqueuedAt,
    estimate: e.estimatedTimeToMerge === null ? null : { inSeconds: e.estimatedTimeToMerge },
    queue: null,
    priority: null,
    by: e.enqueuer.login,
    jumped: e.jump,
    scopes: [],
    batch: null,
    checks: null,
    checksTimeoutAt: null,
    pull: e.pullRequest
      ? {
          number: e.pullRequest.number,
          title: e.pullRequest.title,
          url: e.pullRequest.url,
          author: e.pullRequest.author?.login ?? null,
        }
      : null,
  };
}

/** Why GitHub's merge queue cannot do what some commands ask, and what to use instead. */
const GITHUB_CANNOT: QueueRefusals = {
  namedQueues: "it uses GitHub's merge queue, which has no named queues",
  pause:
    "it uses GitHub's merge queue, which has no pause. To hold merges, dequeue the pull requests, or have an admin turn the merge queue off in the branch's ruleset",
};

/**
 * GitHub's merge queue behind the core's port: no list of branches (yet); a pause only through
 * Yardmaster's gate check (`pauses`, per branch), which its state then shows.
 */
export function githubBackend(
  client: GitHubQueueClient,
  pauses: QueuePauses | null = null,
): MergeQueueBackend {
  return {
    kind: "github",
    can: { namedQueues: false, jump: true, batches: false },
    cannot: GITHUB_CANNOT,
    async state(repo, branch) {
      const state = await client.status(repo, branch ?? undefined);
      if (!state || !pauses) return state;
      // Best effort: a status without the pause still shows the queue.
      const pause = await pauses.current({ repo, branch: state.branch ?? branch }).catch(() => null);
      return { ...state, pause };
    },
    entry: (repo, pull) => client.entry(repo, pull),
    entryChecks: (repo, pull) => client.entryChecks(repo, pull),
    commands: {
      via: "api",
      enqueue: (repo, pull, options) => client.enqueue(repo, pull, options),
      dequeue: (repo, number) => client.dequeue(repo, number),
    },
    ...(pauses ? { pauses } : {}),
  };
}
