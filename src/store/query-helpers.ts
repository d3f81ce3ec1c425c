import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Database, Tables } from "./database.js";

/** Pruning runs at most this often per store instance (driven by the `now` callers pass). */
export const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

/**
 * What every concern's queries share (each concern's file: its interface, its records, its queries):
 * the database, the values SQLite and PostgreSQL keep differently, and the pruning clock of the store
 * instance. Every statement is one both dialects accept; the few values they keep differently go through
 * `DialectValues`, and the conversions they share (times, JSON, 64-bit integers) through the functions
 * below.
 */
export interface StoreContext {
  readonly database: Database;
  readonly db: Kysely<Tables>;
  readonly kind: "sqlite" | "postgres";
  readonly v: DialectValues;
  /**
   * Runs `prune` (removing a table's old rows) when this store instance has not done so for `interval`,
   * as of `now` (the caller's clock). It is marked as done before it runs, so concurrent callers do not
   * repeat it.
   */
  pruneIfDue(table: PruneKey, now: Date, prune: () => Promise<unknown>, interval?: number): Promise<void>;
}

/** What is pruned on its own clock: a table, or one scope of the once-claims (`once_claims:<scope>`). */
export type PruneKey = keyof Tables | `once_claims:${string}`;

export function storeContext(database: Database): StoreContext {
  /** When each table was last pruned by this instance (ms). */
  const lastPrune = new Map<PruneKey, number>();
  return {
    database,
    db: database.db,
    kind: database.kind,
    v: database.kind === "sqlite" ? SQLITE : POSTGRES,
    async pruneIfDue(table, now, prune, interval = PRUNE_INTERVAL_MS) {
      const last = lastPrune.get(table);
      if (last !== undefined && now.getTime() - last < interval) return;
      lastPrune.set(table, now.getTime());
      await prune();
    },
  };
}

// Dialect values: what SQLite and PostgreSQL keep differently (the migrations' ColumnTypes).

export interface DialectValues {
  /** A JSON column as read: PostgreSQL's jsonb comes back parsed, SQLite's text does not. */
  readJson(value: unknown): unknown;
  /** A list of strings: text[] in PostgreSQL (pg writes an array as one), JSON text in SQLite. */
  writeList(list: string[]): string[] | string;
  readList(value: string[] | string): string[];
  /**
   * A column to order by, compared byte by byte as SQLite always does: PostgreSQL's default collation
   * may follow the locale (and sort "Acme" after "acme" on one machine, before it on another).
   */
  bytewise(column: string): RawBuilder<unknown>;
}

const SQLITE: DialectValues = {
  readJson: (value) => JSON.parse(value as string),
  writeList: (list) => JSON.stringify(list),
  readList: (value) => JSON.parse(value as string) as string[],
  bytewise: (column) => sql.ref(column),
};

const POSTGRES: DialectValues = {
  readJson: (value) => value,
  writeList: (list) => list,
  readList: (value) => value as string[],
  bytewise: (column) => sql`${sql.ref(column)} COLLATE "C"`,
};

// Conversions both dialects share.

/**
 * A time as written: ISO-8601 UTC with milliseconds, which SQLite keeps as text (and which sorts as
 * text) and PostgreSQL parses into timestamptz. Throws RangeError on an invalid Date.
 */
export function time(date: Date): string {
  return date.toISOString();
}

/** The UTC day (`YYYY-MM-DD`, as stats days and digest weeks are kept) `ms` before `now`. */
export function dayBefore(now: Date, ms: number): string {
  return new Date(now.getTime() - ms).toISOString().slice(0, 10);
}

/** A time as read: pg's Date or SQLite's text. */
export function readTime(value: Date | string): Date {
  return new Date(value);
}

/** A time that may be absent, as read. */
export function maybeTime(value: Date | string | null): Date | null {
  return value === null ? null : readTime(value);
}

export function json(value: unknown): string {
  return JSON.stringify(value ?? null);
}

/** A 64-bit integer as read: pg hands bigint back as a string, SQLite as a number. */
export function int(value: number | string): number {
  return Number(value);
}

/**
 * `column` is one of the rows `candidates` chose (a `SELECT column … LIMIT n`, locked `FOR UPDATE SKIP
 * LOCKED` on PostgreSQL): the WHERE of a claim's UPDATE. PostgreSQL may run an `IN (subquery)` more than
 * once while updating, each time skipping other rows, and so claim more rows than the limit;
 * `= ANY(ARRAY(subquery))` runs it once.
 */
export function chosenBy(
  kind: "sqlite" | "postgres",
  column: string,
  candidates: unknown,
): RawBuilder<boolean> {
  return kind === "postgres"
    ? sql<boolean>`${sql.ref(column)} = ANY(ARRAY(${candidates}))`
    : sql<boolean>`${sql.ref(column)} IN (${candidates})`;
}
