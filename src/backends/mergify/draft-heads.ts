import type { QueueEvent } from "../../core/queue.js";
import type { LogEvent } from "./events.schema.js";

/**
 * Where a leave's checks ran, when Mergify tested the pull request in a batch's draft pull request: the
 * leave names only the pull request's head (`pull_request_head_sha`), but the `action.queue.checks_end`
 * of its run names the draft (`speculative_check_pull_request.number`, `in_place: false`). When the read
 * holds that checks end (the `checks` group is read: a subscription's `checks` or `health`), the leave's
 * `ranOn` names the draft, whose head GitHub then tells; otherwise it stays the pull request's head.
 */

interface ChecksEndRun {
  pull: number;
  at: number;
  batch: string | null;
  draft: number | null;
}

const text = (v: unknown): string | null => (typeof v === "string" && v ? v : null);

/** A checks end's run: the draft's number, or null when the checks ran in place (on the pull request). */
function runOf(event: LogEvent): ChecksEndRun | null {
  if (event.type !== "action.queue.checks_end" || event.pull_request === null) return null;
  const m = (event.metadata ?? {}) as {
    batch_id?: unknown;
    speculative_check_pull_request?: { number?: unknown; in_place?: unknown } | null;
  };
  const run = m.speculative_check_pull_request;
  if (!run || typeof run.number !== "number") return null;
  return {
    pull: event.pull_request,
    at: Date.parse(event.received_at),
    batch: text(m.batch_id),
    draft: run.in_place === false ? run.number : null,
  };
}

/** The read's queue events, each leave naming the draft its checks ran in when the read says so. */
export function withDraftHeads(read: readonly LogEvent[], events: QueueEvent[]): QueueEvent[] {
  const runs = read.map(runOf).filter((r): r is ChecksEndRun => r !== null);
  if (runs.length === 0) return events;
  // By pull request: a backlog's removals each look through their own pull request's runs, not all.
  const runsOf = new Map<number, ChecksEndRun[]>();
  for (const r of runs) {
    const list = runsOf.get(r.pull);
    if (list) list.push(r);
    else runsOf.set(r.pull, [r]);
  }
  const batchOf = new Map<number, string | null>();
  for (const e of read)
    if (e.type === "action.queue.leave")
      batchOf.set(e.id, text((e.metadata as { batch_id?: unknown })?.batch_id));
  return events.map((event) => {
    if (event.kind !== "left" || event.merged || !event.ranOn || event.pull === null) return event;
    const at = Date.parse(event.at);
    const batch = batchOf.get(event.id) ?? null;
    const run = (runsOf.get(event.pull) ?? [])
      .filter((r) => r.at <= at && (batch === null || r.batch === null || r.batch === batch))
      .sort((a, b) => a.at - b.at)
      .at(-1);
    return run?.draft ? { ...event, ranOn: { ...event.ranOn, pull: run.draft } } : event;
  });
}
