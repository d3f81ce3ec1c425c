import type { FailureDetails } from "../core/check-failures.js";
import type { QueueEvent } from "../core/queue.js";
import type { Repo } from "../repo.js";
import type { ChatMessage } from "../wording/message.js";

/** A pull request as notifications show it; the title comes from GitHub when it can be read. */
export interface PullInfo {
  number: number;
  title: string | null;
  url: string;
}

/** What a pull request's thread parent shows: the pull request and its latest state. */
export interface ThreadState {
  pull: PullInfo;
  /** The kind of the latest event shown (src/core/queue.ts; an earlier version stored the log's type). */
  latestType: string;
  /** One plain line, e.g. "merged into main (abc1234)". */
  latest: string;
  queueName: string | null;
  /** The pull request left the queue without merging: the parent offers "Requeue". */
  canRequeue: boolean;
  updatedAt: string;
}

export interface NotificationContext {
  repo: Repo;
  githubWebUrl: string;
  now: Date;
  /** For a pause event: the person who paused or unpaused through Yardmaster, when known. */
  pausedBy?: string;
  /** For their pause: when it ends by itself (a timed pause). */
  resumesAt?: Date;
  /** For their unpause: it was a timed pause ending as scheduled. */
  scheduled?: boolean;
  /** For a removal for failed checks: why they failed, when read (src/notifier/failure-details.ts). */
  failures?: FailureDetails | null;
}

/** What notifications say, in the neutral message model (src/notifier/render-notification.ts). */
export interface NotificationRenderer {
  /** A message for one event: a thread reply, or a top-level message for pause events. */
  event(event: QueueEvent, pull: PullInfo | null, ctx: NotificationContext): ChatMessage;
  /** The thread parent of a pull request, showing its latest state. */
  parent(state: ThreadState, ctx: NotificationContext): ChatMessage;
  /** The parent's state after an event. */
  stateAfter(previous: ThreadState | null, event: QueueEvent, pull: PullInfo, repo: Repo): ThreadState;
}
