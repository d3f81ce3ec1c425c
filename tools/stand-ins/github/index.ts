/**
 * GitHub stand-in: a loopback HTTP server that plays GitHub (Enterprise Server paths) for Yardmaster's
 * end-to-end tests and the local sandbox.
 */
export { generateAppKeyPair, importAppPrivateKey, verifyAppJwt } from "./app-auth.js";
export type { ForwardRecord, MergeQueueOptions } from "./merge-queue-forwarder.js";
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
export { GitHubState, legacyPermission, REACTION_CONTENTS, REPO_ROLES } from "./state.js";
export type { DeliverOptions, DeliveryRecord } from "./webhooks.js";
export { signWebhookBody } from "./webhooks.js";
