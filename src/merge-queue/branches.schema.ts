import { z } from "zod";
import { lenientMode, type SchemaMode } from "./schema-mode.js";

/** MergeQueueBranches (spec 4.1). */
export function buildBranchesSchema(_mode: SchemaMode) {
  return z.looseObject({ branches: z.array(z.string()) });
}

export const branchesSchema = buildBranchesSchema(lenientMode);
export type BranchesResponse = z.infer<typeof branchesSchema>;
