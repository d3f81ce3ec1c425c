/**
 * Realistic answers of the merge-queue service, shaped like its OpenAPI description (complete enough to
 * pass the strict schemas). Functions, so that every test gets fresh objects to alter.
 */

import { mergeQueues } from "../../../src/backends/choose.js";
import { MergeQueueClient, type MergeQueueClientOptions } from "../../../src/backends/mergify/index.js";
import type { MergeQueues } from "../../../src/core/merge-queue.js";
import { Repo } from "../../../src/repo.js";

export const ORIGIN = "https://api.mergify.com";
export const BASE_URL = `${ORIGIN}/v1`;
export const TOKEN = "test-token-123";
export const REPO = Repo.of("acme", "widgets");
export const REPO_PATH = "/v1/repos/acme/widgets";

/** A client with tiny delays so that retry tests stay fast. */
export function makeClient(options: Partial<MergeQueueClientOptions> = {}): MergeQueueClient {
  return new MergeQueueClient({
    baseUrl: BASE_URL,
    token: TOKEN,
    timeoutMs: 1_000,
    ...options,
    retry: { retries: 3, minDelayMs: 1, maxDelayMs: 5, maxElapsedMs: 2_000, ...options.retry },
  });
}

export function queuedPullRequest(number = 1421) {
  return {
    number,
    title: 'feat(auth): add "Reset Password" flow to login UI',
    url: `https://github.com/acme/widgets/pull/${number}`,
    author: { id: 123, login: "james" },
    queued_at: "2025-11-05T13:30:00Z",
    priority_alias: "high",
    priority_rule_name: "hotfix",
    labels: ["feature", "auth"],
    github_labels: [
      { id: 1, name: "feature", color: "0e8a16", default: false },
      { id: 2, name: "auth", color: "1d76db", default: false },
    ],
    scopes: ["frontend"],
    estimated_merge_at: "2025-11-05T14:35:00Z",
    conflict_with_pull_requests: null,
    is_frozen: false,
  };
}

function batchBase(id: string, name: string, code: string) {
  return {
    id,
    parent_ids: [],
    name,
    status: { code },
    started_at: "2025-11-05T13:40:00Z",
    estimated_merge_at: "2025-11-05T13:50:00Z",
    estimated_ci_finish_at: "2025-11-05T13:49:30Z",
    ci_finished_at: null,
    scopes: ["frontend"],
    queue_rule_name: "default",
    checks_summary: { passed: 15, total: 15 },
    pull_requests: [] as ReturnType<typeof queuedPullRequest>[],
  };
}

export function queueStatus() {
  return {
    mode: "parallel",
    scope_queues: {
      __default__: ["550e8400-e29b-41d4-a716-446655440001", "550e8400-e29b-41d4-a716-446655440002"],
    },
    batches: [
      {
        ...batchBase("550e8400-e29b-41d4-a716-446655440001", "Batch 1", "running"),
        scopes: ["frontend", "backend"],
        checks_summary: { passed: 45, total: 67 },
        pull_requests: [queuedPullRequest(1421)],
        intermediate_results_skipped: false,
      },
      {
        ...batchBase("550e8400-e29b-41d4-a716-446655440002", "Batch 2", "bisecting"),
        parent_ids: ["550e8400-e29b-41d4-a716-446655440001"],
        status: { code: "bisecting", batch_filled_slots: 2, max_batch_slots: 5, batch_max_start_at: null },
        sub_batches: [
          { ...batchBase("550e8400-e29b-41d4-a716-446655440003", "Sub Batch 1", "merged") },
          {
            ...batchBase("550e8400-e29b-41d4-a716-446655440004", "Sub Batch 2", "running"),
            pull_requests: [queuedPullRequest(1422)],
          },
        ],
      },
    ],
    waiting_pull_requests: [{ ...queuedPullRequest(1430), estimated_merge_at: null }],
    pause: null,
  };
}

export function pullRequestDetails(number = 42) {
  return {
    number,
    queued_at: "2025-11-05T13:30:00Z",
    estimated_time_of_merge: "2025-11-05T14:35:00Z",
    position: 0,
    priority_rule_name: "default",
    queue_rule_name: "default",
    checks_timeout_at: null,
    queue_rule: { name: "default", config: { batch_size: 5, merge_method: "squash" } },
    mergeability_check: {
      check_type: "draft_pr",
      queue_pull_request_number: 1501,
      started_at: "2025-11-05T14:05:00Z",
      ci_ended_at: null,
      ci_state: "pending",
      state: "pending",
      checks: [
        {
          name: "ci/test",
          description: "Running tests",
          url: "https://github.com/acme/widgets/actions/runs/1",
          details_url: null,
          state: "pending",
          avatar_url: null,
        },
      ],
      conditions_evaluation: {
        match: false,
        label: "all of",
        description: null,
        documentation_url: null,
        schedule: null,
        subconditions: [
          {
            match: false,
            label: "check-success=ci/test",
            description: null,
            documentation_url: "https://docs.mergify.com/conditions",
            schedule: null,
            subconditions: null,
            evaluations: [
              {
                pull_request: 1501,
                match: false,
                evaluation_error: null,
                related_checks: ["ci/test"],
                next_evaluation_at: null,
              },
            ],
          },
        ],
        evaluations: null,
      },
    },
  };
}

export function pauseState() {
  return { paused: true, reason: "release freeze", paused_at: "2025-11-05T15:00:00Z" };
}

const baseEvent = {
  trigger: "Rule: default",
  repository: "acme/widgets",
  pull_request: 42,
  base_ref: "main",
  outcome: "success",
};

function failedCheck() {
  return {
    name: "ci/test",
    description: "3 tests failed",
    url: "https://github.com/acme/widgets/actions/runs/7",
    details_url: "https://ci.example.com/runs/7",
    state: "failure",
    avatar_url: null,
  };
}

export function queueEnterEvent(id = 1001) {
  return {
    ...baseEvent,
    id,
    received_at: "2025-11-05T13:30:00Z",
    type: "action.queue.enter",
    metadata: {
      queue_name: "default",
      branch: "main",
      queued_at: "2025-11-05T13:30:00Z",
      priority_rule_name: null,
      session_id: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
    },
  };
}

export function queueLeaveEvent(id = 1002) {
  return {
    ...baseEvent,
    id,
    received_at: "2025-11-05T14:10:00.123456+00:00",
    type: "action.queue.leave",
    outcome: "failure",
    metadata: {
      reason: "Checks failed on the draft pull request",
      merged: false,
      queue_name: "default",
      branch: "main",
      queued_at: "2025-11-05T13:30:00Z",
      seconds_waiting_for_schedule: 0,
      seconds_waiting_for_freeze: 0,
      priority_rule_name: null,
      conditions_evaluation: null,
      checks: [failedCheck()],
      unsuccessful_checks: [failedCheck()],
      pull_request_head_sha: "4f1c0a7e9b2d3c4e5f60718293a4b5c6d7e8f901",
      session_id: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
      dequeue_code: "CHECKS_FAILED",
      batch_id: null,
      scopes: null,
      all_scopes: null,
    },
  };
}

export function queueMergedEvent(id = 1003) {
  return {
    ...baseEvent,
    id,
    received_at: "2025-11-05T14:20:00Z",
    type: "action.queue.merged",
    metadata: {
      branch: "main",
      queue_name: "default",
      queued_at: "2025-11-05T13:30:00Z",
      priority_rule_name: null,
      session_id: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
      merge_commit_sha: null,
    },
  };
}

export function checksEndEvent(id = 1004) {
  return {
    ...baseEvent,
    id,
    received_at: "2025-11-05T14:09:00Z",
    type: "action.queue.checks_end",
    outcome: "failure",
    metadata: {
      aborted: false,
      abort_code: null,
      abort_reason: null,
      abort_status: "DEFINITIVE",
      branch: "main",
      priority_rule_name: null,
      queue_name: "default",
      queued_at: "2025-11-05T13:30:00Z",
      retry_attempt: null,
      max_retries: null,
      speculative_check_pull_request: {
        number: 1501,
        in_place: false,
        checks_timed_out: false,
        checks_conclusion: "failure",
        checks_started_at: "2025-11-05T14:05:00Z",
        checks_ended_at: "2025-11-05T14:09:00Z",
        unsuccessful_checks: [failedCheck()],
        pull_request_numbers: [42],
      },
      batch_id: "550e8400-e29b-41d4-a716-446655440001",
      train_car_id: "550e8400-e29b-41d4-a716-446655440001",
      batch_name: "Batch 1",
      scopes: [],
      parent_batch_ids: [],
      session_id: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
    },
  };
}

export function checksChangeEvent(id = 1005) {
  return {
    ...baseEvent,
    id,
    received_at: "2025-11-05T14:06:00Z",
    type: "action.queue.checks.change",
    pull_request: null,
    metadata: { queue_name: "default", running_checks: 2 },
  };
}

/** A repository-level event: no pull request, no base ref. */
export function pauseCreateEvent(id = 1006) {
  return {
    ...baseEvent,
    id,
    received_at: "2025-11-05T15:00:00Z",
    type: "queue.pause.create",
    trigger: "API",
    pull_request: null,
    base_ref: null,
    metadata: {
      reason: "release freeze",
      created_by: { type: "user", id: 4242, name: "octocat" },
      created_by_staff: false,
    },
  };
}

export function commandQueueEvent(id = 1007) {
  return {
    ...baseEvent,
    id,
    received_at: "2025-11-05T13:29:00Z",
    type: "command.queue",
    trigger: "Command: queue",
    metadata: {
      author: { login: "octocat", id: 583231, type: "User", avatar_url: null },
      comment_id: 998877,
      session_id: null,
      command_trigger: "comment",
      trigger_comment_url: "https://github.com/acme/widgets/pull/42#issuecomment-998877",
    },
  };
}

/** A type outside the spec's list, which the real service has. */
export function unknownTypeEvent(id = 1008) {
  return {
    ...baseEvent,
    id,
    received_at: "2025-11-05T15:01:00Z",
    type: "product.enabled",
    pull_request: null,
    base_ref: null,
    metadata: { product: "merge_queue", enabled_by: { id: 1 } },
  };
}

export function eventsBody(events: unknown[], perPage = 10) {
  return { size: events.length, per_page: perPage, events };
}

/** The commands' merge queues when Mergify serves every repository, over `client`. */
export function mergifyQueues(client: MergeQueueClient): MergeQueues {
  return mergeQueues("mergify", { mergify: client, github: null });
}
