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

/**
 * The log endpoint's query string: `pull_request` and `event_type` repeated (deduplicated: the service
 * wants unique items), times as ISO strings. Throws InvalidInput before anything is sent.
 */
// Built once: the poller calls this for every repository on every tick.
const pullNumbersSchema = z.array(pullNumberSchema);
const eventTypesSchema = z.array(eventTypeFilterSchema);
const receivedFromSchema = timestampSchema("received_from");
const receivedToSchema = timestampSchema("received_to");

/** The event-type lists checked already, deduplicated: the poller asks the same few on every read. */
const checkedTypes = new Map<string, readonly string[]>();
/** The most lists kept (then forgotten all at once): far more than the groups' combinations. */
const CHECKED_TYPES_KEPT = 64;

function checkedEventTypes(types: readonly string[]): readonly string[] {
  const key = JSON.stringify(types);
  const kept = checkedTypes.get(key);
  if (kept) return kept;
  const unique = [...new Set(checkInput(eventTypesSchema, types, "event_type"))];
  if (checkedTypes.size >= CHECKED_TYPES_KEPT) checkedTypes.clear();
  checkedTypes.set(key, unique);
  return unique;
}

export function eventQueryParams(query: EventQuery = {}): URLSearchParams {
  const params = new URLSearchParams();
  if (query.pullRequests !== undefined) {
    const numbers = checkInput(pullNumbersSchema, query.pullRequests, "pull_request");
    for (const number of new Set(numbers)) params.append("pull_request", String(number));
  }
  if (query.eventTypes !== undefined) {
    for (const type of checkedEventTypes(query.eventTypes)) params.append("event_type", type);
  }
  if (query.baseRef !== undefined)
    params.set("base_ref", checkInput(baseRefSchema, query.baseRef, "base_ref"));
  const from =
    query.receivedFrom === undefined
      ? undefined
      : checkInput(receivedFromSchema, query.receivedFrom, "received_from");
  const to =
    query.receivedTo === undefined
      ? undefined
      : checkInput(receivedToSchema, query.receivedTo, "received_to");
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
  return params;
}
