import { schema as published } from "@octokit/graphql-schema";
import { buildSchema, type GraphQLSchema, graphql } from "graphql";
import type { Caller, StandInContext } from "./context.js";
import { requireToken, subscribed } from "./context.js";
import { bodyFields, HttpError, type Router, sendJson } from "./http.js";
import { pullRequestEventJson } from "./queue-payloads.js";
import { type Account, type Issue, type Repository, timestamp } from "./state.js";

/**
 * GitHub's own merge queue, as its GraphQL API shows it (`POST /api/graphql`, GitHub Enterprise Server's
 * path): `repository.mergeQueue(branch)`, `pullRequest.mergeQueueEntry`, `enqueuePullRequest` and
 * `dequeuePullRequest`, executed against GitHub's published schema (@octokit/graphql-schema), so a
 * query GitHub would refuse is refused here too. A branch has a queue once `enable` gave it one; its
 * entries move only when a test says so (`merge`, `remove`).
 */

export interface QueueConfiguration {
  mergeMethod: "MERGE" | "SQUASH" | "REBASE";
  mergingStrategy: "ALLGREEN" | "HEADGREEN";
  minimumEntriesToMerge: number;
  maximumEntriesToMerge: number;
  maximumEntriesToBuild: number;
  checkResponseTimeout: number;
}

export interface QueueEntry {
  pull: Issue;
  enqueuedAt: string;
  enqueuer: Account;
  jump: boolean;
  state: "QUEUED" | "AWAITING_CHECKS" | "MERGEABLE" | "UNMERGEABLE" | "LOCKED";
}

interface BranchQueue {
  repository: Repository;
  branch: string;
  configuration: QueueConfiguration;
  entries: QueueEntry[];
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
};

let schema: GraphQLSchema | undefined;
/** GitHub's published schema, built once per process (it is large). */
function githubSchema(): GraphQLSchema {
  if (!schema) {
    schema = buildSchema(published.idl, { assumeValidSDL: true });
  }
  return schema;
}

export class GitHubMergeQueues {
  private readonly queues = new Map<string, BranchQueue>();

  constructor(private readonly ctx: StandInContext) {}

  private key(fullName: string, branch: string): string {
    return `${fullName.toLowerCase()}\n${branch}`;
  }

  /** Gives the branch (the default branch) a merge queue, as a ruleset requiring one would. */
  enable(fullName: string, branch?: string, configuration: Partial<QueueConfiguration> = {}): void {
    const repository = this.ctx.state.requireRepository(fullName);
    const name = branch ?? repository.defaultBranch;
    this.queues.set(this.key(fullName, name), {
      repository,
      branch: name,
      configuration: { ...DEFAULT_CONFIGURATION, ...configuration },
      entries: [],
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
      enqueuedAt: timestamp(),
      enqueuer,
      jump: options.jump,
      state: queue.entries.length === 0 ? "AWAITING_CHECKS" : "QUEUED",
    };
    if (options.jump) queue.entries.unshift(entry);
    else queue.entries.push(entry);
    this.send(pull, "enqueued", enqueuer);
    return entry;
  }

  /**
   * Takes the pull request out (false when it was not queued), with GitHub's reason: MANUAL (dequeued
   * by someone), CI_FAILURE, CI_TIMEOUT, MERGE_CONFLICT, ...
   */
  remove(pull: Issue, reason = "MANUAL", by: Account = this.ctx.state.appBot): boolean {
    const found = this.entryOf(pull);
    if (!found) return false;
    found.queue.entries.splice(found.position - 1, 1);
    this.send(pull, "dequeued", by, { reason });
    return true;
  }

  /** The head of a branch's queue merges: it leaves the queue (reason MERGE), merged and closed. */
  merge(fullName: string, branch: string): Issue | undefined {
    const head = this.queueOf(fullName, branch)?.entries.shift();
    if (!head?.pull.pull) return undefined;
    this.ctx.state.updatePullRequest(fullName, head.pull.number, { merged: true, state: "closed" });
    this.send(head.pull, "dequeued", this.ctx.state.appBot, { reason: "MERGE" });
    this.send(head.pull, "closed", this.ctx.state.appBot, { mergedBy: head.enqueuer });
    return head.pull;
  }

  /** `pull_request` webhooks as GitHub sends them, in the background, where the installation gets them. */
  private send(
    pull: Issue,
    action: "enqueued" | "dequeued" | "closed",
    sender: Account,
    extra: { reason?: string; mergedBy?: Account } = {},
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
      };
    };
    const pullNode = (pull: Issue) => ({
      id: pullNodeId(pull),
      number: pull.number,
      title: pull.title,
      url: `${urls.web}/${pull.repository.fullName}/pull/${pull.number}`,
      baseRefName: pull.pull?.baseRef,
      headRefOid: pull.pull?.headSha,
      mergeQueueEntry: () => entryNode(pull),
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
        ? { errors: result.errors.map((e) => ({ message: e.message, ...(e.path ? { path: e.path } : {}) })) }
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
