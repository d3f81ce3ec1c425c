// Serialization of the model into the API's response shapes, with estimated times of merge.
//
// ETAs: a running batch's checks end at `checksEndAt`; a batch merges when its checks end and every
// batch ahead has merged; a batch waiting to start starts when the batches ahead that hold it are done;
// waiting pull requests are grouped into future batches of `batchSize` that start when a train slot
// frees (the batch `speculativeChecks` places ahead merges) and, when not full, after the fill wait.
// While the repository is paused nothing merges, so merge ETAs are null.

import { checksAt, checksSummary } from "./checks.js";
import { scopesOf } from "./engine.js";
import type { Batch, BranchQueue, CheckRun, QueueEntry, Repository, SubBatch } from "./model.js";
import type { EngineOptions } from "./options.js";
import type {
  BatchStatusCode,
  MergeQueueMergeabilityCheck,
  MergeQueuePauseResponse,
  MergeQueuePullRequest,
  MergeQueueStatus,
  MergeQueueStatusBatchBase,
  MergeQueueStatusBatchWithSubBatch,
  MergeQueueStatusPullRequest,
  QueueCheck,
  QueueConditionEvaluation,
} from "./types.js";

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export const DEFAULT_SCOPE_QUEUE = "__default__";

interface Estimate {
  mergeAt: number | null;
  ciFinishAt: number | null;
}

export interface QueueEstimates {
  batches: Map<Batch, Estimate>;
  entries: Map<QueueEntry, Estimate>;
}

function healthy(batch: Batch): boolean {
  return batch.phase === "running" || batch.phase === "passed";
}

function runFinish(run: CheckRun, pending: boolean, now: number, duration: number): number {
  if (run.ciFinishedAt !== null) return run.ciFinishedAt;
  if (run.checksEndAt !== null) return run.checksEndAt;
  return pending ? now + duration : now;
}

export function estimate(
  repo: Repository,
  queue: BranchQueue,
  options: EngineOptions,
  now: number,
): QueueEstimates {
  const paused = repo.pause !== null;
  const duration = options.checksDurationMs;
  const result: QueueEstimates = { batches: new Map(), entries: new Map() };
  const trainEtas: number[] = [];
  let previousEta = now;
  let blockingEta = now;
  for (const batch of queue.batches) {
    let ciFinish: number;
    if (batch.phase === "bisecting") {
      ciFinish = now;
      for (const sub of batch.subBatches ?? []) {
        ciFinish = Math.max(ciFinish, runFinish(sub, true, now, duration));
      }
    } else if (batch.phase === "pending") {
      ciFinish = Math.max(now, blockingEta) + duration;
    } else {
      ciFinish = runFinish(batch, false, now, duration);
    }
    const eta = Math.max(ciFinish, previousEta);
    previousEta = eta;
    if (!healthy(batch)) blockingEta = Math.max(blockingEta, eta);
    trainEtas.push(eta);
    const value: Estimate = {
      mergeAt: paused ? null : eta,
      ciFinishAt: batch.phase === "passed" ? (batch.ciFinishedAt ?? now) : ciFinish,
    };
    result.batches.set(batch, value);
    for (const entry of batch.entries) result.entries.set(entry, value);
  }
  const waiting = queue.waiting;
  for (let start = 0; start < waiting.length; start += options.batchSize) {
    const chunk = waiting.slice(start, start + options.batchSize);
    const [first] = chunk;
    if (first === undefined) break;
    let startAt = now;
    if (chunk.length < options.batchSize)
      startAt = Math.max(startAt, first.queuedAt + options.batchMaxWaitMs);
    if (trainEtas.length >= options.speculativeChecks) {
      startAt = Math.max(startAt, trainEtas[trainEtas.length - options.speculativeChecks] ?? now);
    }
    startAt = Math.max(startAt, blockingEta);
    const ciFinish = startAt + duration;
    const eta = Math.max(ciFinish, trainEtas[trainEtas.length - 1] ?? now);
    trainEtas.push(eta);
    for (const entry of chunk)
      result.entries.set(entry, { mergeAt: paused ? null : eta, ciFinishAt: ciFinish });
  }
  return result;
}

export function pauseView(repo: Repository): MergeQueuePauseResponse {
  if (repo.pause === null) return { paused: false, reason: null, paused_at: null };
  return { paused: true, reason: repo.pause.reason, paused_at: iso(repo.pause.pausedAt) };
}

function pullView(entry: QueueEntry, estimates: QueueEstimates): MergeQueueStatusPullRequest {
  const value = estimates.entries.get(entry);
  const pull = entry.pull;
  return {
    number: pull.number,
    title: pull.title,
    url: pull.url,
    author: { id: pull.author.id, login: pull.author.login },
    queued_at: new Date(entry.queuedAt).toISOString(),
    priority_alias: entry.priorityAlias,
    priority_rule_name: entry.priorityRuleName,
    labels: [...pull.labels],
    scopes: [...pull.scopes],
    all_scopes: false,
    github_labels: pull.githubLabels === null ? null : pull.githubLabels.map((label) => ({ ...label })),
    estimated_merge_at: iso(value?.mergeAt ?? null),
    estimated_ci_finish_at: iso(value?.ciFinishAt ?? null),
    conflict_with_pull_requests: null,
    batch_reason: null,
    is_frozen: false,
    dequeue_requested: false,
    depends_on_pull_requests: null,
  };
}

function batchCode(queue: BranchQueue, batch: Batch): BatchStatusCode {
  switch (batch.phase) {
    case "running":
      return "running";
    case "passed":
      return "waiting_for_merge";
    case "bisecting":
      return "bisecting";
    case "pending": {
      const index = queue.batches.indexOf(batch);
      return queue.batches.slice(0, index).some((ahead) => !healthy(ahead))
        ? "waiting_for_previous_batches"
        : "preparing";
    }
  }
}

const SUB_BATCH_CODES: Record<SubBatch["phase"], BatchStatusCode> = {
  pending: "preparing",
  running: "running",
  passed: "waiting_for_merge",
  failed: "failed",
};

function baseView(
  options: EngineOptions,
  run: CheckRun & { id: string; name: string; entries: QueueEntry[] },
  details: {
    code: BatchStatusCode;
    queueName: string;
    parentIds: string[];
    checks: QueueCheck[];
    estimate: Estimate | undefined;
    estimates: QueueEstimates;
  },
): MergeQueueStatusBatchBase {
  const running = run.startedAt !== null && run.failedChecks === null;
  return {
    id: run.id,
    name: run.name,
    parent_ids: details.parentIds,
    status: {
      code: details.code,
      batch_filled_slots: run.entries.length,
      max_batch_slots: Math.max(options.batchSize, run.entries.length),
      batch_max_start_at: null,
      retries: 0,
      max_retries: 0,
    },
    started_at: iso(run.startedAt),
    estimated_merge_at: iso(details.estimate?.mergeAt ?? null),
    estimated_ci_finish_at: iso(details.estimate?.ciFinishAt ?? null),
    ci_finished_at: iso(run.ciFinishedAt),
    scopes: scopesOf(run.entries),
    queue_rule_name: details.queueName,
    checks_summary: checksSummary(details.checks),
    pull_requests: run.entries.map((entry) => pullView(entry, details.estimates)),
    all_scopes: false,
    checks_timeout_at:
      running && run.startedAt !== null ? iso(run.startedAt + options.checksTimeoutMs) : null,
    intermediate_results_skipped: false,
    queue_pull_request_number: run.queuePullNumber,
  };
}

function batchView(
  repo: Repository,
  queue: BranchQueue,
  batch: Batch,
  options: EngineOptions,
  now: number,
  estimates: QueueEstimates,
): MergeQueueStatusBatchWithSubBatch {
  const index = queue.batches.indexOf(batch);
  const estimateOfBatch = estimates.batches.get(batch);
  const subViews =
    batch.phase === "bisecting"
      ? (batch.subBatches ?? []).map((sub) =>
          baseView(options, sub, {
            code: SUB_BATCH_CODES[sub.phase],
            queueName: batch.queueName,
            parentIds: [],
            checks: checksAt(options, repo.fullName, sub, sub.entries, now),
            estimate: {
              mergeAt: estimateOfBatch?.mergeAt ?? null,
              ciFinishAt: runFinish(sub, true, now, options.checksDurationMs),
            },
            estimates,
          }),
        )
      : null;
  const checks =
    subViews === null
      ? checksAt(options, repo.fullName, batch, batch.entries, now)
      : (batch.subBatches ?? []).flatMap((sub) => checksAt(options, repo.fullName, sub, sub.entries, now));
  return {
    ...baseView(options, batch, {
      code: batchCode(queue, batch),
      queueName: batch.queueName,
      parentIds: queue.batches.slice(0, Math.max(0, index)).map((ahead) => ahead.id),
      checks,
      estimate: estimateOfBatch,
      estimates,
    }),
    sub_batches: subViews,
  };
}

export function statusView(
  repo: Repository,
  queue: BranchQueue | undefined,
  options: EngineOptions,
  now: number,
): MergeQueueStatus {
  const pause = repo.pause === null ? null : pauseView(repo);
  if (queue === undefined) {
    return { batches: [], waiting_pull_requests: [], mode: options.mode, scope_queues: {}, pause };
  }
  const estimates = estimate(repo, queue, options, now);
  const scopeQueues: Record<string, string[]> = { [DEFAULT_SCOPE_QUEUE]: [] };
  for (const batch of queue.batches) {
    const key =
      queue.mode === "parallel" ? (scopesOf(batch.entries)[0] ?? DEFAULT_SCOPE_QUEUE) : DEFAULT_SCOPE_QUEUE;
    scopeQueues[key] = [...(scopeQueues[key] ?? []), batch.id];
  }
  return {
    batches: queue.batches.map((batch) => batchView(repo, queue, batch, options, now, estimates)),
    waiting_pull_requests: queue.waiting.map((entry) => pullView(entry, estimates)),
    mode: queue.mode,
    scope_queues: scopeQueues,
    pause,
  };
}

export function queueRuleConfig(options: EngineOptions, name: string): Record<string, unknown> {
  return {
    name,
    merge_conditions: options.checkNames.map((check) => `check-success=${check}`),
    queue_conditions: ["#approved-reviews-by>=1"],
    batch_size: options.batchSize,
    batch_max_wait_time: `${Math.round(options.batchMaxWaitMs / 1000)} seconds`,
    checks_timeout: `${Math.round(options.checksTimeoutMs / 1000)} seconds`,
    merge_method: "merge",
    allow_inplace_checks: true,
    speculative_checks: options.speculativeChecks,
  };
}

function conditionsEvaluation(checks: QueueCheck[], queuePullNumber: number): QueueConditionEvaluation {
  const subconditions = checks.map(
    (check): QueueConditionEvaluation => ({
      match: check.state === "success",
      label: `check-success=${check.name}`,
      description: null,
      documentation_url: null,
      schedule: null,
      subconditions: [],
      evaluations: [
        {
          pull_request: queuePullNumber,
          match: check.state === "success",
          evaluation_error: null,
          related_checks: [check.name],
          next_evaluation_at: null,
        },
      ],
    }),
  );
  return {
    match: subconditions.every((condition) => condition.match),
    label: "all of",
    description: null,
    documentation_url: null,
    schedule: null,
    subconditions,
    evaluations: [],
  };
}

function mergeabilityCheck(
  repo: Repository,
  options: EngineOptions,
  run: CheckRun & { entries: QueueEntry[] },
  now: number,
): MergeQueueMergeabilityCheck | null {
  if (run.startedAt === null || run.queuePullNumber === null) return null;
  const checks = checksAt(options, repo.fullName, run, run.entries, now);
  const ended = run.failedChecks !== null;
  const failed = ended && (run.failedChecks?.length ?? 0) > 0;
  return {
    check_type: run.inPlace ? "in_place" : "draft_pr",
    queue_pull_request_number: run.queuePullNumber,
    started_at: iso(run.startedAt),
    ci_ended_at: iso(run.ciFinishedAt),
    ci_state: !ended ? "pending" : failed ? "failed" : "success",
    state: !ended ? "pending" : failed ? "failure" : "success",
    checks,
    conditions_evaluation: conditionsEvaluation(checks, run.queuePullNumber),
  };
}

/** The queue details of a pull request, or null when it is in no queue. */
export function pullDetailsView(
  repo: Repository,
  number: number,
  options: EngineOptions,
  now: number,
): MergeQueuePullRequest | null {
  for (const queue of repo.queues.values()) {
    const ordered: { entry: QueueEntry; batch: Batch | null }[] = [
      ...queue.batches.flatMap((batch) => batch.entries.map((entry) => ({ entry, batch }))),
      ...queue.waiting.map((entry) => ({ entry, batch: null })),
    ];
    const position = ordered.findIndex(({ entry }) => entry.pull.number === number);
    const found = ordered[position];
    if (found === undefined) continue;
    const { entry, batch } = found;
    const estimates = estimate(repo, queue, options, now);
    let check: MergeQueueMergeabilityCheck | null = null;
    let timeoutAt: number | null = null;
    if (batch !== null) {
      const run =
        batch.phase === "bisecting"
          ? (batch.subBatches ?? []).find((sub) => sub.entries.includes(entry))
          : batch;
      if (run !== undefined) {
        check = mergeabilityCheck(repo, options, run, now);
        if (run.startedAt !== null && run.failedChecks === null)
          timeoutAt = run.startedAt + options.checksTimeoutMs;
      }
    }
    return {
      number,
      queued_at: new Date(entry.queuedAt).toISOString(),
      estimated_time_of_merge: iso(estimates.entries.get(entry)?.mergeAt ?? null),
      position,
      priority_rule_name: entry.priorityRuleName,
      queue_rule_name: entry.queueName,
      checks_timeout_at: iso(timeoutAt),
      queue_rule: { name: entry.queueName, config: queueRuleConfig(options, entry.queueName) },
      mergeability_check: check,
    };
  }
  return null;
}
