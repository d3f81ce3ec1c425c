import { z } from "zod";

/**
 * What the core accepts of a branch name and a pause reason, whatever the merge queue: the commands'
 * grammar and the Slack buttons check them before anything is called. Mergify's client checks the same
 * (its limits, src/backends/mergify/limits.ts, are built on these). Every schema's error message names
 * the field and the limit; lengths count characters (Unicode code points), not UTF-16 units.
 */

/** Git's refs, and Mergify's limit on them. */
export const REF_MAX_LENGTH = 255;
export const PAUSE_REASON_MAX_LENGTH = 255;

export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** 1 to `max` characters, and what `extra` asks. */
export function boundedText(
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

/** Git refuses white space and control characters in ref names, so a branch never has them. */
export const REF_CHARACTERS = { test: /^[^\s\p{Cc}]*$/u, says: "without spaces or control characters" };
export const branchSchema = boundedText("branch", REF_MAX_LENGTH, REF_CHARACTERS);

/** Trimmed; the result (what is sent) must be 1 to 255 characters. */
export const pauseReasonSchema = z
  .string({ error: `pause reason must be 1 to ${PAUSE_REASON_MAX_LENGTH} characters` })
  .trim()
  .pipe(boundedText("pause reason", PAUSE_REASON_MAX_LENGTH));
