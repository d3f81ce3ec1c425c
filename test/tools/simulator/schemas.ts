/**
 * The simulator's answers are checked with the API client's own strict schemas (every field the real
 * service always sends must be there), so the simulator and the client cannot drift apart.
 */
import { strictSchemas } from "../../../src/backends/mergify/strict.schema.js";

export const pauseSchema = strictSchemas.pause;
export const branchesSchema = strictSchemas.branches;
export const statusSchema = strictSchemas.status;
export const pullDetailsSchema = strictSchemas.pullRequest;
export const eventSchema = strictSchemas.event;
export const eventsResponseSchema = strictSchemas.eventsResponse;
