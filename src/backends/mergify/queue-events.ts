import type { StoredEvents } from "../../core/pushed-events.js";
import {
  type ChecksRanOn,
  type EventGroup,
  groupsToRead,
  isQueueEvent,
  type LogPosition,
  type QueueCheck,
  type QueueEvent,
  type QueueEventBase,
  type QueueEventBody,
  type QueueEventLog,
} from "../../core/queue.js";
import { removalWords } from "../../core/removal-reasons.js";
import { Turns } from "../../event-loop.js";
import type { Repo } from "../../repo.js";
import { withDraftHeads } from "./draft-heads.js";
import { MergeQueueError } from "./errors.js";
import { isKnownEventType } from "./event-types.js";
import { type LogEvent, parseEventMetadata, type TypedLogEvent } from "./events.schema.js";
import { type AskedOf, isQueueCommand, withAskers, withQueueCommands, withQueuers } from "./queuers.js";
import type { EventQuery } from "./types.js";

/**
 * Mergify's event log in the core's terms (src/core/queue.ts): the one place that knows Mergify's event
 * type names. The log is asked only for the types some subscription's groups want.
 */

/**
 * The log's event types of each subscription group (docs/notifications.md). The contract first wrote the
 * checks change type `action.queue.checks_change`; the service's real name is `action.queue.checks.change`
 * (its OpenAPI description). Both are routed; only types the service knows are asked for (it answers 422
 * to an unknown `event_type`).
 */
const MERGIFY_GROUP_TYPES: Readonly<Record<EventGroup, readonly string[]>> = {
  queue: ["action.queue.enter", "action.queue.leave", "action.queue.merged", "action.queue.change"],
  checks: [
    "action.queue.checks_start",
    "action.queue.checks_end",
    "action.queue.checks.change",
    "action.queue.checks_change",
    "action.queue.checks_not_started",
  ],
  bisection: ["action.queue.batch_bisection_start", "action.queue.batch_bisection_end"],
  pause: ["queue.pause.create", "queue.pause.update", "queue.pause.delete"],
  // The queue's health alerts are Yardmaster's own: they read the other groups' types (groupsToRead).
  health: [],
};

/** The event types stats and the weekly digest read from the log: merges, leaves, pauses. */
export const MERGIFY_STATS_TYPES = [
  "action.queue.merged",
  "action.queue.leave",
  "queue.pause.create",
  "queue.pause.delete",
] as const;

const TYPE_GROUP = new Map<string, EventGroup>(
  Object.entries(MERGIFY_GROUP_TYPES).flatMap(([group, types]) => types.map((t) => [t, group as EventGroup])),
);

/** The group of one of the log's event types; undefined when no subscription group has it. */
export function mergifyGroupOf(type: string): EventGroup | undefined {
  return TYPE_GROUP.get(type);
}

/** The event types the log is asked for, for these groups (known to the service only), sorted. */
export function mergifyEventTypes(groups: Iterable<string>): string[] {
  const types = new Set<string>();
  for (const group of groupsToRead(groups))
    for (const t of MERGIFY_GROUP_TYPES[group as EventGroup] ?? []) if (isKnownEventType(t)) types.add(t);
  return [...types].sort();
}

/** The types read for each set of groups, one frozen list each (the client keeps its checked query by list). */
const typesRead = new Map<string, readonly string[]>();
/** The most sets kept (then forgotten all at once): far more than the groups' combinations. */
const TYPES_READ_KEPT = 64;

/** The types a read of `groups` asks for: theirs, and the `queue` command's when entries are asked for. */
function typesToRead(groups: readonly string[]): readonly string[] {
  const key = groups.join(" ");
  let types = typesRead.get(key);
  if (!types) {
    if (typesRead.size >= TYPES_READ_KEPT) typesRead.clear();
    types = Object.freeze(withQueueCommands(mergifyEventTypes(groups)));
    typesRead.set(key, types);
  }
  return types;
}

const checksOf = (
  checks:
    | readonly {
        name: string;
        url?: string | null;
        details_url?: string | null;
        state?: string;
        description?: string;
      }[]
    | undefined,
): QueueCheck[] =>
  (checks ?? []).map((c) => ({
    name: c.name,
    url: c.details_url ?? c.url ?? null,
    state: c.state ?? null,
    ...(c.description ? { description: c.description } : {}),
  }));

/** Where a leave's checks ran: the pull request's head (a batch's draft is found in the read: draft-heads.ts). */
const ranOnHead = (sha: unknown): ChecksRanOn | null =>
  typeof sha === "string" && sha ? { sha, pull: null } : null;

/** The log's words for an event the core has none for: "queue checks change", "product enabled". */
const wordsOf = (type: string) => type.replace(/^action\./, "").replace(/[._]/g, " ");

/** What one typed event of the log says, in the core's terms. */
function happeningOf(typed: TypedLogEvent): QueueEventBody | null {
  switch (typed.type) {
    case "action.queue.enter":
      return { kind: "entered" };
    case "action.queue.leave": {
      const m = typed.metadata;
      const removedBy = (m as { removed_by?: unknown }).removed_by;
      const reason = m.merged
        ? null
        : removalWords({
            code: m.dequeue_code,
            reason: m.reason,
            removedBy: typeof removedBy === "string" ? removedBy : null,
          });
      return {
        kind: "left",
        merged: m.merged === true,
        reason: reason || null,
        code: m.dequeue_code ?? null,
        failedChecks: m.merged ? [] : checksOf(m.unsuccessful_checks),
        ...(m.merged ? {} : { ranOn: ranOnHead(m.pull_request_head_sha) }),
      };
    }
    case "action.queue.merged":
      return {
        kind: "merged",
        sha: typed.metadata.merge_commit_sha ?? null,
        enteredAt: typed.metadata.queued_at ?? null,
      };
    case "action.queue.change":
      return { kind: "queue-size", size: typed.metadata.size ?? null };
    case "action.queue.checks_start":
      return { kind: "checks-started", batch: typed.metadata.batch_name ?? null };
    case "action.queue.checks_end": {
      const m = typed.metadata;
      const run = m.speculative_check_pull_request;
      return {
        kind: "checks-ended",
        aborted: m.aborted === true,
        reason: m.aborted ? removalWords({ code: m.abort_code, reason: m.abort_reason }) || null : null,
        conclusion: run?.checks_conclusion ?? "unknown",
        failedChecks: checksOf(run?.unsuccessful_checks),
      };
    }
    case "action.queue.checks.change":
      return { kind: "checks-running", running: typed.metadata.running_checks ?? null };
    case "action.queue.checks_not_started":
      return { kind: "checks-not-started", reason: typed.metadata.reason || null };
    case "action.queue.batch_bisection_start":
      return {
        kind: "bisection-started",
        pulls: typed.metadata.original_batch_pr_numbers ?? [],
        parts: typed.metadata.number_of_sub_batches ?? null,
      };
    case "action.queue.batch_bisection_end":
      return {
        kind: "bisection-ended",
        culprits: typed.metadata.culprit_found ? (typed.metadata.culprit_pr_numbers ?? []) : [],
      };
    case "queue.pause.create":
    case "queue.pause.update": {
      const m = typed.metadata;
      const by = ("created_by" in m ? m.created_by : (m as { updated_by?: unknown }).updated_by) as
        | { name?: string }
        | undefined;
      return {
        kind: "paused",
        reason: m.reason ?? "",
        by: by?.name ?? null,
        update: typed.type === "queue.pause.update",
      };
    }
    case "queue.pause.delete": {
      const by = typed.metadata.deleted_by as { name?: string } | undefined;
      return { kind: "resumed", by: by?.name ?? null };
    }
    default:
      return null;
  }
}

/**
 * What a merge, leave or pause says when its metadata does not fit its schema (a field the service
 * stopped sending): read field by field, so that stats still count it. Other types: null.
 */
function looseHappening(event: LogEvent): QueueEventBody | null {
  const m = (event.metadata ?? {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === "string" ? v : null);
  switch (event.type) {
    case "action.queue.merged":
      return { kind: "merged", sha: text(m.merge_commit_sha), enteredAt: text(m.queued_at) };
    case "action.queue.leave": {
      const merged = m.merged === true;
      const code = text(m.dequeue_code);
      const checks = Array.isArray(m.unsuccessful_checks) ? m.unsuccessful_checks : [];
      return {
        kind: "left",
        merged,
        reason: merged ? null : removalWords({ code, reason: text(m.reason) }) || null,
        code,
        failedChecks: merged
          ? []
          : checks.flatMap((c: { name?: unknown; url?: unknown; details_url?: unknown }) =>
              typeof c?.name === "string"
                ? [{ name: c.name, url: text(c.details_url) ?? text(c.url), state: null }]
                : [],
            ),
        ...(merged ? {} : { ranOn: ranOnHead(m.pull_request_head_sha) }),
      };
    }
    case "queue.pause.create":
      return { kind: "paused", reason: text(m.reason) ?? "", by: null, update: false };
    case "queue.pause.delete":
      return { kind: "resumed", by: null };
    default:
      return null;
  }
}

/** One event of Mergify's log as a queue event; an event the core has no words for is kind "other". */
export function fromMergifyLog(event: LogEvent): QueueEvent {
  const metadata = event.metadata as { queue_name?: unknown; branch?: unknown } | null | undefined;
  const branch = event.base_ref ?? (typeof metadata?.branch === "string" ? metadata.branch : null);
  const base: QueueEventBase = {
    id: event.id,
    at: event.received_at,
    repository: event.repository,
    pull: event.pull_request,
    branch,
    queue: typeof metadata?.queue_name === "string" ? metadata.queue_name : null,
    origin: event.type,
  };
  const typed = parseEventMetadata(event);
  const happening = typed ? happeningOf(typed) : looseHappening(event);
  return {
    ...base,
    ...(happening ?? { kind: "other", group: mergifyGroupOf(event.type) ?? null, what: wordsOf(event.type) }),
  };
}

/**
 * An event read back from the outbox: a queue event, or one that an earlier version stored as Mergify's
 * log event (a row written before an upgrade and posted after it).
 */
function storedQueueEvent(payload: unknown): QueueEvent {
  return isQueueEvent(payload) ? payload : fromMergifyLog(payload as LogEvent);
}

/**
 * The kind a thread's stored state names: a kind, or the log's event type an earlier version stored
 * (a merge or a leave ends a pull request's stay in the queue).
 */
function storedKind(type: string): string {
  if (type === "action.queue.merged") return "merged";
  if (type === "action.queue.leave") return "left";
  return type;
}

/**
 * Outbox rows and thread states as any version stored them (the notifier's StoredEvents): rows an
 * earlier version stored as Mergify's log events are read as queue events. The wiring gives it to the
 * notifier (src/backends/wire.ts).
 */
export const mergifyStoredEvents: StoredEvents = { event: storedQueueEvent, kind: storedKind };

/** What Mergify's client gives the log reader. */
export interface MergifyLogClient {
  iterateEvents(
    repo: Repo,
    query: EventQuery,
    options?: { enough?: (page: readonly LogEvent[]) => boolean },
  ): AsyncIterable<LogEvent>;
}

/**
 * Whether a page read from `after` on is the last one needed: its events come newest first (by time, then
 * id, strictly: as the service and the simulator send them, although the order is not documented) and its
 * last is at or before `after`, so the pages that follow hold only older events. Any other order reads on.
 */
export function reachedPosition(page: readonly LogEvent[], after: LogPosition): boolean {
  const key = (e: LogEvent): [number, number] => [Date.parse(e.received_at), e.id];
  for (let i = 1; i < page.length; i++) {
    const [t0, id0] = key(page[i - 1] as LogEvent);
    const [t1, id1] = key(page[i] as LogEvent);
    if (t1 > t0 || (t1 === t0 && id1 >= id0)) return false;
  }
  const last = page.at(-1);
  if (!last) return false;
  const [at, id] = key(last);
  const position = after.at.getTime();
  return at < position || (at === position && after.ids.includes(id));
}

/**
 * Mergify's log as the core reads events: only the types of the groups asked for, a hundred a page; with
 * the entries, the `queue` commands that say who queued each (queuers.ts), read whole before any is given;
 * `askedOf`: who asked Yardmaster to queue a pull request (its relayed command is its bot's).
 */
export function mergifyEventLog(
  client: MergifyLogClient,
  options: { askedOf?: AskedOf } = {},
): QueueEventLog {
  return {
    async events(repo, query) {
      const read: LogEvent[] = [];
      // Mapped as they come, the event loop running between turns (a backlog's thousands of events are
      // not mapped in one long task once read).
      const mapped = new Map<LogEvent, QueueEvent>();
      const turns = new Turns();
      const { after } = query;
      for await (const event of client.iterateEvents(
        repo,
        {
          receivedFrom: query.since,
          ...(query.until ? { receivedTo: query.until } : {}),
          eventTypes: typesToRead(query.groups),
          perPage: 100,
        },
        // A backlog already taken is not paged through again: reading stops at the page that reaches it.
        after ? { enough: (page) => reachedPosition(page, after) } : {},
      )) {
        read.push(event);
        if (isQueueCommand(event)) continue;
        await turns.next();
        mapped.set(event, fromMergifyLog(event));
      }
      // A quiet repository's read ends here: nothing to map.
      if (read.length === 0) return [];
      await turns.next();
      const queued = withQueuers(read, (event) => mapped.get(event) ?? fromMergifyLog(event));
      await turns.next();
      const events = withDraftHeads(read, queued);
      await turns.next();
      // Relayed by Yardmaster: the person who asked it, rather than its bot.
      if (options.askedOf) await withAskers(repo, events, options.askedOf);
      return events;
    },
    failureCode: (error) => (error instanceof MergeQueueError ? error.code : undefined),
  };
}

/** The events stats and the digest count (merges, leaves, pauses) of a stretch of Mergify's log. */
export async function* mergifyStatsEvents(
  client: MergifyLogClient,
  repo: Repo,
  range: { from: Date; to: Date },
): AsyncIterable<QueueEvent> {
  for await (const event of client.iterateEvents(repo, {
    eventTypes: [...MERGIFY_STATS_TYPES],
    receivedFrom: range.from,
    receivedTo: range.to,
    perPage: 100,
  }))
    yield fromMergifyLog(event);
}
