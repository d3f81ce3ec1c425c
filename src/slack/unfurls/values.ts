import { z } from "zod";
import { Repo } from "../../repo.js";
import { jsonSafe } from "../actions.js";

/**
 * The buttons of an unfurl (docs/notifications.md, "Pull-request links"): each carries the pull
 * request in its value, written and read back exactly as the other buttons' values (actions.ts).
 */
export const UNFURL_ACTION_IDS = {
  queue: "mq.unfurl.queue",
  dequeue: "mq.unfurl.dequeue",
  refresh: "mq.unfurl.refresh",
} as const;
export type UnfurlActionId = (typeof UNFURL_ACTION_IDS)[keyof typeof UNFURL_ACTION_IDS];

export interface UnfurlTarget {
  repo: Repo;
  pull: number;
}

const VALUE = z.strictObject({
  r: z.string().refine((r) => Repo.parse(r) !== null),
  p: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
});

export function unfurlValue(target: UnfurlTarget): string {
  return jsonSafe(JSON.stringify({ r: target.repo.fullName, p: target.pull }));
}

/** The pull request a button's value names, or null when it is not exactly what this version writes. */
export function readUnfurlValue(value: unknown): UnfurlTarget | null {
  if (typeof value !== "string" || value.length > 300) return null;
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch {
    return null;
  }
  const parsed = VALUE.safeParse(json);
  if (!parsed.success) return null;
  const target = { repo: Repo.from(parsed.data.r), pull: parsed.data.p };
  return unfurlValue(target) === value ? target : null;
}

export function isUnfurlActionId(id: unknown): id is UnfurlActionId {
  return typeof id === "string" && (Object.values(UNFURL_ACTION_IDS) as string[]).includes(id);
}
