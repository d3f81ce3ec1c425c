import { z } from "zod";
import type { SchemaMode } from "./schema-mode.js";

/** Check states (docs/merge-queue-api.md). */
export const CHECK_STATES = [
  "failure",
  "error",
  "cancelled",
  "action_required",
  "timed_out",
  "pending",
  "neutral",
  "skipped",
  "stale",
  "success",
] as const;
export type CheckState = (typeof CHECK_STATES)[number];

/** QueueCheck (docs/merge-queue-api.md) and QueueCheck_Serialized (event metadata): one check of a pull request. */
export function buildQueueCheckSchema(mode: SchemaMode) {
  return z.looseObject({
    name: z.string(),
    description: z.string(),
    url: z.string().nullable(),
    details_url: z.string().nullable().optional(),
    state: mode.oneOf(CHECK_STATES),
    avatar_url: z.string().nullable(),
  });
}
