import type { QueuePauses } from "../core/pause.js";
import type { Repo } from "../repo.js";
import { notOnThisQueue, queueOf } from "./github-queue.js";
import { branchName } from "./grammar/arguments.js";

/**
 * What pause and unpause share about the queue they hold: a branch is named as `subscribe` names one,
 * `branch=<name>`; without it, the default branch's queue. GitHub's merge queue pauses one branch (its
 * gate check, src/backends/github/gate/); Mergify's pauses every branch of the repository at once.
 */

/** Why pause and unpause are refused on a queue without a pause, where the backend does not say. */
const NO_PAUSE = "its merge queue has no pause";

/** What only some queues' pauses can do (the gate's: src/backends/github/gate/). */
export type PauseNeed = "drain" | "exemptions" | "letThrough";

/** Why a queue's pause cannot do it, where the backend does not say in its own words. */
const CANNOT: Record<PauseNeed, string> = {
  drain: "its merge queue has no drain: pause it instead once what is queued has merged",
  exemptions: "its merge queue cannot let some pull requests through a pause: pause without except",
  letThrough: "its merge queue cannot let one pull request through a pause: unpause it",
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
  const { cannot } = backend;
  if (!pauses) return notOnThisQueue(command, repo, cannot.pause ?? NO_PAUSE);
  if (need && !can(pauses, need)) return notOnThisQueue(command, repo, cannot[need] ?? CANNOT[need]);
  if (branch !== undefined && pauses.scope === "repository") {
    const detail = cannot.branchPause ?? "its merge queue pauses every branch at once: leave branch= out";
    return notOnThisQueue(command, repo, detail);
  }
  return pauses;
}
