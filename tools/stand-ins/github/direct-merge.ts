import { type Caller, intParam, requireRepository, type StandInContext, subscribed } from "./context.js";
import { HttpError, notFound, type Router, sendJson } from "./http.js";
import { fakeSha } from "./merge-groups.js";
import type { GitHubMergeQueues } from "./merge-queue-graphql.js";
import { pullRequestEventJson } from "./queue-payloads.js";
import type { Account, Issue } from "./state.js";

/**
 * A pull request merged by a person rather than a merge queue (GitHub's "Merge pull request" button,
 * `PUT /repos/{owner}/{repo}/pulls/{number}/merge`). On a branch with GitHub's merge queue GitHub refuses
 * it (405 "Changes must be made through the merge queue") unless the person may bypass the branch's rules
 * (an admin: an admin's bypass); a pull request still in that queue leaves it (`dequeued` ALREADY_MERGED,
 * by github-merge-queue[bot]). GitHub then sends `pull_request` `closed` with `merged: true`, `merged_by`
 * the person, who is also the sender, and the new merge commit. Listeners (tools/world.ts: the
 * merge-queue simulator) hear of it too.
 */
export class DirectMerges {
  private readonly listeners = new Set<(repository: string, number: number) => void>();
  private merges = 0;

  constructor(
    private readonly ctx: StandInContext,
    private readonly queues: GitHubMergeQueues,
  ) {}

  /** Hears each direct merge; returns the function that stops hearing. */
  onMerged(listener: (repository: string, number: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Merges the pull request as `by`; throws HttpError as GitHub answers when it may not. */
  merge(
    fullName: string,
    number: number,
    by: Account,
    role: string | undefined,
  ): { sha: string; pull: Issue } {
    const { state } = this.ctx;
    const pull = state.getIssue(fullName, number);
    if (!pull?.pull) throw notFound();
    if (pull.state !== "open" || pull.pull.merged) throw new HttpError(405, "Pull Request is not mergeable");
    if (!["admin", "maintain", "write"].includes(role ?? ""))
      throw new HttpError(403, "Must have push access");
    const queue = this.queues.queueOf(pull.repository.fullName, pull.pull.baseRef);
    if (queue && role !== "admin")
      throw new HttpError(
        405,
        "Repository rule violations found\n\nChanges must be made through the merge queue",
      );
    this.queues.remove(pull, "ALREADY_MERGED", state.githubMergeQueueBot);
    const sha = fakeSha(pull.repository.fullName, number, "direct-merge", ++this.merges);
    // The branch moved: what its queue builds from now on starts from this commit.
    if (queue) queue.baseSha = sha;
    state.updatePullRequest(pull.repository.fullName, number, { merged: true, state: "closed" });
    if (subscribed(this.ctx, pull.repository.fullName, "pull_request")) {
      const installationId = state.installationOf(pull.repository.fullName)?.id ?? 0;
      this.ctx.webhooks.enqueue(
        "pull_request",
        pullRequestEventJson(
          this.ctx.urls,
          state,
          { repository: pull.repository, installationId, sender: by },
          "closed",
          pull,
          { mergedBy: by, mergeCommitSha: sha },
        ),
      );
    }
    for (const listener of this.listeners) listener(pull.repository.fullName, number);
    return { sha, pull };
  }
}

/** `PUT /repos/{owner}/{repo}/pulls/{number}/merge`, as the caller (a person's token, or the app's). */
export function addDirectMergeRoute(router: Router, ctx: StandInContext, merges: DirectMerges): void {
  router.add("PUT", "/repos/{owner}/{repo}/pulls/{number}/merge", (req, res) => {
    const { caller, repository } = requireRepository(ctx, req);
    const { sha } = merges.merge(
      repository.fullName,
      intParam(req.params.number),
      caller.actor,
      roleOf(ctx, caller, repository),
    );
    sendJson(res, 200, { sha, merged: true, message: "Pull Request successfully merged" });
  });
}

/** A person's role on the repository; an installation writes (contents: write) but bypasses nothing. */
function roleOf(
  ctx: StandInContext,
  caller: Caller,
  repository: Parameters<StandInContext["state"]["roleOf"]>[0],
) {
  return caller.kind === "user" ? ctx.state.roleOf(repository, caller.actor.login) : "write";
}
