// Request validation with FastAPI/pydantic-style errors: 422 {"detail": [{loc, msg, type, input, ctx}]}.

import { EVENT_TYPES, type EventType, type ValidationErrorItem } from "./types.js";

export const OWNER_PATTERN = "^[a-zA-Z0-9\\-]+$";
export const REPOSITORY_PATTERN = "^[\\w\\-\\.]+$";
/** Largest pull request number of the interface (it is a float in the schema: 2^63 rounded). */
export const MAX_PULL_NUMBER = 9223372036854776000n;

type Location = "path" | "query" | "body";

export class ValidationErrors {
  readonly items: ValidationErrorItem[] = [];

  add(item: ValidationErrorItem): void {
    this.items.push(item);
  }

  get empty(): boolean {
    return this.items.length === 0;
  }

  missing(loc: (string | number)[]): void {
    this.add({ loc, msg: "Field required", type: "missing", input: null });
  }

  /** Checks a string's length and pattern; true when valid. */
  string(
    loc: [Location, ...(string | number)[]],
    value: unknown,
    rules: { min?: number; max?: number; pattern?: string },
  ): value is string {
    if (typeof value !== "string") {
      this.add({ loc, msg: "Input should be a valid string", type: "string_type", input: value });
      return false;
    }
    const length = [...value].length;
    if (rules.min !== undefined && length < rules.min) {
      this.add({
        loc,
        msg: `String should have at least ${rules.min} character${rules.min === 1 ? "" : "s"}`,
        type: "string_too_short",
        input: value,
        ctx: { min_length: rules.min },
      });
      return false;
    }
    if (rules.max !== undefined && length > rules.max) {
      this.add({
        loc,
        msg: `String should have at most ${rules.max} character${rules.max === 1 ? "" : "s"}`,
        type: "string_too_long",
        input: value,
        ctx: { max_length: rules.max },
      });
      return false;
    }
    if (rules.pattern !== undefined && !new RegExp(rules.pattern).test(value)) {
      this.add({
        loc,
        msg: `String should match pattern '${rules.pattern}'`,
        type: "string_pattern_mismatch",
        input: value,
        ctx: { pattern: rules.pattern },
      });
      return false;
    }
    return true;
  }

  /**
   * Parses an integer given as text (path or query). Returns the number, `Infinity` for a valid number
   * too large to be exact in JavaScript (it can match nothing), or null when invalid.
   */
  integer(loc: (string | number)[], raw: string, rules: { min: bigint; max: bigint }): number | null {
    if (!/^\s*[+-]?\d+\s*$/.test(raw)) {
      this.add({
        loc,
        msg: "Input should be a valid integer, unable to parse string as an integer",
        type: "int_parsing",
        input: raw,
      });
      return null;
    }
    const value = BigInt(raw.trim());
    if (value < rules.min) {
      this.add({
        loc,
        msg: `Input should be greater than or equal to ${rules.min}`,
        type: "greater_than_equal",
        input: raw,
        ctx: { ge: Number(rules.min) },
      });
      return null;
    }
    if (value > rules.max) {
      this.add({
        loc,
        msg: `Input should be less than or equal to ${rules.max}`,
        type: "less_than_equal",
        input: raw,
        ctx: { le: Number(rules.max) },
      });
      return null;
    }
    return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.POSITIVE_INFINITY : Number(value);
  }

  /** Parses a date-time; epoch ms, or null when invalid. */
  dateTime(loc: (string | number)[], raw: string): number | null {
    const value = parseDateTime(raw);
    if (value === null) {
      this.add({
        loc,
        msg: "Input should be a valid datetime or date, invalid character in year",
        type: "datetime_from_date_parsing",
        input: raw,
        ctx: { error: "invalid character in year" },
      });
    }
    return value;
  }

  eventType(loc: (string | number)[], raw: string): EventType | null {
    if ((EVENT_TYPES as readonly string[]).includes(raw)) return raw as EventType;
    const expected = EVENT_TYPES.map((type) => `'${type}'`);
    this.add({
      loc,
      msg: `Input should be ${expected.slice(0, -1).join(", ")} or ${expected[expected.length - 1]}`,
      type: "enum",
      input: raw,
      ctx: { expected: `${expected.slice(0, -1).join(", ")} or ${expected[expected.length - 1]}` },
    });
    return null;
  }
}

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * Parses an ISO 8601 date-time (or a date, or Unix seconds), like pydantic does for a datetime.
 * A date-time without an offset is taken as UTC. Returns epoch ms or null.
 */
export function parseDateTime(raw: string): number | null {
  const text = raw.trim();
  if (/^\d{1,11}(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const match = DATE_TIME.exec(text);
  if (match === null) return null;
  const [, y, mo, d, h = "0", mi = "0", s = "0", fraction = "", offset = "Z"] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysInMonth) return null;
  const ms = fraction === "" ? 0 : Math.floor(Number(`0.${fraction}`) * 1000);
  let value = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  if (offset !== "Z" && offset !== "z") {
    const sign = offset.startsWith("-") ? -1 : 1;
    const digits = offset.slice(1).replace(":", "");
    const offsetHours = Number(digits.slice(0, 2));
    const offsetMinutes = Number(digits.slice(2) || "0");
    if (offsetHours > 23 || offsetMinutes > 59) return null;
    value -= sign * (offsetHours * 60 + offsetMinutes) * 60_000;
  }
  return value;
}

export function validatePathRepository(errors: ValidationErrors, owner: string, repository: string): void {
  errors.string(["path", "owner"], owner, { min: 1, max: 40, pattern: OWNER_PATTERN });
  errors.string(["path", "repository"], repository, { min: 1, max: 100, pattern: REPOSITORY_PATTERN });
}
