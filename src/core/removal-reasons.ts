/**
 * Why a pull request left a merge queue without merging, or why its checks were stopped, in words for
 * people (docs/notifications.md, "What a notice says"): the one place where the services' codes become
 * text. Mergify's dequeue and abort codes (the reference's `dequeue_code` / `abort_code`,
 * ABORT_CODES in event-metadata.schema.ts) and GitHub's `dequeued` reasons (its PullRequestEvent) read as
 * the end of "left the queue without merging: …". A code neither lists reads as its own words, lower
 * case ("SOME_NEW_CODE" → "some new code"), never as the raw code.
 */
const REASONS: Readonly<Record<string, string>> = {
  // Mergify
  PR_DEQUEUED: "it was removed from the queue",
  PR_DEQUEUED_FROM_PARTITION: "it was removed from one of the queue's partitions",
  PR_AHEAD_DEQUEUED: "a pull request ahead of it left the queue",
  BATCH_AHEAD_FAILED: "a batch ahead of it failed",
  PR_WITH_HIGHER_PRIORITY_QUEUED: "a pull request of higher priority was queued",
  SCHEDULED_FREEZE_STATUS_CHANGED: "a scheduled freeze began or ended",
  SPECULATIVE_CHECK_NUMBER_REDUCED: "the queue runs fewer checks at once now",
  CHECKS_TIMEOUT: "its checks did not finish in time",
  CHECKS_FAILED: "its checks failed",
  DROPPED_BY_BISECTION_ELIMINATION: "the bisection of a failed batch left it out",
  QUEUE_RULE_MISSING: "its queue rule no longer exists",
  BASE_BRANCH_MISSING: "its base branch no longer exists",
  BASE_BRANCH_CHANGED: "its base branch changed",
  PR_UNEXPECTEDLY_FAILED_TO_MERGE: "it could not be merged",
  BATCH_MAX_FAILURE_RESOLUTION_ATTEMPTS: "its batch failed too many times to find the culprit",
  PR_CHECKS_STOPPED_BECAUSE_MERGE_QUEUE_PAUSE: "the merge queue was paused",
  CONFLICT_WITH_BASE_BRANCH: "it conflicts with its base branch",
  CONFLICT_WITH_PULL_AHEAD: "it conflicts with a pull request ahead of it",
  BRANCH_UPDATE_FAILED: "its branch could not be updated",
  DRAFT_PULL_REQUEST_CHANGED: "the draft pull request that tested it was changed",
  BATCH_PULL_REQUEST_CLOSED: "a pull request of its batch was closed",
  PULL_REQUEST_UPDATED: "it was updated",
  MERGE_QUEUE_RESET: "the merge queue was reset",
  INCOMPATIBILITY_WITH_BRANCH_PROTECTIONS: "it does not meet the branch's protection rules",
  PR_MANUALLY_MERGED: "it was merged by hand",
  DRAFT_PULL_REQUEST_CREATION_FAILED: "the draft pull request to test it could not be created",
  DRAFT_PULL_REQUEST_CREATION_BRANCH_NOT_INDEXED:
    "the draft pull request to test it could not be created yet",
  CONFIGURATION_CHANGED: "the merge queue's configuration changed",
  UNPROCESSABLE_PULL_REQUEST: "it cannot be processed",
  PR_MANUALLY_DEQUEUED: "it was removed by hand",
  STACK_PREDECESSOR_DEQUEUED: "the pull request it is stacked on left the queue",
  INTERMEDIATE_RESULTS_SKIPPED: "it was merged with a later batch",
  CHECKS_RETRIED: "its checks are being run again",
  SCHEDULE_BLOCKED_AHEAD_YIELDED: "it made way while the queue's schedule blocked it",
  BASE_REF_ALIGNMENT_TIMEOUT: "its base branch could not be aligned in time",
  GITHUB_STACKED_PULL_REQUEST_MERGE_UNSUPPORTED: "GitHub cannot merge stacked pull requests this way",
  BATCH_SCOPES_CHANGED: "the scopes of its batch changed",
  BATCH_AHEAD_BRANCH_EDITED: "the branch of a batch ahead of it was edited",
  CHECKS_INTERRUPTED: "its checks were interrupted",
  // GitHub's merge queue
  MANUAL: "it was removed by hand",
  MERGE_CONFLICT: "it conflicts with its base branch",
  CI_FAILURE: "its merge group's required checks failed",
  CI_TIMEOUT: "its merge group's required checks did not report in time",
  ALREADY_MERGED: "it was already merged",
  QUEUE_CLEARED: "the queue was cleared",
  ROLL_BACK: "a pull request ahead of it left the queue and its merge group could not be rebuilt",
  BRANCH_PROTECTIONS: "it no longer meets the branch's protection rules",
  GIT_TREE_INVALID: "its merge group's commit could not be built",
  INVALID_MERGE_COMMIT: "its merge commit was invalid",
};

/** Codes of a removal a person asked for: "removed by <who>" when the notice knows who. */
const BY_HAND = new Set(["MANUAL", "PR_MANUALLY_DEQUEUED"]);

/** The words for a code: its own, or the code's words lower-cased when no one listed it. */
export function reasonWords(code: string): string {
  return (
    REASONS[code] ??
    code
      .toLowerCase()
      .replace(/[_\s]+/g, " ")
      .trim()
  );
}

/**
 * Why a pull request left without merging (or its checks stopped): the code's words; "removed by <who>"
 * for a removal by hand when who is known; the service's own text when it gave no code; null when it
 * said nothing.
 */
export function removalWords(removal: {
  code?: string | null;
  reason?: string | null;
  removedBy?: string | null;
}): string | null {
  const { code, reason, removedBy } = removal;
  if (code && BY_HAND.has(code) && removedBy) return `removed by ${removedBy}`;
  if (code) return reasonWords(code);
  return reason?.trim() ? reason.trim() : null;
}
