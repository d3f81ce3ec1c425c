import { z } from "zod";

/**
 * The kinds of value a setting takes. Values arrive from the environment as strings, where an empty
 * string counts as unset; each kind says what it turns an unset variable into.
 */

/** Unset stays undefined; a set value must pass `schema`. */
export function optional<T extends z.ZodType>(schema: T) {
  return { schema: z.preprocess((v) => (v === "" ? undefined : v), schema.optional()) };
}

/** Unset takes `fallback` (which .env.example shows too); a set value must pass `schema`. */
export function defaulted<T extends z.ZodType>(fallback: string, schema: T) {
  return {
    default: fallback,
    schema: z.preprocess((v) => (v === undefined || v === "" ? fallback : v), schema),
  };
}

/** An http(s) URL, without its trailing slashes. */
export const httpUrl = z
  .url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" })
  .transform((u) => u.replace(/\/+$/, ""));

export const port = z.coerce
  .number({ error: "must be a number" })
  .int({ error: "must be a whole number" })
  .min(0, { error: "must be from 0 to 65535" })
  .max(65535, { error: "must be from 0 to 65535" });

/** A duration in seconds: positive, at most `max`. */
export const seconds = (max: number) =>
  z.coerce
    .number({ error: "must be a number" })
    .positive({ error: "must be a positive number of seconds" })
    .max(max, { error: `must be at most ${max}` });

/** A number of `unit` (minutes, hours): positive, at most `max`. */
export const positiveAtMost = (max: number, unit: string) =>
  z.coerce
    .number({ error: "must be a number" })
    .positive({ error: `must be a positive number of ${unit}` })
    .max(max, { error: `must be at most ${max}` });

/** An IANA time zone this Node.js knows ("Europe/Paris", "UTC"). */
export const timeZone = z.string().refine(
  (zone) => {
    try {
      new Intl.DateTimeFormat("en", { timeZone: zone });
      return zone !== "";
    } catch {
      return false;
    }
  },
  { error: 'must be an IANA time zone, e.g. "Europe/Paris" or "UTC"' },
);
/** "true" or "false" (any case), as a boolean. */
export const flag = z
  .string()
  .regex(/^(true|false)$/i, { error: "must be true or false" })
  .transform((v) => v.toLowerCase() === "true");
