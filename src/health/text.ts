import type { Repo } from "../repo.js";
import { type ChatMessage, type Inline, isInline, joinSpans } from "../wording/message.js";
import { formatDuration, formatTime } from "../wording/words.js";
import { type Condition, type FailingCheck, failingChecksOf, type Holding } from "./assess.js";
import type { HeadLook } from "./head-look.js";

/**
 * The health alerts' words (docs/notifications.md, "The queue's health"): one plain sentence of what
 * happened and what to do, with links to the pull requests and checks, said as a neutral message
 * (src/wording/message.ts) that the chat surface lays out. Whatever came from outside (a check's name,
 * a pause's reason, a login) is a `text` span: the surface escapes it.
 */

interface Place {
  repository: Repo;
  githubWebUrl: string;
  now: Date;
}

const pullUrl = (p: Place, pull: number) => `${p.githubWebUrl}/${p.repository.fullName}/pull/${pull}`;
const pullLink = (p: Place, pull: number): Inline => ({ link: pullUrl(p, pull), label: `#${pull}` });
const pullLinks = (p: Place, pulls: readonly number[]) => joinWords(pulls.map((n) => pullLink(p, n)));
const repoName = (p: Place): Inline => ({
  link: `${p.githubWebUrl}/${p.repository.fullName}`,
  label: p.repository.fullName,
});
const ago = (p: Place, since: Date | string) =>
  formatDuration(Math.max(0, p.now.getTime() - new Date(since).getTime()) / 1000);
const said = (text: string): Inline => ({ text });
const codeOf = (text: string): Inline => ({ code: { text } });
/** Is a run of spans empty (no words at all)? */
const empty = (inline: Inline) => Array.isArray(inline) && inline.length === 0;

/** "a", "a and b", "a, b and c". */
function joinWords(words: readonly Inline[]): Inline {
  return joinSpans(words);
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The checks still pending, named and linked: "`ci/test` and `lint`"; empty when none is known. */
function pendingWords(look: HeadLook | null | undefined): Inline {
  const names = (look?.pending ?? []).map((c) => (c.url ? { link: c.url, label: c.name } : codeOf(c.name)));
  return joinWords(names);
}

function pausedWords(by: string | null, since: string | null, reason: string): Inline {
  return [
    " The queue is paused",
    by ? [" by ", said(by)] : [],
    since ? ` since ${formatTime(since)}` : "",
    reason ? [' ("', said(reason), '")'] : [],
    ": unpause it when it may run again.",
  ];
}

/** What holds the head: the history's account, completed by what the queue itself said (`look`). */
function holdingWords(p: Place, h: Holding | null, look: HeadLook | null): Inline {
  if (look?.pause && h?.kind !== "paused")
    return pausedWords(look.pause.by, look.pause.pausedAt, look.pause.reason);
  if (!h) return "";
  const pending = pendingWords(look);
  switch (h.kind) {
    case "checks": {
      const still = empty(pending) ? "" : ["; still pending: ", pending];
      const checks = { link: `${pullUrl(p, h.pull)}/checks`, label: "checks" };
      const batch = h.batch ? [" (batch ", said(h.batch), ")"] : "";
      return [
        " The head, ",
        pullLink(p, h.pull),
        ", has had its ",
        checks,
        ` running since ${formatTime(h.since)}`,
        batch,
        still,
        ": look at them.",
      ];
    }
    case "paused":
      return pausedWords(h.by ?? look?.pause?.by ?? null, h.since, h.reason);
    case "not-started":
      return [
        " The checks of the head, ",
        pullLink(p, h.pull),
        ", have not started",
        h.reason ? [": ", said(h.reason)] : "",
        ".",
      ];
    case "waiting":
      if (!empty(pending))
        return [
          " The head, ",
          pullLink(p, h.pull),
          ", has its checks running; still pending: ",
          pending,
          ": look at them.",
        ];
      if (look?.state === "failing")
        return [
          " The head, ",
          pullLink(p, h.pull),
          ", cannot merge as it is (a merge conflict or failing checks): look at it.",
        ];
      return [
        " The head, ",
        pullLink(p, h.pull),
        ", is waiting for its checks to start (a schedule, the batch filling, or a conflict): look at it.",
      ];
  }
}

/** The notice of an alert, as it opens (and, for a long pause, each reminder). */
export function openedMessage(p: Place, c: Condition): ChatMessage {
  const f = c.facts;
  const look = (f.look as HeadLook | null | undefined) ?? null;
  let text: Inline;
  let withUnpause = false;
  const unpauseBranch = typeof f.branch === "string" ? f.branch : undefined;
  switch (c.kind) {
    case "stalled": {
      const waiting = f.waiting as number[];
      const last: Inline = f.lastMergeAt
        ? [
            `nothing has merged since ${formatTime(f.lastMergeAt as string)} (${ago(p, f.lastMergeAt as string)} ago`,
            f.lastMergePull ? [", ", pullLink(p, f.lastMergePull as number)] : "",
            ")",
          ]
        : `nothing has merged for ${ago(p, c.since)}`;
      text = [
        "⚠️ The merge queue of ",
        repoName(p),
        ` looks stalled: ${plural(waiting.length, "pull request waits", "pull requests wait")} (`,
        pullLinks(p, waiting),
        ") and ",
        last,
        `, longer than ${f.thresholdSet ? "the" : "its usual"} ${formatDuration((f.thresholdMs as number) / 1000)}${f.thresholdSet ? " set for it" : ""}.`,
        holdingWords(p, f.holding as Holding | null, look),
      ];
      withUnpause = (f.holding as Holding | null)?.kind === "paused" || look?.pause != null;
      break;
    }
    case "slow-checks": {
      const pulls = f.pulls as number[];
      const checks = joinWords(
        pulls.map((n) => ({ link: `${pullUrl(p, n)}/checks`, label: `checks of #${n}` })),
      );
      const pending = pendingWords(look);
      text = [
        "🐢 The ",
        checks,
        " in the merge queue of ",
        repoName(p),
        ` have been running for ${ago(p, c.since)}, far longer than usual (90% of runs end within ${formatDuration((f.p90Ms as number) / 1000)}): `,
        empty(pending) ? "look at the checks still pending" : ["look at the checks still pending, ", pending],
        ", a runner may be stuck.",
      ];
      break;
    }
    case "failing-check":
      text = failingText(p, failingChecksOf(f));
      break;
    case "paused-long": {
      const by = f.by ? [" by ", said(f.by as string)] : "";
      const why = f.reason ? [' ("', said(f.reason as string), '")'] : "";
      const branch = typeof f.branch === "string" ? f.branch : null;
      text = [
        "⏸️ The merge queue of ",
        queueOf(p, branch),
        ` has been paused for ${ago(p, c.since)}`,
        by,
        why,
        `, since ${formatTime(c.since.toISOString())}; ${plural(f.waiting as number, "pull request waits", "pull requests wait")}. Unpause it if the reason is over.`,
      ];
      withUnpause = true;
      break;
    }
  }
  const unpause = { label: "Unpause", style: "primary" as const };
  const runs = {
    name: "unpause" as const,
    repo: p.repository,
    ...(unpauseBranch ? { branch: unpauseBranch } : {}),
  };
  return { lines: [text], ...(withUnpause ? { buttons: [{ ...unpause, runs }] } : {}) };
}

/** The repository, linked, and its branch when the alert is of one branch's queue. */
function queueOf(p: Place, branch: string | null): Inline {
  return branch ? [repoName(p), " (branch ", codeOf(branch), ")"] : repoName(p);
}

/** At most this many checks failing for everyone are named in the alert; the rest are counted. */
export const FAILING_CHECKS_NAMED = 5;

const checkLink = (c: FailingCheck): Inline => (c.url ? { link: c.url, label: c.check } : codeOf(c.check));

/** "`a`, `b` and 12 more": the first FAILING_CHECKS_NAMED checks, linked, and how many others. */
function checkNames(checks: readonly FailingCheck[], link: (c: FailingCheck) => Inline): Inline {
  const named = checks.slice(0, FAILING_CHECKS_NAMED).map(link);
  const rest = checks.length - named.length;
  if (rest <= 0) return joinWords(named);
  return [named.flatMap((n, i) => (i ? [", ", n] : [n])), ` and ${rest} more`];
}

/** One check: its pull requests and minutes; several: each named (up to five) with its pull requests. */
function failingText(p: Place, checks: readonly FailingCheck[]): Inline {
  const [only] = checks;
  if (checks.length === 1 && only)
    return [
      "🔥 ",
      checkLink(only),
      " failed for ",
      pullLinks(p, only.pulls),
      ` in ${only.minutes} minutes in the merge queue of `,
      repoName(p),
      ": likely broken on the base branch or flaky, not these changes. Look at the check, then requeue them.",
    ];
  const pulls = [...new Set(checks.flatMap((c) => c.pulls))].sort((a, b) => a - b);
  return [
    `🔥 ${checks.length} checks failed for everyone in the merge queue of `,
    repoName(p),
    ": ",
    checkNames(checks, (c) => [checkLink(c), " (", pullLinks(p, c.pulls), ")"]),
    `. Likely broken on the base branch or an outage of CI, not these changes (${plural(pulls.length, "pull request", "pull requests")}). Look at the checks, then requeue them.`,
  ];
}

/** The notice once its episode ended: what ended it and how long it lasted. */
export function endedMessage(
  p: Place,
  episode: { kind: string; since: Date; facts: Record<string, unknown> },
  ending: Inline,
): ChatMessage {
  const lasted = ago(p, episode.since);
  const branch = typeof episode.facts.branch === "string" ? episode.facts.branch : null;
  const failing = checkNames(failingChecksOf(episode.facts), (c) => said(c.check));
  const what: Record<string, Inline> = {
    stalled: ["The merge queue of ", repoName(p), ` was stalled for ${lasted}`],
    "slow-checks": ["The slow checks in the merge queue of ", repoName(p), ` ran for ${lasted}`],
    "failing-check": [
      empty(failing) ? "A check" : failing,
      " failed for everyone in the merge queue of ",
      repoName(p),
      ` for ${lasted}`,
    ],
    "paused-long": ["The merge queue of ", queueOf(p, branch), ` was paused for ${lasted}`],
  };
  const text = [
    "✅ ",
    what[episode.kind] ?? ["An alert of ", repoName(p), ` lasted ${lasted}`],
    "; it ended: ",
    ending,
    ".",
  ];
  return { lines: [text] };
}

/** What ended an episode, in words (from what the history says since it began). */
export function endingWords(
  p: Place,
  end: {
    kind: "merged" | "passed" | "passed-all" | "resumed" | "emptied" | "checks-ended" | "gone";
    pull?: number | null;
    by?: string | null;
  },
): Inline {
  switch (end.kind) {
    case "merged":
      return end.pull ? [pullLink(p, end.pull), " merged"] : "a pull request merged";
    case "passed":
      return end.pull ? ["the check passed again for ", pullLink(p, end.pull)] : "the check passed again";
    case "passed-all":
      return "each of the checks passed again";
    case "resumed":
      return ["the queue was unpaused", end.by ? [" by ", said(end.by)] : ""];
    case "emptied":
      return "no pull request waits any more";
    case "checks-ended":
      return "the checks ended";
    case "gone":
      return "the condition no longer holds";
  }
}

/** An episode's ending as the store keeps it: its spans, as JSON. */
export function storedEnding(ending: Inline): string {
  return JSON.stringify(ending);
}

/** An ending read back from the store; one an earlier version kept as Slack's words is shown as it was. */
export function endingOf(stored: string): Inline {
  try {
    const parsed: unknown = JSON.parse(stored);
    if (isInline(parsed)) return parsed;
  } catch {
    // Kept as words by an earlier version.
  }
  return stored;
}
