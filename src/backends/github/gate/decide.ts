import { labelKey } from "../../../core/pause.js";
import type { GateDrain, GatePass, GatePauseRecord } from "../../../store/gates.js";
import { pullList } from "../../../wording/lists.js";
import { escapeMarkdown } from "../../../wording/markdown.js";
import type { GateRun } from "./github.js";
import { heldRun, passedRun } from "./runs.js";

/**
 * Whether a merge group passes the gate of a held branch (docs/backends.md, "The gate"). On GitHub's merge
 * queue a merge group holds its own pull request and every one ahead of it in the queue (its commit is
 * built on theirs): what GitHub merges when it passes. So a group passes only when every pull request in
 * it may: one queued before a drain began, or labelled with one of a pause's exempt labels; or when an
 * admin let its last pull request through with exactly those ahead of it. Otherwise it is held, and its
 * check run says why.
 */

/** An entry of a branch's queue as the gate reads it (GitHub's `mergeQueue.entries`, by position). */
export interface GateEntry {
  number: number;
  /** When it entered the queue (GitHub's `enqueuedAt`); null when GitHub does not say. */
  enteredAt: string | null;
  /** Its pull request's labels, lower case. */
  labels: string[];
}

/** The pull requests a merge group made for `head` holds, in the queue's order; null when `head` is not queued. */
export function groupOf(entries: readonly GateEntry[], head: number): GateEntry[] | null {
  const at = entries.findIndex((e) => e.number === head);
  return at < 0 ? null : entries.slice(0, at + 1);
}

/**
 * Whether an entry was queued before the drain began: in the queue then, and not queued again since
 * (GitHub's `enqueuedAt` no later than it was; where GitHub does not say, its number decides).
 */
export function queuedBefore(drain: GateDrain, entry: GateEntry): boolean {
  const then = drain.entries.find((e) => e.number === entry.number);
  if (!then) return false;
  if (then.enteredAt === null || entry.enteredAt === null) return true;
  return Date.parse(entry.enteredAt) <= Date.parse(then.enteredAt);
}

/** Whether an entry carries one of the pause's exempt labels (GitHub's labels are case-insensitive). */
export function exempt(except: readonly string[], entry: GateEntry): boolean {
  return entry.labels.some((label) => except.includes(labelKey(label)));
}

/** Whether a pause decides some merge groups apart (a drain, exemptions, or a pull request let through). */
export function decidesApart(pause: GatePauseRecord, pass: GatePass | null): boolean {
  return pause.drain !== null || pause.except.length > 0 || pass !== null;
}

/** The gate of a merge group holding `group` on a held branch; `pass`: its last pull request let through. */
export function decideGate(
  name: string,
  pause: GatePauseRecord,
  group: readonly GateEntry[],
  pass: GatePass | null,
): { pass: boolean; run: GateRun } {
  const numbers = group.map((e) => e.number);
  if (pass && numbers.every((n) => pass.pulls.includes(n))) {
    const held = pause.drain ? "drained" : "paused";
    return {
      pass: true,
      run: passedRun(
        name,
        `Let through by ${pass.by}`,
        `${escapeMarkdown(pass.by)} let #${pass.pullNumber} through the ${held} merge queue: this merge group holds ${pullList(numbers)}.`,
      ),
    };
  }
  const drain = pause.drain;
  const later = drain ? group.filter((e) => !queuedBefore(drain, e)) : group;
  const labelled = (e: GateEntry) => exempt(pause.except, e);
  const blocking = later.filter((e) => !labelled(e));
  if (blocking.length === 0)
    return { pass: true, run: passedRun(name, passTitle(pause, later), passSummary(pause, numbers)) };
  return {
    pass: false,
    run: heldRun(name, pause, {
      ...(drain ? { later: blocking.map((e) => e.number) } : {}),
      ...(pause.except.length ? { unlabelled: blocking.map((e) => e.number) } : {}),
    }),
  };
}

function passTitle(pause: GatePauseRecord, later: readonly GateEntry[]): string {
  if (later.length === 0) return "Queued before the drain";
  return `Exempt from the pause: labelled ${pause.except.join(" or ")}`;
}

function passSummary(pause: GatePauseRecord, numbers: readonly number[]): string {
  const how = pause.drain ? "drains" : "holds";
  return `Yardmaster ${how} this branch's merge queue (${escapeMarkdown(pause.reason)}), but this merge group passes: it holds ${pullList(numbers)}, each queued before the drain began or carrying an exempt label.`;
}
