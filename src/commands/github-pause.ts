import type { QueueKind } from "../core/merge-queue.js";
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

/** What only some queues' pauses can do (the gate's: src/backends/github/gate/). */
export type PauseNeed = "drain" | "exemptions" | "letThrough";

/** Why a queue's pause cannot do it, and what to use instead: on Mergify's queue, and on another. */
const CANNOT: Record<PauseNeed, Record<"mergify" | "other", string>> = {
  drain: {
    mergify:
      "Mergify's API has no drain: its pause holds every pull request at once, queued or not. Pause it instead (pause <reason>) once what is queued has merged, or dequeue what should not merge",
    other: "its merge queue has no drain: pause it instead once what is queued has merged",
  },
  exemptions: {
    mergify:
      "its merge queue (Mergify's) holds every pull request while paused and cannot let some through: Mergify's own queue rules are the way there (conditions on the label, label=hotfix, in .mergify.yml), or pause without except",
    other: "its merge queue cannot let some pull requests through a pause: pause without except",
  },
  letThrough: {
    mergify:
      "its merge queue (Mergify's) holds every pull request of the repository while paused and cannot let one through: unpause it, or give the pull request a queue rule of its own in .mergify.yml whose conditions match it",
    other: "its merge queue cannot let one pull request through a pause: unpause it",
  },
};

/** Whether a queue's pause can do what is needed. */
function can(pauses: QueuePauses, need: PauseNeed): boolean {
  if (need === "exemptions") return pauses.exemptions === "labels";
  return pauses[need] !== undefined;
}

/** Splits a leading `branch=<name>` off the words after the repository. */
export function branchOption(command: string, text: string): { branch?: string; rest: string } {
  const m = /^\s*branch=(\S*)(?:\s+|$)/s.exec(text);
  if (!m) return { rest: text };
  return { branch: branchName(command, m[1] ?? ""), rest: text.slice(m[0].length) };
}

/**
 * The pause of the queue serving the branch (the default branch's without one); refused, before
 * anything else is called, where that queue has none, cannot do what is needed (`need`: a drain,
 * exemptions, letting one through), or where a branch is named and one pause holds the whole repository.
 */
export async function pausesOf(
  ports: Parameters<typeof queueOf>[0],
  command: string,
  repo: Repo,
  branch?: string,
  need?: PauseNeed,
): Promise<QueuePauses> {
  const backend = await queueOf(ports, repo, branch);
  const pauses = backend.pauses;
  if (!pauses) return notOnThisQueue(command, repo, NO_PAUSE);
  if (need && !can(pauses, need)) return notOnThisQueue(command, repo, cannot(backend.kind, need));
  if (branch !== undefined && pauses.scope === "repository") {
    return notOnThisQueue(
      command,
      repo,
      "its merge queue (Mergify's) pauses every branch of the repository at once: leave branch= out",
    );
  }
  return pauses;
}

function cannot(kind: QueueKind, need: PauseNeed): string {
  return CANNOT[need][kind === "mergify" ? "mergify" : "other"];
}
