import type { PullRequestInfo } from "../../../core/github.js";
import type { Logger } from "../../../logger.js";
import type { Repo } from "../../../repo.js";
import type { GateHold } from "../../../store/gates.js";
import { codeSpan, escapeMarkdown } from "../../../wording/markdown.js";

/** What putting back timed-out entries needs: GitHub's pull requests and queue, and a comment. */
export interface PutBack {
  pullRequest(repo: Repo, number: number): Promise<PullRequestInfo | null>;
  /** `enqueuePullRequest` with `jump`: to the head of the queue. */
  enqueue(repo: Repo, pull: { number: number; headSha: string }, options: { jump: true }): Promise<unknown>;
  /** Says so in the pull request's thread (the app's write queue). */
  comment(repo: Repo, number: number, body: string): Promise<unknown>;
}

/**
 * On resume: the pull requests GitHub removed for its check timeout during the pause, still open at the
 * head they had then, go back in their original order ahead of what was queued since (each jumps to the
 * head, the last first). Other removals are left alone; one GitHub refuses is logged and skipped. The
 * numbers put back, in order.
 */
export async function putBackTimedOut(
  deps: PutBack,
  repo: Repo,
  branch: string,
  holds: readonly GateHold[],
  by: string,
  logger: Logger,
): Promise<number[]> {
  const timedOut = holds.filter((h) => h.timedOut);
  const back: number[] = [];
  for (const hold of [...timedOut].reverse()) {
    const pull = await deps.pullRequest(repo, hold.pullNumber).catch(() => null);
    if (pull?.state !== "open" || pull.merged || pull.headSha !== hold.pullHeadSha) {
      logger.info(
        { repository: repo.fullName, branch, pull: hold.pullNumber },
        "not putting back a pull request GitHub removed while the queue was paused: it was closed, pushed to, or could not be read",
      );
      continue;
    }
    // The holds are taken already: one pull request GitHub refuses does not keep the others out.
    try {
      await deps.enqueue(repo, { number: hold.pullNumber, headSha: hold.pullHeadSha }, { jump: true });
    } catch (error) {
      logger.error(
        { err: error, repository: repo.fullName, branch, pull: hold.pullNumber },
        "could not put back a pull request GitHub removed while the queue was paused: queue it again by hand",
      );
      continue;
    }
    back.unshift(hold.pullNumber);
  }
  for (const number of back) {
    const body = `▶️ The merge queue of ${codeSpan(branch)} was unpaused by ${escapeMarkdown(by)}. GitHub had taken this pull request out of the queue while it was paused (its checks time out); Yardmaster put it back in its place.`;
    await deps.comment(repo, number, body).catch(() => undefined);
  }
  return back;
}
