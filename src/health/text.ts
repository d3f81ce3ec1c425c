import type { Repo } from "../repo.js";
import { escapeMrkdwn, linkMrkdwn } from "../slack/mrkdwn.js";
import { actions, section, unpauseButton } from "../slack/render-kit.js";
import { formatDuration, formatTime } from "../wording/words.js";
import { type Condition, type FailingCheck, failingChecksOf, type Holding } from "./assess.js";
import type { HeadLook } from "./head-look.js";

/**
 * The health alerts' words (docs/notifications.md, "The queue's health"): one plain sentence of what
 * happened and what to do, with links to the pull requests and checks. Whatever came from outside (a
 * check's name, a pause's reason, a login) is escaped.
 */

export interface AlertMessage {
  text: string;
  blocks: unknown[];
}

interface Place {
  repository: Repo;
  githubWebUrl: string;
  now: Date;
}

const pullUrl = (p: Place, pull: number) => `${p.githubWebUrl}/${p.repository.fullName}/pull/${pull}`;
const pullLink = (p: Place, pull: number) => linkMrkdwn(pullUrl(p, pull), `#${pull}`);
const pullLinks = (p: Place, pulls: readonly number[]) => joinWords(pulls.map((n) => pullLink(p, n)));
const repoName = (p: Place) =>
  linkMrkdwn(`${p.githubWebUrl}/${p.repository.fullName}`, p.repository.fullName);
const ago = (p: Place, since: Date | string) =>
  formatDuration(Math.max(0, p.now.getTime() - new Date(since).getTime()) / 1000);

/** "a", "a and b", "a, b and c". */
function joinWords(words: readonly string[]): string {
  if (words.length <= 1) return words.join("");
  return `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The checks still pending, named and linked: "`ci/test` and `lint`"; empty when none is known. */
function pendingWords(look: HeadLook | null | undefined): string {
  const names = (look?.pending ?? []).map((c) =>
    c.url ? linkMrkdwn(c.url, c.name) : `\`${escapeMrkdwn(c.name)}\``,
  );
  return joinWords(names);
}

function pausedWords(by: string | null, since: string | null, reason: string): string {
  return ` The queue is paused${by ? ` by ${escapeMrkdwn(by)}` : ""}${since ? ` since ${formatTime(since)}` : ""}${reason ? ` ("${escapeMrkdwn(reason)}")` : ""}: unpause it when it may run again.`;
}

/** What holds the head: the history's account, completed by what the queue itself said (`look`). */
function holdingWords(p: Place, h: Holding | null, look: HeadLook | null): string {
  if (look?.pause && h?.kind !== "paused")
    return pausedWords(look.pause.by, look.pause.pausedAt, look.pause.reason);
  if (!h) return "";
  const pending = pendingWords(look);
  switch (h.kind) {
    case "checks": {
      const still = pending ? `; still pending: ${pending}` : "";
      return ` The head, ${pullLink(p, h.pull)}, has had its ${linkMrkdwn(`${pullUrl(p, h.pull)}/checks`, "checks")} running since ${formatTime(h.since)}${h.batch ? ` (batch ${escapeMrkdwn(h.batch)})` : ""}${still}: look at them.`;
    }
    case "paused":
      return pausedWords(h.by ?? look?.pause?.by ?? null, h.since, h.reason);
    case "not-started":
      return ` The checks of the head, ${pullLink(p, h.pull)}, have not started${h.reason ? `: ${escapeMrkdwn(h.reason)}` : ""}.`;
    case "waiting":
      if (pending)
        return ` The head, ${pullLink(p, h.pull)}, has its checks running; still pending: ${pending}: look at them.`;
      if (look?.state === "failing")
        return ` The head, ${pullLink(p, h.pull)}, cannot merge as it is (a merge conflict or failing checks): look at it.`;
      return ` The head, ${pullLink(p, h.pull)}, is waiting for its checks to start (a schedule, the batch filling, or a conflict): look at it.`;
  }
}

/** The notice of an alert, as it opens (and, for a long pause, each reminder). */
export function openedMessage(p: Place, c: Condition): AlertMessage {
  const f = c.facts;
  const look = (f.look as HeadLook | null | undefined) ?? null;
  let text: string;
  let withUnpause = false;
  const unpauseBranch = typeof f.branch === "string" ? f.branch : undefined;
  switch (c.kind) {
    case "stalled": {
      const waiting = f.waiting as number[];
      const last = f.lastMergeAt
        ? `nothing has merged since ${formatTime(f.lastMergeAt as string)} (${ago(p, f.lastMergeAt as string)} ago${f.lastMergePull ? `, ${pullLink(p, f.lastMergePull as number)}` : ""})`
        : `nothing has merged for ${ago(p, c.since)}`;
      text = `⚠️ The merge queue of ${repoName(p)} looks stalled: ${plural(waiting.length, "pull request waits", "pull requests wait")} (${pullLinks(p, waiting)}) and ${last}, longer than ${f.thresholdSet ? "the" : "its usual"} ${formatDuration((f.thresholdMs as number) / 1000)}${f.thresholdSet ? " set for it" : ""}.${holdingWords(p, f.holding as Holding | null, look)}`;
      withUnpause = (f.holding as Holding | null)?.kind === "paused" || look?.pause != null;
      break;
    }
    case "slow-checks": {
      const pulls = f.pulls as number[];
      const checks = joinWords(pulls.map((n) => linkMrkdwn(`${pullUrl(p, n)}/checks`, `checks of #${n}`)));
      text = `🐢 The ${checks} in the merge queue of ${repoName(p)} have been running for ${ago(p, c.since)}, far longer than usual (90% of runs end within ${formatDuration((f.p90Ms as number) / 1000)}): ${pendingWords(look) ? `look at the checks still pending, ${pendingWords(look)}` : "look at the checks still pending"}, a runner may be stuck.`;
      break;
    }
    case "failing-check":
      text = failingText(p, failingChecksOf(f));
      break;
    case "paused-long": {
      const by = f.by ? ` by ${escapeMrkdwn(f.by as string)}` : "";
      const why = f.reason ? ` ("${escapeMrkdwn(f.reason as string)}")` : "";
      const branch = typeof f.branch === "string" ? f.branch : null;
      const of = branch ? `${repoName(p)} (branch \`${escapeMrkdwn(branch)}\`)` : repoName(p);
      text = `⏸️ The merge queue of ${of} has been paused for ${ago(p, c.since)}${by}${why}, since ${formatTime(c.since.toISOString())}; ${plural(f.waiting as number, "pull request waits", "pull requests wait")}. Unpause it if the reason is over.`;
      withUnpause = true;
      break;
    }
  }
  return {
    text,
    blocks: [section(text), ...(withUnpause ? [actions(unpauseButton(p.repository, unpauseBranch))] : [])],
  };
}

/** At most this many checks failing for everyone are named in the alert; the rest are counted. */
export const FAILING_CHECKS_NAMED = 5;

const checkLink = (c: FailingCheck) => (c.url ? linkMrkdwn(c.url, c.check) : `\`${escapeMrkdwn(c.check)}\``);

/** "`a`, `b` and 12 more": the first FAILING_CHECKS_NAMED checks, linked, and how many others. */
function checkNames(checks: readonly FailingCheck[], link: (c: FailingCheck) => string): string {
  const named = checks.slice(0, FAILING_CHECKS_NAMED).map(link);
  const rest = checks.length - named.length;
  return rest > 0 ? `${named.join(", ")} and ${rest} more` : joinWords(named);
}

/** One check: its pull requests and minutes; several: each named (up to five) with its pull requests. */
function failingText(p: Place, checks: readonly FailingCheck[]): string {
  const [only] = checks;
  if (checks.length === 1 && only)
    return `🔥 ${checkLink(only)} failed for ${pullLinks(p, only.pulls)} in ${only.minutes} minutes in the merge queue of ${repoName(p)}: likely broken on the base branch or flaky, not these changes. Look at the check, then requeue them.`;
  const pulls = [...new Set(checks.flatMap((c) => c.pulls))].sort((a, b) => a - b);
  return `🔥 ${checks.length} checks failed for everyone in the merge queue of ${repoName(p)}: ${checkNames(checks, (c) => `${checkLink(c)} (${pullLinks(p, c.pulls)})`)}. Likely broken on the base branch or an outage of CI, not these changes (${plural(pulls.length, "pull request", "pull requests")}). Look at the checks, then requeue them.`;
}

/** The notice once its episode ended: what ended it and how long it lasted. */
export function endedMessage(
  p: Place,
  episode: { kind: string; since: Date; facts: Record<string, unknown> },
  ending: string,
): AlertMessage {
  const lasted = ago(p, episode.since);
  const branch = typeof episode.facts.branch === "string" ? episode.facts.branch : null;
  const paused = branch ? `${repoName(p)} (branch \`${escapeMrkdwn(branch)}\`)` : repoName(p);
  const what: Record<string, string> = {
    stalled: `The merge queue of ${repoName(p)} was stalled for ${lasted}`,
    "slow-checks": `The slow checks in the merge queue of ${repoName(p)} ran for ${lasted}`,
    "failing-check": `${checkNames(failingChecksOf(episode.facts), (c) => escapeMrkdwn(c.check)) || "A check"} failed for everyone in the merge queue of ${repoName(p)} for ${lasted}`,
    "paused-long": `The merge queue of ${paused} was paused for ${lasted}`,
  };
  const text = `✅ ${what[episode.kind] ?? `An alert of ${repoName(p)} lasted ${lasted}`}; it ended: ${ending}.`;
  return { text, blocks: [section(text)] };
}

/** What ended an episode, in words (from what the history says since it began). */
export function endingWords(
  p: Place,
  end: {
    kind: "merged" | "passed" | "passed-all" | "resumed" | "emptied" | "checks-ended" | "gone";
    pull?: number | null;
    by?: string | null;
  },
): string {
  const pull = end.pull ? ` ${pullLink(p, end.pull)}` : "";
  switch (end.kind) {
    case "merged":
      return `${pull.trim() || "a pull request"} merged`;
    case "passed":
      return `the check passed again${pull ? ` for${pull}` : ""}`;
    case "passed-all":
      return "each of the checks passed again";
    case "resumed":
      return `the queue was unpaused${end.by ? ` by ${escapeMrkdwn(end.by)}` : ""}`;
    case "emptied":
      return "no pull request waits any more";
    case "checks-ended":
      return "the checks ended";
    case "gone":
      return "the condition no longer holds";
  }
}
