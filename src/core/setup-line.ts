/**
 * A line of the setup check (`npm run doctor`, `/mq doctor`, the start log) in the core's terms:
 * src/doctor writes them for the services it checks, the backends for the merge queue
 * (src/backends/setup-check.ts); the report the command core shows is made of them
 * (src/commands/setup-report.ts).
 */
export type SetupStatus = "pass" | "warn" | "fail" | "skip";

export interface SetupLine {
  /** What was checked, e.g. "Slack token" or "merge-queue token: acme/widgets". */
  check: string;
  status: SetupStatus;
  /** What was found, in a sentence. */
  message: string;
  /** What to do about it (for warn and fail). */
  fix?: string;
}

/** The lines a check writes: what was checked, what was found and, for a problem, what to do. */
export const pass = (check: string, message: string): SetupLine => ({ check, status: "pass", message });
export const skip = (check: string, message: string): SetupLine => ({ check, status: "skip", message });
export const warn = (check: string, message: string, fix: string): SetupLine => ({
  check,
  status: "warn",
  message,
  fix,
});
export const fail = (check: string, message: string, fix: string): SetupLine => ({
  check,
  status: "fail",
  message,
  fix,
});

/** At most this many subscribed repositories are read (a line each); the rest are named as not checked. */
export const MOST_REPOSITORIES = 50;

/** How long any one call of a check may take before it counts as unanswered. */
export const CALL_TIMEOUT_MS = 10_000;

/** A failed call in words: the network's reason, never a URL with credentials (none is sent in one). */
export function reason(error: unknown): string {
  const e = error as Error & { code?: unknown; cause?: { code?: string; message?: string } };
  if (e?.name === "TimeoutError" || e?.name === "AbortError")
    return `no answer within ${CALL_TIMEOUT_MS / 1000} s`;
  const code = e?.cause?.code ?? (typeof e?.code === "string" ? e.code : undefined);
  return code ?? e?.cause?.message ?? e?.message ?? String(error);
}

/** "a, b and c" */
export function listed(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}
