import type { Actor } from "../../commands/command.js";
import { type RunDeps, runCommand } from "../../commands/run.js";
import { estimatedAt } from "../../core/merge-queue.js";
import { holdOf } from "../../core/pause.js";
import type { UnfurlTarget } from "./values.js";

/** What an unfurl shows of one pull request, read through the `pr` and `status` commands. */
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
 * Reads a pull request's queue state as `/mq pr` and `/mq status` would (the same run path, counted
 * and logged like them; neither needs a permission). GitHub's own facts (title, merged) come from the
 * GitHub gateway the commands use.
 */
export async function readUnfurlFacts(
  target: UnfurlTarget & { url: string },
  actor: Actor,
  deps: RunDeps,
  now: Date,
): Promise<UnfurlFacts> {
  const { repo, pull } = target;
  const info = await deps.github.pullRequest(repo, pull).catch(() => null);
  const base = { ...target, title: info?.title ?? null, merged: info?.merged ?? false };
  const closed = info?.state === "closed";
  const [pr, status] = await Promise.all([
    runCommand({ name: "pr", repo, pull }, actor, deps),
    runCommand({ name: "status", repo, ...(info ? { branch: info.baseRef } : {}) }, actor, deps),
  ]);
  const state = status.ok && status.result.name === "status" ? status.result.state : null;
  const pause = state?.pause;
  const paused = pause
    ? {
        reason: pause.reason,
        hold: holdOf(pause),
        by: pause.by,
        ...(pause.except ? { except: pause.except } : {}),
      }
    : null;
  let queue: UnfurlFacts["queue"];
  if (!pr.ok || pr.result.name !== "pr") {
    queue = { kind: "unknown", reason: pr.ok ? "" : pr.error.code };
  } else {
    const q = pr.result.queue;
    if (q.state === "queued") {
      const e = q.entry;
      queue = {
        kind: "queued",
        position: e.position,
        // The named queue, or on a queue per branch (GitHub's) the base branch.
        queueName: e.queue ?? pr.result.branch ?? "",
        eta: estimatedAt(e.estimate, now),
        checks: e.checks
          ? {
              passed: e.checks.checks.filter((c) => c.state === "success").length,
              total: e.checks.checks.length,
              state: e.checks.state,
            }
          : null,
      };
    } else if (q.state === "not_queued") queue = { kind: "not_queued" };
    else queue = { kind: "unknown", reason: q.error.code };
  }
  return { ...base, closed, queue, paused };
}
