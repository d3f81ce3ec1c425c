import type { SqliteDatabase, SqliteStatement } from "kysely";

/** The most prepared statements kept: every query text the store runs, its IN lists and multi-row inserts. */
export const MOST_STATEMENTS = 500;

/**
 * The SQLite database as Kysely's driver sees it, each statement prepared once per query text and kept
 * (the least recently used dropped beyond `most`): Kysely's driver prepares every query it runs, and
 * compiling the same text again costs more than running it (a quiet repository's read is two queries).
 * better-sqlite3 runs a statement synchronously to its end (`all`, `run`; nothing here streams), so a
 * kept one is never busy when it is used again; SQLite compiles it again by itself after a migration.
 */
export function preparedOnce(database: SqliteDatabase, most = MOST_STATEMENTS): SqliteDatabase {
  const kept = new Map<string, SqliteStatement>();
  return {
    close: () => {
      kept.clear();
      database.close();
    },
    prepare(sql) {
      const statement = kept.get(sql);
      if (statement) {
        // Most recently used last: the first is the one to drop.
        kept.delete(sql);
        kept.set(sql, statement);
        return statement;
      }
      const prepared = database.prepare(sql);
      kept.set(sql, prepared);
      if (kept.size > most) kept.delete(kept.keys().next().value as string);
      return prepared;
    },
  };
}
