import { z } from "zod";
import { dateTimeSchema } from "./primitives.schema.js";
import { lenientMode, type SchemaMode } from "./schema-mode.js";

/** MergeQueuePauseResponse (docs/merge-queue-api.md): the answer of GET/PUT pause, and `pause` in the status. */
export function buildPauseSchema(_mode: SchemaMode) {
  return z.looseObject({
    paused: z.boolean(),
    reason: z.string().nullable().optional(),
    paused_at: dateTimeSchema.nullable().optional(),
  });
}

export const pauseStateSchema = buildPauseSchema(lenientMode);
export type PauseState = z.infer<typeof pauseStateSchema>;
