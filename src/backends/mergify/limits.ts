import { z } from "zod";
import {
  boundedText,
  branchSchema,
  characterCount,
  PAUSE_REASON_MAX_LENGTH,
  pauseReasonSchema,
  REF_CHARACTERS,
  REF_MAX_LENGTH,
} from "../../core/input-limits.js";
import { OWNER_MAX_LENGTH, REPO_NAME_MAX_LENGTH } from "../../repo.js";
import { formatFieldPath, MergeQueueError, MergeQueueErrorCode } from "./errors.js";

/**
 * Input limits of the merge-queue interface (docs/merge-queue-api.md, "Limits"), in one place.
 * Every schema's error message names the field and the limit, so any layer can show it as is.
 * Lengths count characters (Unicode code points), as the service does, not UTF-16 units.
 */
export const LIMITS = {
  ownerMaxLength: OWNER_MAX_LENGTH,
  repositoryMaxLength: REPO_NAME_MAX_LENGTH,
  pauseReasonMaxLength: PAUSE_REASON_MAX_LENGTH,
  refMaxLength: REF_MAX_LENGTH,
  perPageMax: 100,
  pullNumberMax: Number.MAX_SAFE_INTEGER,
} as const;

// The owner and repository limits are the repository value type's (src/repo.ts); the branch and the
// pause reason's are the core's (src/core/input-limits.ts).
export { ownerSchema, repoNameSchema as repositorySchema } from "../../repo.js";
export { branchSchema, characterCount, pauseReasonSchema };

export const baseRefSchema = boundedText("base_ref", LIMITS.refMaxLength, REF_CHARACTERS);

const PER_PAGE_MESSAGE = `per_page must be a whole number from 1 to ${LIMITS.perPageMax}`;
export const perPageSchema = z
  .int({ error: PER_PAGE_MESSAGE })
  .min(1, { error: PER_PAGE_MESSAGE })
  .max(LIMITS.perPageMax, { error: PER_PAGE_MESSAGE });

// z.int() admits only safe integers, so 2^53 and above are refused, never rounded.
const PULL_NUMBER_MESSAGE = `pull request number must be a whole number from 0 to ${LIMITS.pullNumberMax}`;
export const pullNumberSchema = z
  .int({ error: PULL_NUMBER_MESSAGE })
  .min(0, { error: PULL_NUMBER_MESSAGE })
  .max(LIMITS.pullNumberMax, { error: PULL_NUMBER_MESSAGE });

const EVENT_TYPE_MESSAGE = "event type must be a non-empty string";
export const eventTypeFilterSchema = z
  .string({ error: EVENT_TYPE_MESSAGE })
  .min(1, { error: EVENT_TYPE_MESSAGE });

/** A point in time given as a Date or a parseable date string; the result is the ISO string sent. */
export function timestampSchema(field: string) {
  const message = `${field} must be a valid date`;
  return z
    .union([z.date({ error: message }), z.string({ error: message })], { error: message })
    .transform((value, ctx) => {
      const date = value instanceof Date ? value : new Date(value);
      if (Number.isNaN(date.getTime())) {
        ctx.issues.push({ code: "custom", message, input: value });
        return z.NEVER;
      }
      return date.toISOString();
    });
}

/**
 * Parses `value` with `schema`, or throws MergeQueueError(InvalidInput) carrying the schema's message and
 * the field path (`field`, then any path inside the value, e.g. `pull_request[2]`).
 */
export function checkInput<T extends z.ZodType>(schema: T, value: unknown, field: string): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue && issue.path.length > 0 ? `${field}${pathSuffix(issue.path)}` : field;
  throw new MergeQueueError(MergeQueueErrorCode.InvalidInput, issue?.message ?? `${field} is invalid`, {
    field: path,
  });
}

function pathSuffix(path: readonly PropertyKey[]): string {
  const formatted = formatFieldPath(path);
  return formatted.startsWith("[") ? formatted : `.${formatted}`;
}
