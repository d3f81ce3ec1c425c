import { initial } from "./001-initial.js";
import { pauseAttributions } from "./002-pause-attributions.js";
import { slackSignatures } from "./003-slack-signatures.js";
import { pollSchedule } from "./004-poll-schedule.js";
import { threadParentStale } from "./005-thread-parent-stale.js";
import { relays } from "./006-relays.js";
import { noticePreferences } from "./007-notice-preferences.js";
import { scheduledUnpauses } from "./008-scheduled-unpauses.js";
import { statsDays } from "./009-stats-days.js";
import { digests } from "./010-digests.js";
import { githubQueuePulls } from "./011-github-queue-pulls.js";
import { webhookJobs } from "./012-webhook-jobs.js";
import { sharedGitHubWrites } from "./013-shared-github-writes.js";
import { pollLastRead } from "./014-poll-last-read.js";
import { queueEvents } from "./015-queue-events.js";
import { freezes } from "./016-freezes.js";
import { gates } from "./017-gates.js";
import { healthEpisodes } from "./018-health-episodes.js";
import { queueRequests } from "./019-queue-requests.js";
import { gateLeases } from "./020-gate-leases.js";
import { healthEpisodesClosed } from "./021-health-episodes-closed.js";
import { queueEventsByPull } from "./022-queue-events-by-pull.js";
import { notificationAttempts } from "./023-notification-attempts.js";
import { gateRetries } from "./024-gate-retries.js";
import { slackEventsAndCommandSteps } from "./026-slack-events-and-command-steps.js";
import { signInConfirmations } from "./027-sign-in-confirmations.js";
import { commandStepIntents } from "./028-command-step-intents.js";
import { failureDetails } from "./029-failure-details.js";
import { flakeShield } from "./030-flake-shield.js";
import { gateControl } from "./031-gate-control.js";
import { mergedPulls } from "./032-merged-pulls.js";
import { workItems } from "./033-work-items.js";
import { freezeStepSetters } from "./034-freeze-step-setters.js";
import { onceClaims } from "./035-once-claims.js";
import { pollsAsWork } from "./036-polls-as-work.js";
import { commandClaims } from "./038-command-claims.js";
import { freezeWork } from "./039-freeze-work.js";
import { digestsOnce } from "./040-digests-once.js";
import { recordsOnce } from "./041-records-once.js";
import { claimsAsWork } from "./042-claims-as-work.js";
import { gateWork } from "./043-gate-work.js";
import type { Migration } from "./migration.js";

export { type ColumnTypes, columnTypes, type Migration } from "./migration.js";

/** In order of version; migrate.ts applies those a database has not recorded. */
export const MIGRATIONS: readonly Migration[] = [
  initial,
  pauseAttributions,
  slackSignatures,
  pollSchedule,
  threadParentStale,
  relays,
  noticePreferences,
  scheduledUnpauses,
  statsDays,
  digests,
  githubQueuePulls,
  webhookJobs,
  sharedGitHubWrites,
  pollLastRead,
  queueEvents,
  freezes,
  gates,
  healthEpisodes,
  queueRequests,
  gateLeases,
  healthEpisodesClosed,
  queueEventsByPull,
  notificationAttempts,
  gateRetries,
  slackEventsAndCommandSteps,
  signInConfirmations,
  commandStepIntents,
  failureDetails,
  flakeShield,
  gateControl,
  mergedPulls,
  workItems,
  freezeStepSetters,
  onceClaims,
  pollsAsWork,
  commandClaims,
  freezeWork,
  digestsOnce,
  recordsOnce,
  claimsAsWork,
  gateWork,
];

/** The highest migration version this build knows. */
export const LATEST_SCHEMA_VERSION: number = MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0);
