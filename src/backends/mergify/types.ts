import type { LogEvent } from "./events.schema.js";

/** Filters of the event log (docs/merge-queue-api.md). The cursor is never built: pages come from the Link header. */
export interface EventQuery {
  pullRequests?: number[];
  eventTypes?: readonly string[];
  baseRef?: string;
  /** The service defaults it to one day before `receivedTo`: a poller should always send it. */
  receivedFrom?: Date | string;
  receivedTo?: Date | string;
  /** 1 to 100; the service's default is 10. */
  perPage?: number;
}

export interface EventsPage {
  events: LogEvent[];
  size: number;
  perPage: number;
  /** Absolute URL of the next page (from the Link header), or null on the last page. */
  next: string | null;
  prev: string | null;
}

/** One HTTP attempt, reported for metrics. `route` is templated, e.g. `/repos/{owner}/{repository}/logs`. */
export interface CallRecord {
  method: string;
  route: string;
  status: number | "network" | "timeout";
  durationMs: number;
}
