export { LIMITS as BLOCK_KIT_LIMITS, validateBlocks } from "./block-kit-limits.js";
export {
  type EventDeliveryAttempt,
  type PendingEventRetry,
  SLACK_EVENT_RETRY_DELAYS_MS,
  SlackEventRetries,
  type SlackRetryReason,
} from "./event-retries.js";
export { type FaultOutcome, SlackFaults } from "./faults.js";
export {
  type BucketFigures,
  DEFAULT_POST_MESSAGE_LIMIT,
  DEFAULT_UPDATE_LIMIT,
  type SlackRateLimitOptions,
  SlackRateLimits,
  TokenBucket,
} from "./rate-limits.js";
export { RESPONSE_URL_LIFETIME_MS, RESPONSE_URL_MAX_USES } from "./response-urls.js";
export type { ButtonClickArgs, DeliveryResult, ResendArgs, SlashCommandArgs } from "./sender.js";
export { type SlackStandIn, type SlackStandInOptions, startSlackStandIn } from "./server.js";
export { isValidSlackSignature, signSlackRequest } from "./signing.js";
export { SocketModeHub, STAND_IN_APP_TOKEN } from "./socket-mode.js";
export { type BotIdentity, SlackState } from "./state.js";
export type * from "./types.js";
