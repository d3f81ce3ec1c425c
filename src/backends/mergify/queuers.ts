import type { QueueEvent } from "../../core/queue.js";
import type { Repo } from "../../repo.js";
import type { LogEvent } from "./events.schema.js";

/**
 * Who put a pull request in Mergify's queue: the `action.queue.enter` event does not say, but the
 * `queue` command that started its stay does (`command.queue`, whose `metadata.author` is who commented,
 * and whose `session_id` is the entry's). The log is asked for these commands alongside the entries.
 */
const QUEUE_COMMAND_TYPE = "command.queue";
const ENTER_TYPE = "action.queue.enter";

/** The entry's session id, or the command's, when the metadata has one. */
function sessionOf(event: LogEvent): string | null {
  const session = (event.metadata as { session_id?: unknown } | null | undefined)?.session_id;
  return typeof session === "string" && session ? session : null;
}

/** The login of a `queue` command's author, when the merge queue took the command. */
function commandAuthor(event: LogEvent): string | null {
  if (event.outcome === "failure") return null;
  const author = (event.metadata as { author?: { login?: unknown } } | null | undefined)?.author;
  return typeof author?.login === "string" && author.login ? author.login : null;
}

/** Whether the event is a `queue` command: read for who queued an entry, not a queue event itself. */
export const isQueueCommand = (event: LogEvent): boolean => event.type === QUEUE_COMMAND_TYPE;

/** Whether the log is asked for entries: then for the `queue` commands too. */
export function withQueueCommands(types: readonly string[]): string[] {
  return types.includes(ENTER_TYPE) ? [...new Set([...types, QUEUE_COMMAND_TYPE])].sort() : [...types];
}

/**
 * A read's events as queue events, each entry with `queuedBy` from the `queue` command of the same
 * session (else the read's latest command for the pull request before it), or null when the read has
 * none (a queue rule queued it, or the command came in an earlier read). The commands themselves are
 * left out: they are not queue events.
 */
export function withQueuers(events: readonly LogEvent[], map: (event: LogEvent) => QueueEvent): QueueEvent[] {
  const bySession = new Map<string, string>();
  const commands = events
    .filter((e) => e.type === QUEUE_COMMAND_TYPE)
    .sort((a, b) => Date.parse(a.received_at) - Date.parse(b.received_at) || a.id - b.id);
  for (const command of commands) {
    const session = sessionOf(command);
    const author = commandAuthor(command);
    if (session && author) bySession.set(session, author);
  }
  const latestBefore = (enter: LogEvent): string | null => {
    let found: string | null = null;
    for (const command of commands) {
      if (Date.parse(command.received_at) > Date.parse(enter.received_at)) break;
      if (command.pull_request === enter.pull_request) found = commandAuthor(command) ?? found;
    }
    return found;
  };
  const mapped: QueueEvent[] = [];
  for (const event of events) {
    if (event.type === QUEUE_COMMAND_TYPE) continue;
    const queueEvent = map(event);
    if (queueEvent.kind === "entered") {
      const session = sessionOf(event);
      queueEvent.queuedBy = (session ? bySession.get(session) : undefined) ?? latestBefore(event);
    }
    mapped.push(queueEvent);
  }
  return mapped;
}

/** Who asked Yardmaster to queue a pull request (src/store/queue-requests.ts), and when. */
export type AskedOf = (repository: Repo, number: number) => Promise<{ login: string; at: Date } | null>;

/** How long before an entry a request to Yardmaster explains it (a queue may wait for its conditions). */
const ASKED_WINDOW_MS = 24 * 60 * 60_000;
/** How far a request may seem to follow the entry it explains (two clocks). */
const ASKED_SKEW_MS = 60_000;

/** Whether a queuer is a bot (the app's, relaying a command): the person who asked Yardmaster is looked for. */
const isBot = (login: string) => login.toLowerCase().endsWith("[bot]");

/**
 * The entries queued by Yardmaster (a relayed `queue` command is the app's bot's, or came in an earlier
 * read) name the person who asked it, when it remembers one from the day before the entry.
 */
export async function withAskers(repository: Repo, events: QueueEvent[], askedOf: AskedOf): Promise<void> {
  for (const event of events) {
    if (event.kind !== "entered" || event.pull === null) continue;
    if (event.queuedBy && !isBot(event.queuedBy)) continue;
    const asked = await askedOf(repository, event.pull);
    const before = Date.parse(event.at) - (asked?.at.getTime() ?? Number.NaN);
    if (asked && before >= -ASKED_SKEW_MS && before <= ASKED_WINDOW_MS) event.queuedBy = asked.login;
  }
}
