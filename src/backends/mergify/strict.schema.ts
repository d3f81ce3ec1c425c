import { buildBranchesSchema } from "./branches.schema.js";
import { buildEventMetadataSchemas } from "./event-metadata.schema.js";
import { buildEventSchemas } from "./events.schema.js";
import { buildPauseSchema } from "./pause.schema.js";
import { buildPullRequestSchemas } from "./pull-request.schema.js";
import { strictMode } from "./schema-mode.js";
import { buildStatusSchemas } from "./status.schema.js";

const status = buildStatusSchemas(strictMode);
const events = buildEventSchemas(strictMode);

/**
 * Strict schemas, for tests that hold the project's simulator to what the real service sends: every field
 * the service always sends must be there, enumerations hold only known values, event types are known, and
 * events of the queue, pause and command types carry their full metadata. Built from the same builders as
 * the lenient schemas the client uses.
 */
export const strictSchemas = {
  branches: buildBranchesSchema(strictMode),
  status: status.status,
  batch: status.batch,
  queuedPullRequest: status.queuedPullRequest,
  pullRequest: buildPullRequestSchemas(strictMode).details,
  pause: buildPauseSchema(strictMode),
  eventsResponse: events.eventsResponse,
  /** Any one event, checked against its type's schema. */
  event: events.anyEvent,
  /** A whole event of each typed type. */
  events: events.typed,
  /** Metadata of each typed type. */
  eventMetadata: buildEventMetadataSchemas(strictMode).byType,
} as const;
