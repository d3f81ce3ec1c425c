import { z } from "zod";
import { lenientMode, type SchemaMode } from "./schema-mode.js";

/** MergeQueueBranches (docs/merge-queue-api.md). */
export function buildBranchesSchema(_mode: SchemaMode) {
  return z.looseObject({ branches: z.array(z.string()) });
}

export const branchesSchema = buildBranchesSchema(lenientMode);
export type BranchesResponse = z.infer<typeof branchesSchema>;
