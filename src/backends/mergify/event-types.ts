/** Event types of the event log (docs/merge-queue-api.md, "The event log"), by group. */

export const ACTION_EVENT_TYPES = [
  "action.assign",
  "action.backport",
  "action.close",
  "action.comment",
  "action.copy",
  "action.delete_head_branch",
  "action.dismiss_reviews",
  "action.edit",
  "action.github_actions",
  "action.label",
  "action.merge",
  "action.post_check",
  "action.rebase",
  "action.refresh",
  "action.request_reviews",
  "action.requeue",
  "action.review",
  "action.squash",
  "action.unqueue",
  "action.update",
] as const;

/**
 * Queue actions: the spec's list plus `action.queue.conflict_deferred`, which the real service sends.
 * Note the dot in `action.queue.checks.change` (not `checks_change`).
 */
export const QUEUE_EVENT_TYPES = [
  "action.queue.enter",
  "action.queue.leave",
  "action.queue.merged",
  "action.queue.change",
  "action.queue.checks_start",
  "action.queue.checks_end",
  "action.queue.checks.change",
  "action.queue.checks_not_started",
  "action.queue.batch_bisection_start",
  "action.queue.batch_bisection_end",
  "action.queue.conflict_deferred",
] as const;

export const PAUSE_EVENT_TYPES = ["queue.pause.create", "queue.pause.update", "queue.pause.delete"] as const;

export const COMMAND_EVENT_TYPES = ["command.queue", "command.dequeue", "command.requeue"] as const;

export const CI_INSIGHTS_EVENT_TYPES = [
  "ci_insights.auto_quarantine.disabled",
  "ci_insights.auto_quarantine.enabled",
  "ci_insights.auto_quarantine.modified",
  "ci_insights.job_retried",
] as const;

export const CI_ISSUE_EVENT_TYPES = [
  "ci_issue.created",
  "ci_issue.linked",
  "ci_issue.merged",
  "ci_issue.renamed",
  "ci_issue.reopened",
  "ci_issue.resolved",
  "ci_issue.unresolved",
] as const;

export const SCHEDULED_FREEZE_EVENT_TYPES = [
  "scheduled_freeze.create",
  "scheduled_freeze.delete",
  "scheduled_freeze.update",
] as const;

/** Types whose metadata is typed (see event-metadata.schema.ts): queue, pause and command events. */
export const TYPED_EVENT_TYPES = [
  ...QUEUE_EVENT_TYPES,
  ...PAUSE_EVENT_TYPES,
  ...COMMAND_EVENT_TYPES,
] as const;

/** Types the real service's OpenAPI description has and the spec's closed list does not. */
const REFERENCE_ONLY_EVENT_TYPES = [
  "action.dequeue",
  "product.disabled",
  "product.enabled",
  "test.dequarantined",
  "test.quarantined",
] as const;

/** The spec's closed list (section 6), plus the types the real service also sends. */
export const KNOWN_EVENT_TYPES = [
  ...ACTION_EVENT_TYPES,
  ...QUEUE_EVENT_TYPES,
  ...CI_INSIGHTS_EVENT_TYPES,
  ...CI_ISSUE_EVENT_TYPES,
  ...COMMAND_EVENT_TYPES,
  ...PAUSE_EVENT_TYPES,
  ...SCHEDULED_FREEZE_EVENT_TYPES,
  ...REFERENCE_ONLY_EVENT_TYPES,
] as const;

export type QueueEventType = (typeof QUEUE_EVENT_TYPES)[number];
export type PauseEventType = (typeof PAUSE_EVENT_TYPES)[number];
export type CommandEventType = (typeof COMMAND_EVENT_TYPES)[number];
export type TypedEventType = (typeof TYPED_EVENT_TYPES)[number];
export type KnownEventType = (typeof KNOWN_EVENT_TYPES)[number];

const known: ReadonlySet<string> = new Set(KNOWN_EVENT_TYPES);
const typed: ReadonlySet<string> = new Set(TYPED_EVENT_TYPES);

export function isKnownEventType(type: string): type is KnownEventType {
  return known.has(type);
}

export function isTypedEventType(type: string): type is TypedEventType {
  return typed.has(type);
}
