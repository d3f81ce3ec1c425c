import type { PauseState } from "../backends/mergify/index.js";
import type { QueuePause, QueuePauses } from "../core/pause.js";
import type { Repo } from "../repo.js";
import { branchName } from "./arguments.js";
import { githubQueueOf, NO_PAUSE, notOnGitHubQueue } from "./github-queue.js";
import type { Ports } from "./ports.js";

/**
 * pause and unpause on GitHub's merge queue: Yardmaster's gate check holds one branch's queue
 * (src/backends/github/gate/), reached through `ports.githubPauses`. A branch is named as `subscribe`
 * names one: `branch=<name>`; without it, the default branch's queue.
 */

/** Splits a leading `branch=<name>` off the words after the repository. */
export function branchOption(command: string, text: string): { branch?: string; rest: string } {
  const m = /^\s*branch=(\S*)(?:\s+|$)/s.exec(text);
  if (!m) return { rest: text };
  return { branch: branchName(command, m[1] ?? ""), rest: text.slice(m[0].length) };
}

/**
 * The pauses of GitHub's merge queue when it serves the branch; null when Mergify's queue does (which
 * pauses the whole repository: a branch is then refused). Refused where the gate is not wired.
 */
export async function githubPausesOf(
  ports: Ports,
  command: "pause" | "unpause",
  repo: Repo,
  branch: string | undefined,
): Promise<QueuePauses | null> {
  const github = await githubQueueOf(ports, repo, branch);
  if (!github) {
    if (branch !== undefined) {
      notOnGitHubQueue(
        command,
        repo,
        "its merge queue (Mergify's) pauses every branch of the repository at once: leave branch= out",
      );
    }
    return null;
  }
  if (!ports.githubPauses) notOnGitHubQueue(command, repo, NO_PAUSE);
  return ports.githubPauses;
}

/** A gate pause in the shape the pause command's answer describes. */
export function pauseStateOf(pause: QueuePause): PauseState {
  return { paused: true, reason: pause.reason, paused_at: pause.pausedAt };
}
