import { z } from "zod";
import { MergeQueueError, MergeQueueErrorCode } from "./errors.js";
import {
  baseRefSchema,
  checkInput,
  eventTypeFilterSchema,
  perPageSchema,
  pullNumberSchema,
  timestampSchema,
} from "./limits.js";
import type { EventQuery } from "./types.js";

// Built once: the poller calls this for every repository on every tick.
const pullNumbersSchema = z.array(pullNumberSchema);
const eventTypesSchema = z.array(eventTypeFilterSchema);
const receivedFromSchema = timestampSchema("received_from");
const receivedToSchema = timestampSchema("received_to");

/**
 * The event-type lists checked already, deduplicated, as query text: the poller asks the same few on every
 * read (the same list each time: queue-events.ts keeps one per set of groups).
 */
const checkedTypes = new WeakMap<readonly string[], string>();

function eventTypesQuery(types: readonly string[]): string {
  const kept = checkedTypes.get(types);
  if (kept !== undefined) return kept;
  const params = new URLSearchParams();
  for (const type of new Set(checkInput(eventTypesSchema, types, "event_type")))
    params.append("event_type", type);
  const query = params.toString();
  // A list changed after it was checked is checked again (the kept text would no longer be its own).
  if (Object.isFrozen(types)) checkedTypes.set(types, query);
  return query;
}

/** The ISO string sent for a time: a valid Date as it is, anything else checked by `schema`. */
function timestamp(schema: z.ZodType<string>, value: Date | string, field: string): string {
  return value instanceof Date && !Number.isNaN(value.getTime())
    ? value.toISOString()
    : checkInput(schema, value, field);
}

/**
 * The log endpoint's query text (without its "?"): `pull_request` and `event_type` repeated (deduplicated:
 * the service wants unique items), times as ISO strings. Throws InvalidInput before anything is sent.
 */
export function eventQueryParams(query: EventQuery = {}): string {
  const params = new URLSearchParams();
  if (query.pullRequests !== undefined) {
    const numbers = checkInput(pullNumbersSchema, query.pullRequests, "pull_request");
    for (const number of new Set(numbers)) params.append("pull_request", String(number));
  }
  const types = query.eventTypes === undefined ? "" : eventTypesQuery(query.eventTypes);
  if (query.baseRef !== undefined)
    params.set("base_ref", checkInput(baseRefSchema, query.baseRef, "base_ref"));
  const from =
    query.receivedFrom === undefined
      ? undefined
      : timestamp(receivedFromSchema, query.receivedFrom, "received_from");
  const to =
    query.receivedTo === undefined ? undefined : timestamp(receivedToSchema, query.receivedTo, "received_to");
  if (from !== undefined && to !== undefined && Date.parse(from) > Date.parse(to)) {
    throw new MergeQueueError(
      MergeQueueErrorCode.InvalidInput,
      "received_from must not be after received_to",
      {
        field: "received_from",
      },
    );
  }
  if (from !== undefined) params.set("received_from", from);
  if (to !== undefined) params.set("received_to", to);
  if (query.perPage !== undefined) {
    params.set("per_page", String(checkInput(perPageSchema, query.perPage, "per_page")));
  }
  const rest = params.toString();
  return types && rest ? `${types}&${rest}` : types || rest;
}
