import type { QueuePauses } from "../core/pause.js";
import type { Repo } from "../repo.js";
import { notOnThisQueue, queueOf } from "./github-queue.js";
import { branchName } from "./grammar/arguments.js";

/**
 * What pause and unpause share about the queue they hold: a branch is named as `subscribe` names one,
 * `branch=<name>`; without it, the default branch's queue. GitHub's merge queue pauses one branch (its
 * gate check, src/backends/github/gate/); Mergify's pauses every branch of the repository at once.
 */

/** Why pause and unpause are refused on a queue without a pause (GitHub's, where the gate is not wired). */
const NO_PAUSE =
  "it uses GitHub's merge queue, which has no pause. To hold merges, dequeue the pull requests, or have an admin turn the merge queue off in the branch's ruleset";

/** Splits a leading `branch=<name>` off the words after the repository. */
export function branchOption(command: string, text: string): { branch?: string; rest: string } {
  const m = /^\s*branch=(\S*)(?:\s+|$)/s.exec(text);
  if (!m) return { rest: text };
  return { branch: branchName(command, m[1] ?? ""), rest: text.slice(m[0].length) };
}

/**
 * The pause of the queue serving the branch (the default branch's without one); refused, before
 * anything else is called, where that queue has none, or where a branch is named and one pause holds
 * the whole repository.
 */
export async function pausesOf(
  ports: Parameters<typeof queueOf>[0],
  command: string,
  repo: Repo,
  branch?: string,
): Promise<QueuePauses> {
  const pauses = (await queueOf(ports, repo, branch)).pauses;
  if (!pauses) return notOnThisQueue(command, repo, NO_PAUSE);
  if (branch !== undefined && pauses.scope === "repository") {
    return notOnThisQueue(
      command,
      repo,
      "its merge queue (Mergify's) pauses every branch of the repository at once: leave branch= out",
    );
  }
  return pauses;
}
