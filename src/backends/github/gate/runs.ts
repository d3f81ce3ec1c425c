import type { GatePauseRecord } from "../../../store/gates.js";
import { joinList, pullList } from "../../../wording/lists.js";
import { codeSpan, escapeMarkdown } from "../../../wording/markdown.js";
import { withoutBidiControls } from "../../../wording/words.js";
import type { GateRun } from "./github.js";

/** What the gate's check runs say: open, or held with who holds the branch, how and why. */

/** A check run's title from what people typed: one line, no bidirectional controls, at most 200 characters. */
function checkRunTitle(text: string): string {
  return withoutBidiControls(text)
    .replace(/\s*[\r\n\u2028\u2029]+\s*/g, " ")
    .slice(0, 200);
}

export function passedRun(
  name: string,
  title: string,
  summary = "Yardmaster does not hold this branch's merge queue: the gate is open.",
): GateRun {
  return { name, status: "completed", title: checkRunTitle(title), summary };
}

/** Why a held merge group waits, beyond the pause itself: the pull requests that keep it from passing. */
export interface HeldFor {
  /** Queued after the drain began (a drain). */
  later?: readonly number[];
  /** Without one of the pause's exempt labels (a pause with exemptions). */
  unlabelled?: readonly number[];
}

/** The title of a held gate: "Paused by alice: deploy", "Draining by alice: …", "Drained by alice: …". */
function heldTitle(pause: GatePauseRecord): string {
  if (!pause.drain) return checkRunTitle(`Paused by ${pause.by}: ${pause.reason}`);
  const how = pause.drainedAt ? "Drained" : "Draining";
  return checkRunTitle(`${how} by ${pause.drain.by}: ${pause.reason}`);
}

export function heldRun(name: string, pause: GatePauseRecord, why: HeldFor = {}): GateRun {
  const branch = codeSpan(pause.branch);
  const lines = pause.drain
    ? drainLines(pause, branch, why)
    : [
        `Yardmaster holds the merge queue of ${branch}: paused by ${escapeMarkdown(pause.by)} since ${pause.pausedAt.toISOString()}.`,
      ];
  if (pause.except.length) {
    const without = why.unlabelled?.length
      ? `: this merge group holds ${pullList(why.unlabelled)}, without one`
      : "";
    lines.push(
      "",
      `Pull requests labelled ${joinList(
        pause.except.map((l) => codeSpan(l)),
        "or",
      )} pass${without}.`,
    );
  }
  lines.push(
    "",
    `Reason: ${escapeMarkdown(pause.reason)}`,
    "",
    "This check completes when the queue is unpaused (`/mq unpause` in Slack, or `@yardmaster unpause` on a pull request).",
  );
  return { name, status: "queued", title: heldTitle(pause), summary: lines.join("\n") };
}

function drainLines(pause: GatePauseRecord, branch: string, why: HeldFor): string[] {
  const drain = pause.drain;
  if (!drain) return [];
  const began = `${escapeMarkdown(drain.by)} began draining the merge queue of ${branch} at ${drain.startedAt.toISOString()}`;
  const later = why.later?.length
    ? ` This merge group holds ${pullList(why.later)}, queued since, so it waits.`
    : "";
  if (pause.drainedAt)
    return [
      `${began}; it drained at ${pause.drainedAt.toISOString()}: nothing queued before is left, and the queue is held until it is unpaused.${later}`,
    ];
  return [`${began}: what was queued before then merges, what is queued since waits.${later}`];
}
