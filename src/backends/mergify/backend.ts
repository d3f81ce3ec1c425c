import type {
  EntryState,
  MergeQueueBackend,
  QueueBatch,
  QueueEntry,
  QueueRefusals,
  QueueState,
} from "../../core/merge-queue.js";
import type { QueuePause, QueuePauses } from "../../core/pause.js";
import type { MergeQueueClient } from "./client.js";
import { classifyCommandAnswer } from "./command-answer.js";
import { isMergeQueueError, MergeQueueErrorCode } from "./errors.js";
import type { PauseState } from "./pause.schema.js";
import type { MergeabilityCheck, PullRequestQueueDetails } from "./pull-request.schema.js";
import type { Batch, QueuedPullRequest, QueueStatus, SubBatch } from "./status.schema.js";

/**
 * Mergify's merge queue behind the core's port (src/core/merge-queue.ts): its REST API read and mapped
 * to the core's state, its pause API as QueuePauses (one pause holds every branch of the repository);
 * queue and dequeue are comments for its bot. Failures throw MergeQueueError.
 */
export function mergifyBackend(
  client: Pick<
    MergeQueueClient,
    "getStatus" | "getPullRequest" | "listBranches" | "pause" | "unpause" | "getPause"
  >,
): MergeQueueBackend {
  return {
    kind: "mergify",
    can: { namedQueues: true, jump: false, batches: true },
    cannot: MERGIFY_CANNOT,
    state: async (repo, branch) =>
      mergifyState(await client.getStatus(repo, branch ? { branch } : {}), branch),
    async entry(repo, pull) {
      try {
        return mergifyEntry(await client.getPullRequest(repo, pull));
      } catch (error) {
        if (isMergeQueueError(error, MergeQueueErrorCode.NotInQueue)) return null;
        throw error;
      }
    },
    branches: (repo) => client.listBranches(repo),
    pauses: mergifyPauses(client),
    commands: { via: "comments", readAnswer: classifyCommandAnswer },
  };
}

/** Why Mergify's queue cannot do what some commands ask, and what to use instead. */
const MERGIFY_CANNOT: QueueRefusals = {
  jump: "--jump is for GitHub's merge queue; this repository's is Mergify",
  branchPause: "its merge queue (Mergify's) pauses every branch of the repository at once: leave branch= out",
  drain:
    "Mergify's API has no drain: its pause holds every pull request at once, queued or not. Pause it instead (pause <reason>) once what is queued has merged, or dequeue what should not merge",
  exemptions:
    "its merge queue (Mergify's) holds every pull request while paused and cannot let some through: Mergify's own queue rules are the way there (conditions on the label, label=hotfix, in .mergify.yml), or pause without except",
  letThrough:
    "its merge queue (Mergify's) holds every pull request of the repository while paused and cannot let one through: unpause it, or give the pull request a queue rule of its own in .mergify.yml whose conditions match it",
};

/** Mergify's pause API: repository-wide (a branch named is the repository's pause). */
function mergifyPauses(client: Pick<MergeQueueClient, "pause" | "unpause" | "getPause">): QueuePauses {
  return {
    scope: "repository",
    current: async ({ repo }) => mergifyPause(await client.getPause(repo)),
    async held(repo) {
      const pause = mergifyPause(await client.getPause(repo));
      return pause ? [{ ...pause, branch: null }] : [];
    },
    async pause({ repo }, { reason }) {
      const state = await client.pause(repo, reason);
      return mergifyPause(state) ?? { reason, pausedAt: null, by: null };
    },
    async resume({ repo }) {
      try {
        await client.unpause(repo);
        return true;
      } catch (error) {
        // The service answers 404 when there is no pause to delete: false when it is indeed not paused.
        if (!isMergeQueueError(error, MergeQueueErrorCode.NotFound)) throw error;
        if (mergifyPause(await client.getPause(repo))) throw error;
        return false;
      }
    },
  };
}

/** Mergify's pause in the core's terms: `reason` empty when it gave none; `by` unknown (it sees only Yardmaster's app). */
export function mergifyPause(state: PauseState | null | undefined): QueuePause | null {
  if (!state?.paused) return null;
  return { reason: state.reason ?? "", pausedAt: state.paused_at ?? null, by: null };
}

/** Mergify's status of the repository (or one branch) in the core's terms. */
export function mergifyState(status: QueueStatus, branch: string | null): QueueState {
  const waiting = status.waiting_pull_requests.map((p, i) => queued(p, i + 1, null));
  return {
    branch,
    url: null,
    entries: waiting,
    total: waiting.length,
    batches: status.batches.map((b) => batchOf(b, b.sub_batches ?? [])),
    scopeQueues: Object.entries(status.scope_queues ?? {}).map(([name, ids]) => ({
      name,
      batches: ids.length,
    })),
    pause: mergifyPause(status.pause),
    settings: null,
  };
}

function batchOf(batch: Batch | SubBatch, parts: readonly SubBatch[]): QueueBatch {
  return {
    name: batch.name,
    status: batch.status.code,
    checks: { passed: batch.checks_summary.passed, total: batch.checks_summary.total },
    estimate: batch.estimated_merge_at ? { at: batch.estimated_merge_at } : null,
    entries: batch.pull_requests.map((p, i) => queued(p, i + 1, batch.name)),
    parts: parts.map((sub) => batchOf(sub, [])),
  };
}

function queued(p: QueuedPullRequest, position: number, batch: string | null): QueueEntry {
  return {
    position,
    pull: { number: p.number, title: p.title, url: p.url, author: p.author.login },
    state: batch ? "checks-running" : "waiting",
    stateName: null,
    enteredAt: p.queued_at,
    estimate: p.estimated_merge_at ? { at: p.estimated_merge_at } : null,
    queue: null,
    priority: p.priority_rule_name,
    by: null,
    jumped: false,
    scopes: p.scopes,
    batch,
    checks: null,
    checksTimeoutAt: null,
  };
}

const CI_STATES: Record<string, EntryState> = {
  pending: "checks-running",
  success: "mergeable",
  failure: "failing",
  error: "failing",
  timed_out: "failing",
  cancelled: "failing",
};

/** One pull request's place in Mergify's queue, in the core's terms (its position counts from 1). */
export function mergifyEntry(d: PullRequestQueueDetails): QueueEntry {
  const check = d.mergeability_check;
  return {
    position: d.position + 1,
    pull: null,
    state: check ? (CI_STATES[check.ci_state] ?? "other") : "waiting",
    stateName: check?.ci_state ?? null,
    enteredAt: d.queued_at,
    estimate: d.estimated_time_of_merge ? { at: d.estimated_time_of_merge } : null,
    queue: d.queue_rule_name,
    priority: d.priority_rule_name,
    by: null,
    jumped: false,
    scopes: [],
    batch: null,
    checks: check ? checksOf(check) : null,
    checksTimeoutAt: d.checks_timeout_at,
  };
}

function checksOf(check: MergeabilityCheck): NonNullable<QueueEntry["checks"]> {
  return {
    state: check.ci_state,
    runIn: check.check_type,
    draftPull: check.check_type === "draft_pr" ? check.queue_pull_request_number : null,
    checks: check.checks.map((c) => ({
      name: c.name,
      url: c.url ?? c.details_url ?? null,
      state: c.state,
      description: c.description || null,
    })),
  };
}
