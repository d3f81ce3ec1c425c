/** Wording shared by every renderer (GitHub Markdown, Slack Block Kit, notifications). */

const BATCH_STATUS: Record<string, string> = {
  running: "CI running",
  bisecting: "bisecting",
  preparing: "preparing",
  failed: "failed",
  merged: "merged",
  waiting_for_merge: "waiting to merge",
  waiting_for_previous_batches: "waiting on previous batch",
  waiting_for_requeue: "requeuing",
  waiting_schedule: "waiting for schedule",
  waiting_for_batch: "filling batch",
  waiting_for_checks_slot: "waiting for a CI slot",
  frozen: "frozen",
};

export function batchStatusLabel(code: string): string {
  return BATCH_STATUS[code] ?? code.replace(/_/g, " ");
}

/** "in 12 min", "in 2 h 5 min", "overdue", or "unknown". */
export function formatEta(at: string | null | undefined, now: Date = new Date()): string {
  if (!at) return "unknown";
  const ms = Date.parse(at) - now.getTime();
  if (Number.isNaN(ms)) return "unknown";
  if (ms <= 0) return "any moment";
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return "in under a minute";
  if (minutes < 60) return `in ${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest ? `in ${hours} h ${rest} min` : `in ${hours} h`;
}

/** "2026-11-21 19:30 UTC". */
export function formatTime(at: string | null | undefined): string {
  if (!at) return "unknown time";
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return "unknown time";
  return `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** At most `max` items, and how many were left out ("and N more"). */
export function cut<T>(items: readonly T[], max: number): { shown: T[]; more: number } {
  return { shown: items.slice(0, max), more: Math.max(0, items.length - max) };
}
