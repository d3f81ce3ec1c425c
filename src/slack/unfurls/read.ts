import type { RunDeps } from "../../commands/run.js";
import { estimatedAt } from "../../core/merge-queue.js";
import { holdOf } from "../../core/pause.js";
import { previewPull } from "../../use-cases/pull-queue.js";
import type { UnfurlTarget } from "./values.js";

/** What an unfurl shows of one pull request, read through the pull request's queue state (src/use-cases/pull-queue.ts). */
export interface UnfurlFacts extends UnfurlTarget {
  /** The link as it was posted (the key of chat.unfurl's map). */
  url: string;
  /** From GitHub; null when GitHub could not say. */
  pull: number;
  title: string | null;
  merged: boolean;
  closed: boolean;
  queue:
    | {
        kind: "queued";
        /** 1 at the head. */
        position: number;
        /** The queue rule's name, or the base branch on GitHub's merge queue. */
        queueName: string;
        eta: string | null;
        /** Null while it waits for its checks to start. */
        checks: { passed: number; total: number; state: string } | null;
      }
    | { kind: "not_queued" }
    | { kind: "unknown"; reason: string };
  /**
   * The repository's merge queue is held, with the reason given: paused, draining or drained (absent:
   * paused), by whom where known, and the labels it lets through.
   */
  paused: {
    reason: string;
    hold?: "paused" | "draining" | "drained";
    by?: string | null;
    except?: readonly string[];
  } | null;
}

/**
 * Reads a pull request's queue state through the use case the `pr` command and the Home tab share
 * (src/use-cases/pull-queue.ts): an unfurl is not a command, neither counted nor logged as one.
 * GitHub's own facts (title, merged) come from the GitHub gateway the commands use.
 */
export async function readUnfurlFacts(
  target: UnfurlTarget & { url: string },
  deps: Pick<RunDeps, "queues" | "github">,
  now: Date,
): Promise<UnfurlFacts> {
  const { repo, pull } = target;
  const { info, queue: read, pause } = await previewPull(deps, repo, pull);
  const base = { ...target, title: info?.title ?? null, merged: info?.merged ?? false };
  const closed = info?.state === "closed";
  const paused = pause
    ? {
        reason: pause.reason,
        hold: holdOf(pause),
        by: pause.by,
        ...(pause.except ? { except: pause.except } : {}),
      }
    : null;
  let queue: UnfurlFacts["queue"];
  if ("error" in read) queue = { kind: "unknown", reason: read.error };
  else if (read.entry) {
    const e = read.entry;
    queue = {
      kind: "queued",
      position: e.position,
      // The named queue, or on a queue per branch (GitHub's) the base branch.
      queueName: e.queue ?? read.branch ?? "",
      eta: estimatedAt(e.estimate, now),
      checks: e.checks
        ? {
            passed: e.checks.checks.filter((c) => c.state === "success").length,
            total: e.checks.checks.length,
            state: e.checks.state,
          }
        : null,
    };
  } else queue = { kind: "not_queued" };
  return { ...base, closed, queue, paused };
}
