// The simulator's in-memory model: repositories, known pull requests, queues, batches, pause.
// Plain data; the engine (engine.ts) moves it, the views (views.ts) serialize it.

import type { Actor, PullRequestAuthor, PullRequestLabel, QueueMode } from "./types.js";

export interface KnownPullRequest {
  number: number;
  title: string;
  url: string;
  author: PullRequestAuthor;
  baseRef: string;
  headSha: string;
  labels: string[];
  githubLabels: PullRequestLabel[] | null;
  scopes: string[];
  /** Outcome its checks will have the next time they run. */
  checks: "success" | "failure";
  /** Name of the check that fails when `checks` is "failure" (default: the last configured check). */
  failingCheck: string | null;
  /**
   * A flaky check: how many more times it removes the pull request from the queue before its checks pass
   * (then `checks` turns "success"); absent or null: its checks fail until set again.
   */
  failuresLeft?: number | null;
  /** Queue conditions it does not meet yet (`label=ready`): a queue command waits for them. */
  unmetConditions: string[];
}

/** A pull request's stay in a queue (one queue session). */
export interface QueueEntry {
  pull: KnownPullRequest;
  queueName: string;
  queuedAt: number;
  sessionId: string;
  /** Global order of entry, for a stable order among equal priorities. */
  seq: number;
  priorityRuleName: string;
  priorityAlias: string;
}

/** pending: formed, not started; running: checks running; passed: checks passed, waiting to merge. */
export type BatchPhase = "pending" | "running" | "bisecting" | "passed";
export type SubBatchPhase = "pending" | "running" | "passed" | "failed";

/** One speculative check run (a top-level batch's or a sub-batch's). */
export interface CheckRun {
  startedAt: number | null;
  checksEndAt: number | null;
  ciFinishedAt: number | null;
  /** Draft pull request number (or the pull request's own number for an in-place check). */
  queuePullNumber: number | null;
  inPlace: boolean;
  /** Names of the checks that failed, once the run ended (empty when it passed); null while running. */
  failedChecks: string[] | null;
}

export interface SubBatch extends CheckRun {
  id: string;
  name: string;
  entries: QueueEntry[];
  phase: SubBatchPhase;
}

export interface Bisection {
  sessionId: string;
  originalNumbers: number[];
  depth: number;
  culprits: QueueEntry[];
}

export interface Batch extends CheckRun {
  id: string;
  name: string;
  queueName: string;
  entries: QueueEntry[];
  phase: BatchPhase;
  createdAt: number;
  subBatches: SubBatch[] | null;
  bisection: Bisection | null;
  /** Id and name of the batch ahead when the checks started. */
  previous: { id: string; name: string } | null;
  /** Why the batch's checks start (`start_reason` of its checks_start events). */
  startReason: string;
}

export interface BranchQueue {
  branch: string;
  mode: QueueMode;
  batches: Batch[];
  waiting: QueueEntry[];
}

export interface PauseState {
  reason: string;
  pausedAt: number;
  by: Actor;
}

export interface LeftRecord {
  queueName: string;
  branch: string;
  merged: boolean;
  leftAt: number;
  dequeueCode: string;
}

export interface Repository {
  /** "owner/repo" as registered. */
  fullName: string;
  /** Lowercased full name: repositories are found case-insensitively, like on GitHub. */
  key: string;
  /** Branches with a merge queue; the first one is the default branch. */
  branches: string[];
  queues: Map<string, BranchQueue>;
  pulls: Map<number, KnownPullRequest>;
  left: Map<number, LeftRecord>;
  pause: PauseState | null;
  batchCounter: number;
  draftCounter: number;
  /** Its `commands_restrictions` refuse a bot sender (Mergify's default); null: the engine's default. */
  refuseBotCommands: boolean | null;
  /** Queue commands waiting for their pull request's conditions, by pull request number. */
  waitingCommands: Map<number, { queueName: string; sessionId: string; trigger: string; command: string }>;
}

/** Where a queued pull request is. */
export interface EntryLocation {
  queue: BranchQueue;
  entry: QueueEntry;
  batch: Batch | null;
  subBatch: SubBatch | null;
}

export function repositoryKey(fullName: string): string {
  return fullName.toLowerCase();
}

export function locateEntry(repo: Repository, number: number): EntryLocation | null {
  for (const queue of repo.queues.values()) {
    for (const batch of queue.batches) {
      const entry = batch.entries.find((candidate) => candidate.pull.number === number);
      if (entry !== undefined) {
        const subBatch =
          batch.subBatches?.find((sub) => sub.entries.some((candidate) => candidate === entry)) ?? null;
        return { queue, entry, batch, subBatch };
      }
    }
    const entry = queue.waiting.find((candidate) => candidate.pull.number === number);
    if (entry !== undefined) return { queue, entry, batch: null, subBatch: null };
  }
  return null;
}

/** Number of pull requests in a branch queue (in batches and waiting). */
export function queueSize(queue: BranchQueue): number {
  return queue.batches.reduce((sum, batch) => sum + batch.entries.length, 0) + queue.waiting.length;
}
