import type { Repo } from "../repo.js";
import { wallClock } from "../time-zone.js";
import type { TextFormat } from "./description.js";

/** Wording and cutting shared by every description (and the notifier's messages). */

/**
 * Unicode's bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069). Typed
 * into a reason or a title, U+202E (right-to-left override) shows the rest of the line reversed. Every
 * escape of every surface's format (GitHub Markdown, Slack mrkdwn and plain text, and so notices)
 * removes them first: docs/commands.md, "Input limits".
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

/** The text without bidirectional controls: what every escape starts with. */
export function withoutBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, "");
}

/** A URL with its bidirectional controls percent-encoded: the same address, shown in order. */
export function encodeBidiControls(url: string): string {
  return url.replace(BIDI_CONTROLS, (c) => encodeURIComponent(c));
}

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

/** "45 s", "12 min", "3 h 5 min", "2 d 4 h". */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`;
}

/** "in under a minute", "in 20 min", "in 1 h 20 min", "in 2 d 3 h": how long until `at`. */
function formatIn(at: Date, now: Date): string {
  const minutes = Math.round((at.getTime() - now.getTime()) / 60_000);
  return minutes < 1 ? "in under a minute" : `in ${formatDuration(minutes * 60)}`;
}

/**
 * "resumes at 18:00 UTC (in 1 h 20 min)": when a timed pause ends; with its day when that is not
 * today (UTC), and the time in `zone` too when it was read in another zone ("19:00 Europe/Paris").
 */
export function resumesText(at: Date, now: Date, zone?: string | null): string {
  const iso = at.toISOString();
  const sameDay = iso.slice(0, 10) === now.toISOString().slice(0, 10);
  const utc = `${sameDay ? iso.slice(11, 16) : iso.slice(0, 16).replace("T", " ")} UTC`;
  const local = zone && zone !== "UTC" ? `${localTime(at, zone)} ${zone}, ` : "";
  return `resumes at ${utc} (${local}${formatIn(at, now)})`;
}

/** "19:00": the time a clock in `zone` shows at `at`. */
function localTime(at: Date, zone: string): string {
  const { hour, minute } = wallClock(at, zone);
  return `${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}`;
}

/** At most `max` items, and how many were left out ("and N more"). */
export function cut<T>(items: readonly T[], max: number): { shown: T[]; more: number } {
  return { shown: items.slice(0, max), more: Math.max(0, items.length - max) };
}

/** At most `max` characters (by UTF-16 length, as Slack counts), cut on a code point, with "…". */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let out = "";
  for (const ch of text) {
    if (out.length + ch.length > max - 1) break;
    out += ch;
  }
  return `${out}…`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Titles are cut to this many characters in lists (GitHub allows 256). */
const TITLE_MAX = 120;

/** "#42 title": the number links to the pull request, the title is escaped. */
export function pullLink(f: TextFormat, pr: { number: number; title: string; url: string }): string {
  return `${f.link(pr.url, `#${pr.number}`)} ${f.escape(clip(pr.title, TITLE_MAX))}`;
}

/** The web address of GitHub, without a trailing slash. */
function webBase(githubWebUrl: string): string {
  return githubWebUrl.replace(/\/+$/, "");
}

/** Where the "…and N more" lines point: the repository's pull requests. */
function pullsUrl(githubWebUrl: string, repo: Repo): string {
  return `${webBase(githubWebUrl)}/${repo.fullName}/pulls`;
}

export function pullUrl(githubWebUrl: string, repo: Repo, pull: number): string {
  return `${webBase(githubWebUrl)}/${repo.fullName}/pull/${pull}`;
}

/** "…and 3 more batches (all pull requests on GitHub)", for a list cut short. */
export function moreOnGitHub(
  f: TextFormat,
  githubWebUrl: string,
  repo: Repo,
  n: number,
  one: string,
  many = `${one}s`,
): string {
  return `…and ${n} more ${n === 1 ? one : many} (${f.link(pullsUrl(githubWebUrl, repo), "all pull requests on GitHub")})`;
}
