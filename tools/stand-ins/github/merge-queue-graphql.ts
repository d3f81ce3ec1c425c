import { readFileSync } from "node:fs";
import { buildSchema, type GraphQLSchema, graphql } from "graphql";
import { AppCheckRuns } from "./app-checks.js";
import { CiCheckRuns } from "./ci-check-runs.js";
import type { Caller, StandInContext } from "./context.js";
import { requireToken, subscribed } from "./context.js";
import { bodyFields, HttpError, type Router, sendJson } from "./http.js";
import {
  checksRequestedEventJson,
  destroyedEventJson,
  fakeSha,
  type GroupCheckConclusion,
  type GroupCheckRun,
  groupCheckRunEventJson,
  type MergeGroup,
  type MergeGroupDestroyedReason,
  passing,
} from "./merge-groups.js";
import { pullRequestEventJson, type WebhookTarget } from "./queue-payloads.js";
import type { Account, Issue, Repository } from "./state.js";

/**
 * GitHub's own merge queue, as its GraphQL API shows it (`POST /api/graphql`, GitHub Enterprise Server's
 * path): `repository.mergeQueue(branch)`, `pullRequest.mergeQueueEntry`, `enqueuePullRequest` and
 * `dequeuePullRequest`, executed against GitHub's published schema (@octokit/graphql-schema), so a
 * query GitHub would refuse is refused here too. A branch has a queue once `enable` gave it one; its
 * entries move only when a test says so (`merge`, `remove`, `completeChecks`). Each entry is tested in a
 * merge group (merge-groups.ts): made when it enters, destroyed when it leaves, merges, or an entry ahead
 * of it leaves (then made anew), with `merge_group` webhooks and the queue's required check runs.
 */

export interface QueueConfiguration {
  mergeMethod: "MERGE" | "SQUASH" | "REBASE";
  mergingStrategy: "ALLGREEN" | "HEADGREEN";
  minimumEntriesToMerge: number;
  maximumEntriesToMerge: number;
  maximumEntriesToBuild: number;
  checkResponseTimeout: number;
  /** The checks the branch requires, run on each merge group's commit (not a GraphQL field). */
  requiredChecks: string[];
  /**
   * Required checks whose expected source is the stand-in's GitHub App (Yardmaster's gate): reported by
   * the app itself (app-checks.ts), the latest run of the name on the group's commit counting (not a
   * GraphQL field).
   */
  appRequiredChecks: string[];
  /**
   * Required checks with no source chosen (a ruleset's required check without `integration_id`): the
   * latest run of the name on the group's commit counts whoever reported it, the app or CI (not a GraphQL
   * field).
   */
  anySourceChecks: string[];
  /**
   * Check runs CI (GitHub Actions) reports on each merge group beyond `requiredChecks`, required by no
   * rule of CI's: a workflow job named like the gate, say (not a GraphQL field).
   */
  workflowJobs: string[];
}

export interface QueueEntry {
  pull: Issue;
  enqueuedAt: string;
  enqueuer: Account;
  jump: boolean;
  state: "QUEUED" | "AWAITING_CHECKS" | "MERGEABLE" | "UNMERGEABLE" | "LOCKED";
  /** The merge group it is tested in now (the base, the entries ahead, and it). */
  group: MergeGroup;
}

interface BranchQueue {
  repository: Repository;
  branch: string;
  configuration: QueueConfiguration;
  entries: QueueEntry[];
  /** The base branch's head commit (becomes a merged group's commit). */
  baseSha: string;
}

/** What `completeChecks` did: the pull request was removed (with GitHub's reason), or not. */
export interface ChecksOutcome {
  removed: boolean;
  reason: "CI_FAILURE" | "CI_TIMEOUT" | null;
  /** Every required check of the group passed: the entry is MERGEABLE. */
  passed: boolean;
}

/** Seconds GitHub estimates each entry ahead adds (position × this). */
export const SECONDS_PER_ENTRY = 300;

const DEFAULT_CONFIGURATION: QueueConfiguration = {
  mergeMethod: "SQUASH",
  mergingStrategy: "ALLGREEN",
  minimumEntriesToMerge: 1,
  maximumEntriesToMerge: 5,
  maximumEntriesToBuild: 5,
  checkResponseTimeout: 3600,
  requiredChecks: ["ci"],
  appRequiredChecks: [],
  anySourceChecks: [],
  workflowJobs: [],
};

let schema: GraphQLSchema | undefined;
/**
 * GitHub's published schema (@octokit/graphql-schema's schema.graphql), built once per process (it is
 * large). Read from its file: the package's entry also parses its 5 MB JSON form as it loads, which
 * every world would pay for.
 */
function githubSchema(): GraphQLSchema {
  if (!schema) {
    const sdl = readFileSync(
      new URL("schema.graphql", import.meta.resolve("@octokit/graphql-schema")),
      "utf8",
    );
    schema = buildSchema(sdl, { assumeValidSDL: true });
  }
  return schema;
}

export class GitHubMergeQueues {
  private readonly queues = new Map<string, BranchQueue>();
  /** Every merge group made (destroyed ones too: their commits keep their check runs), by head sha. */
  private readonly groupsBySha = new Map<string, MergeGroup>();
  private groupCount = 0;
  private nextCheckRunId = 8_000_001;
  private nextCheckSuiteId = 7_000_001;

  constructor(
    private readonly ctx: StandInContext,
    /** The check runs apps report (the gate's among them). */
    readonly appChecks: AppCheckRuns = new AppCheckRuns(),
    /** What CI's failed runs say (their output and annotations). */
    readonly ciChecks: CiCheckRuns = new CiCheckRuns(),
  ) {}

  private key(fullName: string, branch: string): string {
    return `${fullName.toLowerCase()}\n${branch}`;
  }

  /** Gives the branch (the default branch) a merge queue, as a ruleset requiring one would. */
  enable(fullName: string, branch?: string, configuration: Partial<QueueConfiguration> = {}): void {
    const repository = this.ctx.state.requireRepository(fullName);
    // Built now, as the queue is set up, rather than within the first query's answer (a second's work).
    githubSchema();
    const name = branch ?? repository.defaultBranch;
    this.queues.set(this.key(fullName, name), {
      repository,
      branch: name,
      configuration: {
        ...DEFAULT_CONFIGURATION,
        ...configuration,
        requiredChecks: [...(configuration.requiredChecks ?? DEFAULT_CONFIGURATION.requiredChecks)],
        appRequiredChecks: [...(configuration.appRequiredChecks ?? [])],
        anySourceChecks: [...(configuration.anySourceChecks ?? [])],
        workflowJobs: [...(configuration.workflowJobs ?? [])],
      },
      entries: [],
      baseSha: fakeSha(repository.fullName, name, "base"),
    });
  }

  queueOf(fullName: string, branch: string): BranchQueue | undefined {
    return this.queues.get(this.key(fullName, branch));
  }

  /** The pull request's entry and its queue, if it is queued. */
  entryOf(pull: Issue): { queue: BranchQueue; entry: QueueEntry; position: number } | undefined {
    const queue = pull.pull ? this.queueOf(pull.repository.fullName, pull.pull.baseRef) : undefined;
    const index = queue?.entries.findIndex((e) => e.pull === pull) ?? -1;
    const entry = queue?.entries[index];
    return queue && entry ? { queue, entry, position: index + 1 } : undefined;
  }

  /** Pull requests in the queue of a branch, head first. */
  entries(fullName: string, branch: string): QueueEntry[] {
    return [...(this.queueOf(fullName, branch)?.entries ?? [])];
  }

  enqueue(
    pull: Issue,
    enqueuer: Account,
    options: { jump: boolean; expectedHeadOid: string | null },
  ): QueueEntry {
    if (!pull.pull) throw new Error("Could not resolve to a PullRequest.");
    const queue = this.queueOf(pull.repository.fullName, pull.pull.baseRef);
    if (!queue) throw new Error(`The base branch ${pull.pull.baseRef} does not have a merge queue.`);
    if (pull.state !== "open" || pull.pull.merged) throw new Error("Pull request is not open.");
    if (pull.pull.draft) throw new Error("Draft pull requests cannot be enqueued.");
    if (options.expectedHeadOid && options.expectedHeadOid !== pull.pull.headSha) {
      throw new Error("The expected head OID does not match the pull request's head.");
    }
    const existing = this.entryOf(pull);
    if (existing) return existing.entry;
    const entry: QueueEntry = {
      pull,
      enqueuedAt: this.ctx.state.timestamp(),
      enqueuer,
      jump: options.jump,
      state: queue.entries.length === 0 ? "AWAITING_CHECKS" : "QUEUED",
      group: undefined as unknown as MergeGroup, // made below, once the entry has its place
    };
    if (options.jump) queue.entries.unshift(entry);
    else queue.entries.push(entry);
    this.send(pull, "enqueued", enqueuer);
    // Jumping to the head invalidates every group behind: they no longer hold what is ahead of them.
    this.regroup(queue, options.jump ? 0 : queue.entries.length - 1, entry);
    return entry;
  }

  /**
   * Reports the required checks of the pull request's current merge group, as CI would (`check_run`
   * `completed` for each). A failure or a cancellation removes it (`dequeued` reason CI_FAILURE; a time-out
   * alone: CI_TIMEOUT) by github-merge-queue[bot], destroys its group (`dequeued`), and invalidates and
   * makes anew the groups behind it. Every required check passing makes the entry MERGEABLE (merging is
   * still `merge`'s). Checks not named stay in progress. Throws when the pull request is not queued or a
   * name is not a required check.
   */
  completeChecks(
    fullName: string,
    number: number,
    conclusions: Record<string, GroupCheckConclusion>,
  ): ChecksOutcome {
    const pull = this.ctx.state.getIssue(fullName, number);
    const found = pull ? this.entryOf(pull) : undefined;
    if (!pull || !found) throw new Error(`${fullName}#${number} is not in a merge queue`);
    const { entry } = found;
    const group = entry.group;
    const now = this.ctx.state.timestamp();
    for (const [name, conclusion] of Object.entries(conclusions)) {
      const run = group.checkRuns.find((r) => r.name === name);
      if (!run) {
        throw new Error(
          `${name} is not a required check of ${fullName}'s ${found.queue.branch} (${group.checkRuns.map((r) => r.name).join(", ")})`,
        );
      }
      run.status = "completed";
      run.conclusion = conclusion;
      run.completedAt = now;
      run.output = this.ciChecks.outputFor(fullName, name, conclusion) ?? null;
    }
    for (const name of Object.keys(conclusions)) {
      const run = group.checkRuns.find((r) => r.name === name);
      if (run)
        this.sendGroup(
          "check_run",
          groupCheckRunEventJson(this.ctx.urls, this.target(group), "completed", group, run),
        );
    }
    const done = group.checkRuns.filter((r) => r.status === "completed");
    const failed = done.some((r) => r.conclusion === "failure" || r.conclusion === "cancelled");
    const timedOut = done.some((r) => r.conclusion === "timed_out");
    if (failed || timedOut) {
      const reason = failed ? "CI_FAILURE" : "CI_TIMEOUT";
      this.remove(pull, reason, this.ctx.state.githubMergeQueueBot);
      return { removed: true, reason, passed: false };
    }
    const passed = group.checkRuns.every((r) => passing(r.conclusion));
    if (passed) entry.state = "MERGEABLE";
    return { removed: false, reason: null, passed };
  }

  /** The merge group a commit belongs to (destroyed ones too), if it is one's. */
  groupOfCommit(fullName: string, sha: string): MergeGroup | undefined {
    const group = this.groupsBySha.get(sha.toLowerCase());
    return group && group.repository.fullName.toLowerCase() === fullName.toLowerCase() ? group : undefined;
  }

  /** Every merge group made on a repository (destroyed ones too), oldest first. */
  groups(fullName: string): MergeGroup[] {
    return [...this.groupsBySha.values()].filter(
      (g) => g.repository.fullName.toLowerCase() === fullName.toLowerCase(),
    );
  }

  /**
   * Gives `queue.entries[from..]` new merge groups, each on the one ahead: the old groups of those entries
   * are destroyed (`invalidated`) first, except `fresh`'s (a new entry has none).
   */
  private regroup(queue: BranchQueue, from: number, fresh?: QueueEntry): void {
    const behind = queue.entries.slice(from);
    for (const entry of behind) {
      if (entry !== fresh) this.destroy(entry.group, "invalidated");
    }
    for (const entry of behind) {
      const index = queue.entries.indexOf(entry);
      const ahead = index > 0 ? queue.entries[index - 1]?.group : undefined;
      entry.group = this.createGroup(queue, entry.pull, ahead?.headSha ?? queue.baseSha);
      entry.state = index === 0 ? "AWAITING_CHECKS" : "QUEUED";
    }
  }

  private createGroup(queue: BranchQueue, pull: Issue, baseSha: string): MergeGroup {
    const repository = queue.repository;
    const headSha = fakeSha(repository.fullName, pull.number, "merge-group", ++this.groupCount);
    const now = this.ctx.state.timestamp();
    const suiteId = this.nextCheckSuiteId++;
    const { requiredChecks, workflowJobs } = queue.configuration;
    const checkRuns: GroupCheckRun[] = [...requiredChecks, ...workflowJobs].map((name) => ({
      id: this.nextCheckRunId++,
      suiteId,
      name,
      headSha,
      status: "in_progress",
      conclusion: null,
      startedAt: now,
      completedAt: null,
    }));
    const group: MergeGroup = {
      repository,
      pull,
      baseBranch: queue.branch,
      headBranch: `gh-readonly-queue/${queue.branch}/pr-${pull.number}-${pull.pull?.headSha ?? ""}`,
      headSha,
      treeSha: fakeSha(headSha, "tree"),
      baseSha,
      message: `Merge pull request #${pull.number} from ${repository.owner.login}/${pull.pull?.headRef ?? ""}\n\n${pull.title}`,
      createdAt: now,
      checkRuns,
      destroyed: null,
    };
    this.groupsBySha.set(headSha, group);
    this.sendGroup("merge_group", checksRequestedEventJson(this.ctx.urls, this.target(group), group));
    for (const run of checkRuns) {
      this.sendGroup(
        "check_run",
        groupCheckRunEventJson(this.ctx.urls, this.target(group), "created", group, run),
      );
    }
    return group;
  }

  private destroy(group: MergeGroup, reason: MergeGroupDestroyedReason): void {
    if (group.destroyed) return;
    group.destroyed = reason;
    this.sendGroup("merge_group", destroyedEventJson(this.ctx.urls, this.target(group), group, reason));
  }

  private target(group: MergeGroup): WebhookTarget {
    const repository = group.repository;
    const installationId = this.ctx.state.installationOf(repository.fullName)?.id ?? 0;
    return { repository, installationId, sender: this.ctx.state.githubMergeQueueBot };
  }

  /** A merge group's webhook (`merge_group`, `check_run`), in the background, where the installation gets it. */
  private sendGroup(event: "merge_group" | "check_run", payload: object): void {
    const repository = (payload as { repository?: { full_name?: string } }).repository?.full_name ?? "";
    if (!subscribed(this.ctx, repository, event)) return;
    this.ctx.webhooks.enqueue(event, payload);
  }

  /**
   * Takes the pull request out (false when it was not queued), with GitHub's reason: MANUAL (dequeued
   * by someone), CI_FAILURE, CI_TIMEOUT, MERGE_CONFLICT, ...
   */
  remove(pull: Issue, reason = "MANUAL", by: Account = this.ctx.state.appBot): boolean {
    const found = this.entryOf(pull);
    if (!found) return false;
    const index = found.position - 1;
    found.queue.entries.splice(index, 1);
    this.send(pull, "dequeued", by, { reason });
    this.destroy(found.entry.group, "dequeued");
    this.regroup(found.queue, index);
    return true;
  }

  /**
   * The app-reported required checks of a group that do not pass yet (the latest run of each name on its
   * commit): pending, failed or never reported. A check required from any source passes when the app's
   * run of it or CI's (a workflow job of that name) has passed.
   */
  appChecksNotPassed(group: MergeGroup): string[] {
    const queue = this.queueOf(group.repository.fullName, group.baseBranch);
    const appPassed = (name: string) => {
      const run = this.appChecks.latest(group.repository.fullName, group.headSha, name);
      return run?.status === "completed" && passing(run.conclusion as GroupCheckConclusion);
    };
    const ciPassed = (name: string) =>
      group.checkRuns.some((r) => r.name === name && r.status === "completed" && passing(r.conclusion));
    return [
      ...(queue?.configuration.appRequiredChecks ?? []).filter((name) => !appPassed(name)),
      ...(queue?.configuration.anySourceChecks ?? []).filter((name) => !appPassed(name) && !ciPassed(name)),
    ];
  }

  /**
   * GitHub's check timeout, on the stand-in's clock: the head entry of each of the repository's queues
   * whose merge group has a required check (CI's or an app's) that has not passed for
   * `checkResponseTimeout` seconds since the group was made is removed with reason CI_TIMEOUT; the groups
   * behind are made anew (their timers restart). Returns the pull requests removed, in order.
   */
  expireChecks(fullName: string): number[] {
    const now = Date.parse(this.ctx.state.timestamp());
    const removed: number[] = [];
    for (const queue of this.queues.values()) {
      if (queue.repository.fullName.toLowerCase() !== fullName.toLowerCase()) continue;
      const timeoutMs = queue.configuration.checkResponseTimeout * 1000;
      for (const entry of [...queue.entries]) {
        const group = entry.group;
        if (Date.parse(group.createdAt) + timeoutMs > now) continue;
        const ciPending = group.checkRuns.some((r) => r.status !== "completed");
        if (!ciPending && this.appChecksNotPassed(group).length === 0) continue;
        this.remove(entry.pull, "CI_TIMEOUT", this.ctx.state.githubMergeQueueBot);
        removed.push(entry.pull.number);
      }
    }
    return removed;
  }

  /**
   * The head of a branch's queue merges: it leaves the queue (reason MERGE), merged and closed. Throws
   * while one of its group's app-reported required checks has not passed (GitHub does not merge it).
   */
  merge(fullName: string, branch: string): Issue | undefined {
    const queue = this.queueOf(fullName, branch);
    const waiting = queue?.entries[0] ? this.appChecksNotPassed(queue.entries[0].group) : [];
    if (waiting.length > 0) {
      throw new Error(`the merge group of ${fullName}'s ${branch} waits for ${waiting.join(", ")}`);
    }
    const head = queue?.entries.shift();
    if (!queue || !head?.pull.pull) return undefined;
    // The group's commit becomes the branch's: the groups behind, built on it, stay valid.
    queue.baseSha = head.group.headSha;
    this.destroy(head.group, "merged");
    const next = queue.entries[0];
    if (next?.state === "QUEUED") next.state = "AWAITING_CHECKS";
    this.ctx.state.updatePullRequest(fullName, head.pull.number, { merged: true, state: "closed" });
    this.send(head.pull, "dequeued", this.ctx.state.appBot, { reason: "MERGE" });
    // The pull request's merge commit is its merge group's, which the branch now holds.
    this.send(head.pull, "closed", this.ctx.state.appBot, {
      mergedBy: head.enqueuer,
      mergeCommitSha: head.group.headSha,
    });
    return head.pull;
  }

  /**
   * Someone pushed to a pull request: its head moves to `headSha` and GitHub sends `pull_request`
   * `synchronize` (the merge queue's entry of it is not modelled here).
   */
  push(fullName: string, number: number, headSha: string): void {
    const pull = this.ctx.state.getIssue(fullName, number);
    if (!pull?.pull) throw new Error(`${fullName}#${number} is not a pull request`);
    this.ctx.state.updatePullRequest(fullName, number, { headSha });
    this.send(pull, "synchronize", pull.user);
  }

  /** `pull_request` webhooks as GitHub sends them, in the background, where the installation gets them. */
  private send(
    pull: Issue,
    action: "enqueued" | "dequeued" | "closed" | "synchronize",
    sender: Account,
    extra: { reason?: string; mergedBy?: Account; mergeCommitSha?: string } = {},
  ): void {
    const repository = pull.repository;
    if (!subscribed(this.ctx, repository.fullName, "pull_request")) return;
    const installationId = this.ctx.state.installationOf(repository.fullName)?.id ?? 0;
    this.ctx.webhooks.enqueue(
      "pull_request",
      pullRequestEventJson(
        this.ctx.urls,
        this.ctx.state,
        { repository, installationId, sender },
        action,
        pull,
        extra,
      ),
    );
  }

  /** Answers one GraphQL request as the caller. */
  async execute(caller: Caller, query: string, variables: Record<string, unknown>) {
    const { state, urls } = this.ctx;
    const visible = (repository: Repository | undefined): repository is Repository => {
      if (!repository) return false;
      if (caller.kind === "installation") {
        const allowed =
          caller.token.repositoryIds === null || caller.token.repositoryIds.includes(repository.id);
        return repository.owner.id === caller.installation.account.id && allowed;
      }
      return !repository.private || state.roleOf(repository, caller.actor.login) !== "none";
    };
    const pullNodeId = (pull: Issue) => `PR_${pull.repository.id}_${pull.number}`;
    const findByNodeId = (id: unknown): Issue => {
      const m = /^PR_(\d+)_(\d+)$/.exec(String(id));
      const repository = m
        ? [...this.queues.values()].find((q) => q.repository.id === Number(m[1]))?.repository
        : undefined;
      const pull =
        repository && visible(repository) ? state.getIssue(repository.fullName, Number(m?.[2])) : undefined;
      if (!pull?.pull) throw new Error(`Could not resolve to a node with the global id of '${String(id)}'.`);
      return pull;
    };
    const entryNode = (pull: Issue): unknown => {
      const found = this.entryOf(pull);
      if (!found) return null;
      const { entry, position } = found;
      return {
        id: `MQE_${pullNodeId(pull)}`,
        position,
        state: position === 1 && entry.state === "QUEUED" ? "AWAITING_CHECKS" : entry.state,
        enqueuedAt: entry.enqueuedAt,
        estimatedTimeToMerge: position * SECONDS_PER_ENTRY,
        jump: entry.jump,
        solo: false,
        enqueuer: { __typename: entry.enqueuer.type === "Bot" ? "Bot" : "User", login: entry.enqueuer.login },
        pullRequest: () => pullNode(pull),
        headCommit: () => commitNode(pull.repository.fullName, entry.group),
      };
    };
    // The merge group's commit with its required check runs (the gate's, reported apart, not shown).
    const commitNode = (fullName: string, group: MergeGroup) => ({
      oid: group.headSha,
      statusCheckRollup: {
        state: group.checkRuns.every((r) => passing(r.conclusion))
          ? "SUCCESS"
          : group.checkRuns.some((r) => r.status === "completed" && !passing(r.conclusion))
            ? "FAILURE"
            : "PENDING",
        contexts: ({ first }: { first?: number }) => ({
          nodes: group.checkRuns.slice(0, first ?? 100).map((run) => ({
            __typename: "CheckRun",
            name: run.name,
            status: run.status.toUpperCase(),
            conclusion: run.conclusion?.toUpperCase() ?? null,
            detailsUrl: `${urls.web}/${fullName}/actions/runs/${run.suiteId}/job/${run.id}`,
          })),
        }),
      },
    });
    const pullNode = (pull: Issue) => ({
      id: pullNodeId(pull),
      number: pull.number,
      title: pull.title,
      url: `${urls.web}/${pull.repository.fullName}/pull/${pull.number}`,
      baseRefName: pull.pull?.baseRef,
      headRefOid: pull.pull?.headSha,
      author: { __typename: pull.user.type === "Bot" ? "Bot" : "User", login: pull.user.login },
      mergeQueueEntry: () => entryNode(pull),
      labels: ({ first }: { first?: number }) => ({
        totalCount: pull.labels?.length ?? 0,
        nodes: (pull.labels ?? []).slice(0, first ?? 100).map((name) => ({ name })),
      }),
    });
    const queueNode = (queue: BranchQueue) => ({
      id: `MQ_${queue.repository.id}_${queue.branch}`,
      url: `${urls.web}/${queue.repository.fullName}/queue/${queue.branch}`,
      nextEntryEstimatedTimeToMerge: queue.entries.length ? SECONDS_PER_ENTRY : null,
      configuration: queue.configuration,
      entries: ({ first }: { first?: number }) => ({
        totalCount: queue.entries.length,
        nodes: queue.entries.slice(0, first ?? 100).map((e) => entryNode(e.pull)),
      }),
    });
    const rootValue = {
      repository: ({ owner, name }: { owner: string; name: string }) => {
        const repository = state.getRepository(`${owner}/${name}`);
        if (!visible(repository))
          throw new Error(`Could not resolve to a Repository with the name '${owner}/${name}'.`);
        return {
          defaultBranchRef: { name: repository.defaultBranch },
          mergeQueue: ({ branch }: { branch?: string | null }) => {
            const queue = this.queueOf(repository.fullName, branch ?? repository.defaultBranch);
            return queue ? queueNode(queue) : null;
          },
          pullRequest: ({ number }: { number: number }) => {
            const pull = state.getIssue(repository.fullName, number);
            if (!pull?.pull)
              throw new Error(`Could not resolve to a PullRequest with the number of ${number}.`);
            return pullNode(pull);
          },
        };
      },
      enqueuePullRequest: ({
        input,
      }: {
        input: { pullRequestId: string; jump?: boolean; expectedHeadOid?: string };
      }) => {
        const pull = findByNodeId(input.pullRequestId);
        this.enqueue(pull, caller.actor, {
          jump: input.jump === true,
          expectedHeadOid: input.expectedHeadOid ?? null,
        });
        return { mergeQueueEntry: () => entryNode(pull) };
      },
      dequeuePullRequest: ({ input }: { input: { id: string } }) => {
        const pull = findByNodeId(input.id);
        const before = entryNode(pull);
        if (!before) throw new Error("The pull request is not in the merge queue.");
        this.remove(pull, "MANUAL", caller.actor);
        return { mergeQueueEntry: before };
      },
    };
    const result = await graphql({
      schema: githubSchema(),
      source: query,
      variableValues: variables,
      rootValue,
    });
    return {
      ...(result.data !== undefined ? { data: result.data } : {}),
      ...(result.errors?.length
        ? {
            errors: result.errors.map((e) => ({
              // GitHub types an object it cannot find (a repository, a pull request): NOT_FOUND.
              ...(/^Could not resolve to an? /.test(e.message) ? { type: "NOT_FOUND" } : {}),
              message: e.message,
              ...(e.path ? { path: e.path } : {}),
            })),
          }
        : {}),
    };
  }
}

/** `POST /api/graphql` (GitHub Enterprise Server's GraphQL endpoint), authenticated with a token. */
export function addGraphQLRoute(router: Router, ctx: StandInContext, queues: GitHubMergeQueues): void {
  router.add("POST", "/api/graphql", async (req, res) => {
    const caller = requireToken(ctx, req);
    const { query, variables } = bodyFields(req.body);
    if (typeof query !== "string")
      throw new HttpError(400, "A query attribute must be specified and must be a string.");
    sendJson(res, 200, await queues.execute(caller, query, (variables ?? {}) as Record<string, unknown>));
  });
}
