// The fake CI: which checks a speculative check run has and in which state they are at a given time.
// Check i of n completes at started + duration * (i + 1) / n; a failing check fails at the very end.

import type { CheckRun, QueueEntry } from "./model.js";
import type { EngineOptions } from "./options.js";
import type { QueueCheck } from "./types.js";

export const CHECK_AVATAR_URL = "https://avatars.githubusercontent.com/in/15368?v=4";

/** Names of the checks that fail for these pull requests (with their current settings). */
export function failingChecksOf(entries: QueueEntry[], options: EngineOptions): string[] {
  const last = options.checkNames[options.checkNames.length - 1] ?? "ci";
  const names = new Set<string>();
  for (const entry of entries) {
    if (entry.pull.checks === "failure") names.add(entry.pull.failingCheck ?? last);
  }
  return [...names];
}

function checkUrl(options: EngineOptions, repository: string, run: CheckRun, name: string): string {
  const slug = name.replace(/[^A-Za-z0-9_.-]+/g, "-");
  return `${options.ciUrl}/${repository}/runs/${run.queuePullNumber ?? 0}/${slug}`;
}

export function failedCheck(
  options: EngineOptions,
  repository: string,
  run: CheckRun,
  name: string,
): QueueCheck {
  const url = checkUrl(options, repository, run, name);
  return {
    name,
    description: `${name} failed: 3 tests failed`,
    url,
    details_url: url,
    state: "failure",
    avatar_url: CHECK_AVATAR_URL,
  };
}

/** The checks of a run as they stand at `now`. */
export function checksAt(
  options: EngineOptions,
  repository: string,
  run: CheckRun,
  entries: QueueEntry[],
  now: number,
): QueueCheck[] {
  const names = [...options.checkNames];
  const failing = run.failedChecks ?? failingChecksOf(entries, options);
  for (const name of failing) if (!names.includes(name)) names.push(name);
  return names.map((name, index) => {
    const url = checkUrl(options, repository, run, name);
    const pending: QueueCheck = {
      name,
      description: run.startedAt === null ? "Waiting for the checks to start" : "In progress",
      url: run.startedAt === null ? null : url,
      details_url: run.startedAt === null ? null : url,
      state: "pending",
      avatar_url: CHECK_AVATAR_URL,
    };
    if (run.startedAt === null || run.checksEndAt === null) return pending;
    if (run.failedChecks !== null) {
      return run.failedChecks.includes(name)
        ? failedCheck(options, repository, run, name)
        : { ...pending, description: `${name} passed`, state: "success" };
    }
    if (failing.includes(name)) return pending;
    const duration = run.checksEndAt - run.startedAt;
    const completesAt = run.startedAt + Math.floor((duration * (index + 1)) / names.length);
    return completesAt <= now ? { ...pending, description: `${name} passed`, state: "success" } : pending;
  });
}

export function checksSummary(checks: QueueCheck[]): { passed: number; total: number } {
  return { passed: checks.filter((check) => check.state === "success").length, total: checks.length };
}
