import type { SetupLine } from "../core/setup-line.js";
import { fail, listed, pass, reason, warn } from "../core/setup-line.js";
import type { Settings } from "../settings/read-settings.js";

/** What the store is, for the check: where it is, and the schema versions recorded as applied. */
export interface DatabaseState {
  /** databaseWhere(): never a URL, which may carry a password. */
  where: string;
  /** null: an SQLite file not created yet (`npm start` creates it). */
  applied: number[] | null;
}

const CHECK = "database";

/** How the check names the database: "SQLite ./data/yardmaster.db" or "PostgreSQL" (never its URL). */
export function databaseWhere(database: Settings["database"]): string {
  return database.kind === "sqlite" ? `SQLite ${database.path}` : "PostgreSQL";
}

/** The database opens, and the migrations this build knows are applied (`npm start` applies them). */
export async function checkDatabase(
  open: () => Promise<DatabaseState>,
  known: readonly number[],
): Promise<SetupLine[]> {
  let state: DatabaseState;
  try {
    state = await open();
  } catch (error) {
    return [
      fail(
        CHECK,
        `cannot be opened (${reason(error)})`,
        "check DATABASE_URL: an SQLite path in a writable directory, or a PostgreSQL server that is up and accepts these credentials",
      ),
    ];
  }
  if (state.applied === null)
    return [
      pass(CHECK, `${state.where} does not exist yet: npm start creates it and applies the migrations`),
    ];
  const applied = new Set(state.applied);
  const pending = known.filter((v) => !applied.has(v));
  const unknown = state.applied.filter((v) => !known.includes(v));
  const lines: SetupLine[] = [];
  if (pending.length > 0)
    lines.push(
      warn(
        CHECK,
        `${state.where} opens; migration${pending.length > 1 ? "s" : ""} ${listed(pending.map(String))} not applied yet`,
        "npm start applies them (every replica waits for the one that does)",
      ),
    );
  if (unknown.length > 0)
    lines.push(
      warn(
        CHECK,
        `${state.where} has migration${unknown.length > 1 ? "s" : ""} ${listed(unknown.map(String))}, which this version does not know: a newer Yardmaster migrated it`,
        'this version runs on it (migrations only add: docs/operations.md, "Upgrades"); finish the rollout so that every replica runs the newer one',
      ),
    );
  if (lines.length === 0)
    lines.push(pass(CHECK, `${state.where} opens; its migrations are current (${known.length})`));
  return lines;
}
