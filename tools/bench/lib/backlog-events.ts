// A backlog after an outage, as the benchmarks write it into the merge-queue simulator's log: pull
// requests entering the queue, checked and merged, a few at a time, as a queue works, all at one moment.

import * as events from "../../simulator/event-factory.js";
import type { EventLog } from "../../simulator/log.js";
import type { QueueEntry } from "../../simulator/model.js";

/** The log events of one pull request, in the order the queue makes them. */
const TYPES = ["enter", "checks_start", "checks_end", "merged"] as const;
/** Pull requests moving through the queue together. */
const TRAIN = 4;

export interface BacklogPull {
  number: number;
  title: string;
  author: string;
}

/**
 * Appends `count` events of `repository` (its simulator key `key`) stamped `at`, for pull requests 1,
 * 2, ... by `author-<n % authors>`; returns the events appended and the pull requests, each once, when
 * it first appears (its `enter`), so that a caller can make it known elsewhere (GitHub's stand-in).
 */
export function appendBacklog(
  log: Pick<EventLog, "append">,
  target: { repository: string; key: string },
  options: { count: number; at: number; authors: number; onPull?: (pull: BacklogPull) => void },
): { events: number; pulls: number } {
  const pulls = Math.ceil(options.count / TYPES.length);
  let appended = 0;
  for (let first = 1; first <= pulls && appended < options.count; first += TRAIN) {
    const train = Array.from({ length: Math.min(TRAIN, pulls - first + 1) }, (_, i) =>
      entry(target.repository, first + i, options.at, options.authors),
    );
    for (const type of TYPES)
      for (const e of train) {
        if (appended >= options.count) break;
        if (type === "enter")
          options.onPull?.({ number: e.pull.number, title: e.pull.title, author: e.pull.author.login });
        log.append(target.key, logEvent(target.repository, type, e, options.at));
        appended += 1;
      }
  }
  return { events: appended, pulls };
}

function entry(repository: string, number: number, at: number, authors: number): QueueEntry {
  const login = `author-${number % authors}`;
  return {
    pull: {
      number,
      title: `Backlog change #${number}`,
      url: `https://github.com/${repository}/pull/${number}`,
      author: { id: 1000 + (number % authors), login },
      baseRef: "main",
      headSha: `${number}`.padStart(40, "0"),
      labels: [],
      githubLabels: null,
      scopes: [],
      checks: "success",
      failingCheck: null,
      unmetConditions: [],
    },
    queueName: "default",
    queuedAt: at,
    sessionId: `session-${number}`,
    seq: number,
    priorityRuleName: "default",
    priorityAlias: "medium",
  } as QueueEntry;
}

function logEvent(repository: string, type: (typeof TYPES)[number], e: QueueEntry, at: number) {
  const base = { repository, at, trigger: events.TRIGGER_ENGINE };
  const batch = {
    batchId: `batch-${e.pull.number}`,
    batchName: `batch ${e.pull.number}`,
    scopes: [],
    parentBatchIds: [],
  };
  const run = { queuePullNumber: null, inPlace: true, startedAt: at, ciFinishedAt: at };
  switch (type) {
    case "enter":
      return events.queueEnter(base, e);
    case "checks_start":
      return events.checksStart(
        base,
        e,
        batch,
        events.speculativeCheck(run, [e], "pending"),
        "First time checking",
        null,
      );
    case "checks_end":
      return events.checksEnd(base, e, batch, events.speculativeCheck(run, [e], "success"), {
        aborted: false,
        abortCode: null,
        abortReason: null,
        abortStatus: "DEFINITIVE",
      });
    case "merged":
      return events.queueMerged(base, e, `${e.pull.number}`.padStart(40, "f"));
  }
}
