// The event log: every repository's events, with global increasing ids, and the log query
// (filters, newest-first order, snapshot pagination).

import type { LogCursor } from "./cursor.js";
import type { EventOutcome, EventType, LogEventResponse } from "./types.js";

export interface LogEvent {
  id: number;
  /** Epoch ms. */
  receivedAt: number;
  trigger: string;
  /** "owner/repo" as registered. */
  repository: string;
  pullRequest: number | null;
  baseRef: string | null;
  outcome: EventOutcome;
  type: EventType;
  metadata: Record<string, unknown>;
}

export type NewLogEvent = Omit<LogEvent, "id">;

export interface LogQuery {
  pullRequests: number[] | null;
  eventTypes: EventType[] | null;
  baseRef: string | null;
  outcomes: EventOutcome[] | null;
  perPage: number;
  /** Pinned range and snapshot, taken from the cursor or resolved for a first page. */
  cursor: LogCursor;
}

export interface LogPage {
  events: LogEvent[];
  /** Cursor of the next (older) page, when there is one. */
  next: LogCursor | null;
  /** Cursor of the previous (newer) page, when there is one. */
  prev: LogCursor | null;
  first: LogCursor;
}

/** Newest first: by received_at then id, both descending. */
function compareDesc(a: LogEvent, b: LogEvent): number {
  return b.receivedAt - a.receivedAt || b.id - a.id;
}

/** Negative when the event comes before (is newer than) the key in the newest-first order. */
function compareToKey(event: LogEvent, key: [number, number]): number {
  return key[0] - event.receivedAt || key[1] - event.id;
}

export function serializeEvent(event: LogEvent): LogEventResponse {
  return {
    id: event.id,
    received_at: new Date(event.receivedAt).toISOString(),
    trigger: event.trigger,
    repository: event.repository,
    pull_request: event.pullRequest,
    base_ref: event.baseRef,
    outcome: event.outcome,
    type: event.type,
    metadata: event.metadata,
  };
}

export class EventLog {
  private lastId = 0;
  private readonly byRepository = new Map<string, LogEvent[]>();
  private readonly listeners = new Set<(event: LogEvent) => void>();

  /** Highest id given so far. */
  get maxId(): number {
    return this.lastId;
  }

  append(repositoryKey: string, event: NewLogEvent): LogEvent {
    this.lastId += 1;
    const stored: LogEvent = { ...event, id: this.lastId };
    let list = this.byRepository.get(repositoryKey);
    if (list === undefined) {
      list = [];
      this.byRepository.set(repositoryKey, list);
    }
    list.push(stored);
    for (const listener of this.listeners) listener(stored);
    return stored;
  }

  /** Every event of a repository, in the order they were appended (oldest first). */
  all(repositoryKey: string): LogEvent[] {
    return [...(this.byRepository.get(repositoryKey) ?? [])];
  }

  onAppend(listener: (event: LogEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  query(repositoryKey: string, query: LogQuery): LogPage {
    const { cursor } = query;
    const pulls = query.pullRequests === null ? null : new Set(query.pullRequests);
    const types = query.eventTypes === null ? null : new Set<string>(query.eventTypes);
    const outcomes = query.outcomes === null ? null : new Set<string>(query.outcomes);
    const matching = (this.byRepository.get(repositoryKey) ?? [])
      .filter(
        (event) =>
          event.id <= cursor.snapshot &&
          event.receivedAt >= cursor.from &&
          event.receivedAt <= cursor.to &&
          (pulls === null || (event.pullRequest !== null && pulls.has(event.pullRequest))) &&
          (types === null || types.has(event.type)) &&
          (outcomes === null || outcomes.has(event.outcome)) &&
          (query.baseRef === null || event.baseRef === query.baseRef),
      )
      .sort(compareDesc);

    const perPage = query.perPage;
    let start: number;
    let end: number;
    if (cursor.direction === "first" || cursor.key === null) {
      start = 0;
      end = Math.min(perPage, matching.length);
    } else if (cursor.direction === "after") {
      const key = cursor.key;
      start = matching.findIndex((event) => compareToKey(event, key) > 0);
      if (start === -1) start = matching.length;
      end = Math.min(start + perPage, matching.length);
    } else {
      const key = cursor.key;
      let boundary = matching.findIndex((event) => compareToKey(event, key) >= 0);
      if (boundary === -1) boundary = matching.length;
      end = boundary;
      start = Math.max(0, end - perPage);
    }
    const events = matching.slice(start, end);
    const base = { snapshot: cursor.snapshot, from: cursor.from, to: cursor.to };
    const firstEvent = events[0];
    const lastEvent = events[events.length - 1];
    const next: LogCursor | null =
      end < matching.length && lastEvent !== undefined
        ? { ...base, direction: "after", key: [lastEvent.receivedAt, lastEvent.id] }
        : null;
    const prev: LogCursor | null =
      start > 0 && firstEvent !== undefined
        ? { ...base, direction: "before", key: [firstEvent.receivedAt, firstEvent.id] }
        : start > 0
          ? { ...base, direction: "first", key: null }
          : null;
    return { events, next, prev, first: { ...base, direction: "first", key: null } };
  }
}
