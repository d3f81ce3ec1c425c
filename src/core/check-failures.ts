import type { QueueEvent, QueueEventOf } from "./queue.js";

/**
 * Why a pull request's checks failed, in the check's own words (docs/notifications.md, "Why a check
 * failed"): what a removal for failed checks shows beside its reason, on every surface. Read from GitHub's
 * check runs (src/github/check-runs.ts); everything here but the numbers is the check's author's text,
 * untrusted: each surface escapes it and keeps only the links its rules allow (src/wording/check-failures.ts).
 */

/** One failure annotation of a check run: `path:line — message`, linked to the file at that line. */
export interface CheckAnnotation {
  path: string;
  /** The annotation's first line; null when GitHub gives none. */
  line: number | null;
  message: string;
  /** The file at that line on GitHub (`…/blob/{sha}/{path}#L{line}`). */
  url: string;
}

/** One failed check as a notice details it. */
export interface CheckFailure {
  name: string;
  /** "check-run": read from GitHub's check runs; "status": a commit status (or a check GitHub did not list). */
  kind: "check-run" | "status";
  /** "failure", "timed_out", "cancelled", ...; null when unknown. */
  conclusion: string | null;
  /** Its page: the check run's on GitHub, or the backend's link. */
  url: string | null;
  /** The check run's `details_url` (its CI's page): links to its host are kept in the summary. */
  detailsUrl: string | null;
  /** The check run's `output.title`. */
  title: string | null;
  /** The beginning of the check run's `output.summary`, Markdown as its author wrote it (cut when shown). */
  summary: string | null;
  /** Its first failure annotations (at most FAILURE_LIMITS.annotations). */
  annotations: CheckAnnotation[];
  /** A commit status's description (the backend's words), where there is no check run. */
  description: string | null;
}

/** The failed checks of a removal, detailed: the first FAILURE_LIMITS.checks, the rest counted. */
export interface FailureDetails {
  checks: CheckFailure[];
  /** Failed checks not detailed. */
  more: number;
}

/** How much of a removal's failures is read and shown. */
export const FAILURE_LIMITS = {
  /** Failed checks detailed; the rest are counted. */
  checks: 3,
  /** Failure annotations shown per check. */
  annotations: 3,
  /** Characters of a summary shown (its first lines). */
  summaryChars: 300,
  /** Characters of a summary kept from GitHub (it may be 65,535): enough for its first lines. */
  summaryKept: 4_000,
  /** Characters of a title, an annotation's message or path, a description shown. */
  lineChars: 200,
} as const;

/** Whether an event is a removal whose failed checks are detailed: left without merging, with failed checks. */
export function wantsFailureDetails(event: QueueEvent): event is QueueEventOf<"left"> & { pull: number } {
  return event.kind === "left" && !event.merged && event.failedChecks.length > 0 && event.pull !== null;
}
