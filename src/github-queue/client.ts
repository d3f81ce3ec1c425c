import type { z } from "zod";
import { CommandError, CommandErrorCode } from "../commands/errors.js";
import type { GitHubMergeQueue, GitHubQueueEntry, GitHubQueueStatus } from "../commands/ports.js";
import type { Repo } from "../repo.js";
import {
  DEQUEUE_MUTATION,
  dequeueAnswer,
  ENQUEUE_MUTATION,
  enqueueAnswer,
  HAS_MERGE_QUEUE_QUERY,
  hasMergeQueueAnswer,
  MERGE_QUEUE_QUERY,
  type MergeQueueEntryData,
  mergeQueueAnswer,
  PULL_REQUEST_ENTRY_QUERY,
  pullRequestEntryAnswer,
} from "./queries.js";

/** Sends one GraphQL document as the repository's installation (Octokit's `graphql`). */
export type GraphQL = (query: string, variables: Record<string, unknown>) => Promise<unknown>;

/** GitHub's words for a failed GraphQL call: its errors' messages, else the HTTP error's. */
function githubMessage(error: unknown): string {
  const errors = (error as { errors?: { message?: string }[] }).errors;
  const messages = Array.isArray(errors) ? errors.map((e) => e.message).filter(Boolean) : [];
  return messages.length ? messages.join("; ") : (error as Error).message;
}

/** GitHub's own merge queue, over GraphQL, acting as the repository's installation. */
export class GitHubQueueClient implements GitHubMergeQueue {
  constructor(private readonly graphqlFor: (repo: Repo) => Promise<GraphQL>) {}

  private async call<S extends z.ZodType>(
    repo: Repo,
    query: string,
    variables: Record<string, unknown>,
    schema: S,
    details: { command: string; pull?: number },
  ): Promise<z.infer<S>> {
    const failed = (detail: string) =>
      new CommandError(CommandErrorCode.GitHubFailed, { ...details, repository: repo.fullName, detail });
    let data: unknown;
    try {
      data = await (await this.graphqlFor(repo))(query, variables);
    } catch (error) {
      if (error instanceof CommandError) throw error;
      throw failed(githubMessage(error));
    }
    const parsed = schema.safeParse(data);
    if (!parsed.success) throw failed("its merge queue's answer could not be read");
    return parsed.data;
  }

  /**
   * Whether the branch (the default branch when null) has a merge queue. A GitHub without merge queues
   * (GitHub Enterprise Server before 3.8: its schema has no `mergeQueue`) has none.
   */
  async hasQueue(repo: Repo, branch: string | null): Promise<boolean> {
    try {
      const data = await this.call(
        repo,
        HAS_MERGE_QUEUE_QUERY,
        { owner: repo.owner, name: repo.name, branch },
        hasMergeQueueAnswer,
        { command: "status" },
      );
      return Boolean(data.repository?.mergeQueue);
    } catch (error) {
      const detail = error instanceof CommandError ? (error.details.detail ?? "") : "";
      if (/Field 'mergeQueue' doesn't exist|Cannot query field "mergeQueue"/.test(detail)) return false;
      throw error;
    }
  }

  async status(repo: Repo, branch?: string): Promise<GitHubQueueStatus | null> {
    const data = await this.call(
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
      configuration: queue.configuration,
    };
  }

  private async pullRequest(repo: Repo, number: number, command: string) {
    const data = await this.call(
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

  async entry(repo: Repo, number: number): Promise<GitHubQueueEntry | null> {
    const pull = await this.pullRequest(repo, number, "pr");
    return pull.mergeQueueEntry ? entry(pull.mergeQueueEntry) : null;
  }

  async enqueue(
    repo: Repo,
    pull: { number: number; headSha: string },
    options: { jump: boolean },
  ): Promise<GitHubQueueEntry | null> {
    const { id } = await this.pullRequest(repo, pull.number, "queue");
    const data = await this.call(
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
    await this.call(repo, DEQUEUE_MUTATION, { id: pull.id }, dequeueAnswer, {
      command: "dequeue",
      pull: number,
    });
    return true;
  }
}

function entry(e: MergeQueueEntryData): GitHubQueueEntry {
  return {
    position: e.position,
    state: e.state,
    enqueuedAt: e.enqueuedAt,
    estimatedSecondsToMerge: e.estimatedTimeToMerge,
    jump: e.jump,
    enqueuer: e.enqueuer.login,
    pull: e.pullRequest,
  };
}
