/**
 * GitHub stand-in: a loopback HTTP server that plays GitHub (Enterprise Server paths) for Yardmaster's
 * end-to-end tests and the local sandbox.
 */
export { generateAppKeyPair, importAppPrivateKey, verifyAppJwt } from "./app-auth.js";
export type { FailureFault, RequestMatch } from "./faults.js";
export { GitHubFaults } from "./faults.js";
export type { ForwardRecord, MergeQueueOptions } from "./merge-queue-forwarder.js";
export type {
  MergeQueueLogEvent,
  MergeQueuePullInfo,
  MergeQueueSource,
  SendCheckRunOptions,
} from "./merge-queue-webhooks.js";
export { QUEUE_CHECK_NAME, ruleCheckName } from "./merge-queue-webhooks.js";
export type { CheckConclusion } from "./queue-payloads.js";
export { MERGE_QUEUE_APP } from "./queue-payloads.js";
export type { AppWrite, ContentLimit, SecondaryLimitHit, SecondaryLimitOptions } from "./secondary-limits.js";
export {
  CONTENT_MESSAGE,
  GITHUB_SECONDARY_LIMITS,
  scaleSecondaryLimits,
  WRITE_PACE_MESSAGE,
} from "./secondary-limits.js";
export type {
  DeliverIssueCommentArgs,
  GitHubStandIn,
  GitHubStandInOptions,
  RecordedRequest,
  RequestFilter,
} from "./server.js";
export { startGitHubStandIn } from "./server.js";
export type {
  Account,
  AddIssueInput,
  AddPullRequestInput,
  AddRepositoryOptions,
  Comment,
  Installation,
  Issue,
  Reaction,
  ReactionContent,
  RepoRole,
  Repository,
} from "./state.js";
export {
  DEFAULT_INSTALLATION_EVENTS,
  GitHubState,
  installationPermissions,
  legacyPermission,
  REACTION_CONTENTS,
  REPO_ROLES,
} from "./state.js";
export type { DeliverOptions, DeliveryRecord, WebhookRequest, WebhookTransport } from "./webhooks.js";
export { signWebhookBody } from "./webhooks.js";
