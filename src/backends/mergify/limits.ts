import { z } from "zod";
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
  pauseReasonMaxLength: 255,
  refMaxLength: 255,
  perPageMax: 100,
  pullNumberMax: Number.MAX_SAFE_INTEGER,
} as const;

export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

// The owner and repository limits are the repository value type's (src/repo.ts).
export { ownerSchema, repoNameSchema as repositorySchema } from "../../repo.js";

function boundedText(
  field: string,
  max: number,
  extra: { test: RegExp; says: string } | undefined = undefined,
) {
  const message = `${field} must be 1 to ${max} characters${extra ? `, ${extra.says}` : ""}`;
  return z
    .string({ error: message })
    .refine(
      (text) =>
        text.length > 0 && characterCount(text) <= max && (extra === undefined || extra.test.test(text)),
      { error: message },
    );
}

// Git refuses white space and control characters in ref names, so a branch never has them.
const REF_CHARACTERS = { test: /^[^\s\p{Cc}]*$/u, says: "without spaces or control characters" };
export const branchSchema = boundedText("branch", LIMITS.refMaxLength, REF_CHARACTERS);
export const baseRefSchema = boundedText("base_ref", LIMITS.refMaxLength, REF_CHARACTERS);

/** Trimmed; the result (what is sent) must be 1 to 255 characters. */
export const pauseReasonSchema = z
  .string({ error: `pause reason must be 1 to ${LIMITS.pauseReasonMaxLength} characters` })
  .trim()
  .pipe(boundedText("pause reason", LIMITS.pauseReasonMaxLength));

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
