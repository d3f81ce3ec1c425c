import { z } from "zod";
import { buildEventMetadataSchemas } from "./event-metadata.schema.js";
import {
  isTypedEventType,
  KNOWN_EVENT_TYPES,
  TYPED_EVENT_TYPES,
  type TypedEventType,
} from "./event-types.js";
import { dateTimeSchema } from "./primitives.schema.js";
import { lenientMode, type SchemaMode } from "./schema-mode.js";

/** EventOutcome (reference only: `outcome` is not in the spec). */
export const EVENT_OUTCOMES = ["success", "failure", "pending", "neutral"] as const;

/**
 * The event log's answer (docs/merge-queue-api.md).
 * Lenient: `metadata` is kept raw (unknown) and `type` is any string, so no single event can fail a page
 * because of its type or metadata; `parseEventMetadata` types the metadata afterwards.
 * Strict: `type` must be known, and events of a typed type must carry their full metadata.
 */
export function buildEventSchemas(mode: SchemaMode) {
  const metadata = buildEventMetadataSchemas(mode).byType;

  const event = z.looseObject({
    id: z.int(),
    received_at: dateTimeSchema,
    trigger: z.string(),
    repository: z.string(),
    /** Null on repository-level events (e.g. `queue.pause.create`). */
    pull_request: z.int().nullable(),
    /** Null on repository-level events. */
    base_ref: z.string().nullable(),
    outcome: mode.alwaysSent(mode.oneOf(EVENT_OUTCOMES)),
    type: mode.oneOf(KNOWN_EVENT_TYPES),
    metadata: z.unknown(),
  });

  const typedEvent = <K extends TypedEventType>(type: K) =>
    event.extend({ type: z.literal(type), metadata: metadata[type] as (typeof metadata)[K] });
  const typed = Object.fromEntries(TYPED_EVENT_TYPES.map((type) => [type, typedEvent(type)])) as {
    [K in TypedEventType]: ReturnType<typeof typedEvent<K>>;
  };

  // Strict only: any event, checked against its type's full schema when it has one.
  const untypedKnownTypes = KNOWN_EVENT_TYPES.filter((type) => !isTypedEventType(type));
  const anyEvent = z.discriminatedUnion("type", [
    event.extend({ type: z.enum(untypedKnownTypes as [string, ...string[]]) }),
    ...Object.values(typed),
  ]);

  const eventsResponse = z.looseObject({
    size: z.int(),
    per_page: z.int(),
    // Strict events are a subtype of lenient ones, so the response keeps the lenient type.
    events: z.array(mode.strict ? (anyEvent as unknown as typeof event) : event),
  });

  return { event, typed, anyEvent, eventsResponse };
}

const lenient = buildEventSchemas(lenientMode);
export const logEventSchema = lenient.event;
export const eventsResponseSchema = lenient.eventsResponse;
/** Lenient schema of a whole event of each typed type (type literal and typed metadata). */
export const typedEventSchemas = lenient.typed;

export type LogEvent = z.infer<typeof logEventSchema>;
export type EventsResponse = z.infer<typeof eventsResponseSchema>;
export type EventOutcome = (typeof EVENT_OUTCOMES)[number];
/** A log event of a typed type whose metadata fits: narrow on `type` to get its metadata's type. */
export type TypedLogEvent = { [K in TypedEventType]: z.infer<(typeof typedEventSchemas)[K]> }[TypedEventType];

/**
 * The event with typed metadata, or null when its type has no typed metadata or its metadata does not
 * fit (the notifier then falls back to what the base fields say).
 */
export function parseEventMetadata(event: LogEvent): TypedLogEvent | null {
  if (!isTypedEventType(event.type)) return null;
  const result = typedEventSchemas[event.type].safeParse(event);
  return result.success ? (result.data as TypedLogEvent) : null;
}

/** Orders events oldest first by `received_at`, then `id` (the service documents no order). */
export function compareLogEvents(a: LogEvent, b: LogEvent): number {
  const byTime = Date.parse(a.received_at) - Date.parse(b.received_at);
  return byTime !== 0 ? byTime : a.id - b.id;
}
