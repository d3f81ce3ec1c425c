import { type ColumnDataType, type Expression, type Kysely, sql } from "kysely";

/**
 * Schema migrations, numbered and ordered, written once with Kysely's schema builder for both dialects.
 * migrate.ts applies the ones not yet recorded in `schema_migrations` when the store opens. Never edit
 * a released migration: add the next one (a database made by an earlier release is recognised by the
 * versions it recorded, whichever code recorded them).
 *
 * Conventions: times are ISO-8601 UTC text in SQLite (they sort as text) and `timestamptz` in
 * PostgreSQL; JSON is text in SQLite and `jsonb` in PostgreSQL; `*_key` columns hold `Repo#key`, which
 * uniqueness and lookups use, next to the name as given.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  /** Runs inside the migration transaction; `t` holds the column types that differ between dialects. */
  up(db: Kysely<unknown>, t: ColumnTypes): Promise<void>;
}

/** The only column types the dialects spell differently; everything else is written once. */
export interface ColumnTypes {
  readonly dialect: "sqlite" | "postgres";
  readonly time: DataType;
  readonly json: DataType;
  /** A 64-bit integer: SQLite's INTEGER already is one. */
  readonly int8: DataType;
  /** A list of strings: JSON text in SQLite, `text[]` in PostgreSQL. */
  readonly textList: DataType;
}
type DataType = ColumnDataType | Expression<unknown>;

export function columnTypes(dialect: "sqlite" | "postgres"): ColumnTypes {
  return dialect === "sqlite"
    ? { dialect, time: "text", json: "text", int8: "integer", textList: "text" }
    : { dialect, time: "timestamptz", json: "jsonb", int8: "bigint", textList: sql`text[]` };
}
