import { type Selectable, sql } from "kysely";
import { Repo } from "../repo.js";
import type { Tables } from "./database.js";
import { int, readTime, type StoreContext, time } from "./query-helpers.js";

// The gate's sweep (GitHubGate.sweep, src/backends/github/gate/gate.ts): claims whose replica died
// before the check run was made, held gates whose branch is no longer paused (a resume that stopped half
// way), old rows.

/** A gate check reported (or being reported) on a commit. */
export interface GateCheckRecord {
  repository: Repo;
  headSha: string;
  name: string;
  branch: string;
  /** A merge group's head commit, or a pull request's. */
  kind: "group" | "pull";
  pullNumber: number;
  /** Null until the check run is made. */
  checkRunId: number | null;
  /** claimed: being made; queued: held by a pause; success: done. */
  state: "claimed" | "queued" | "success";
  createdAt: Date;
  /** How often GitHub refused its check run or completion (the backoff's count). */
  attempts: number;
}

export interface GateSweepStore {
  /**
   * Takes over, for `owner`, every claim without a check run taken before `staleBefore` (its replica
   * died, or could not record the check run), or whose check run GitHub refused and is due again
   * (`retry_at` at or before `at`): each to the one caller whose statement moved it.
   */
  takeStaleGateClaims(owner: string, at: Date, staleBefore: Date): Promise<GateCheckRecord[]>;
  /**
   * Held gates whose branch has no pause any more, oldest first; with `at`, only those not waiting to be
   * completed again later (a completion GitHub refused, `deferGateCheck`).
   */
  unpausedHeldGates(limit: number, at?: Date): Promise<GateCheckRecord[]>;
  /**
   * GitHub refused a gate's check run (a claim without one: kept) or its completion (a held gate: its
   * completion claim given back): counted, and made again no sooner than `retryAt`.
   */
  deferGateCheck(repository: Repo, headSha: string, name: string, retryAt: Date): Promise<void>;
  /** Deletes completed gates and pull requests' gates made before `before`: how many. */
  deleteOldGateChecks(before: Date): Promise<number>;
}

export function gateSweeps(ctx: StoreContext): GateSweepStore {
  const { db } = ctx;
  return {
    async takeStaleGateClaims(owner, at, staleBefore) {
      const rows = await db
        .updateTable("gate_checks")
        .set({ claimed_by: owner, claimed_at: time(at), retry_at: null })
        .where("state", "=", "claimed")
        .where("check_run_id", "is", null)
        .where((eb) =>
          eb.or([
            eb.and([
              eb("retry_at", "is", null),
              eb(sql<string>`coalesce(claimed_at, created_at)`, "<", time(staleBefore)),
            ]),
            eb("retry_at", "<=", time(at)),
          ]),
        )
        .returningAll()
        .execute();
      return rows
        .sort((a, b) => Number(a.position) - Number(b.position) || a.pull_number - b.pull_number)
        .map(toCheck);
    },

    async unpausedHeldGates(limit, at) {
      const rows = await db
        .selectFrom("gate_checks")
        .selectAll()
        .where("state", "=", "queued")
        .$if(at !== undefined, (q) =>
          q.where((eb) => eb.or([eb("retry_at", "is", null), eb("retry_at", "<=", time(at ?? new Date(0)))])),
        )
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom("gate_pauses")
                .select("gate_pauses.branch")
                .whereRef("gate_pauses.repository_key", "=", "gate_checks.repository_key")
                .whereRef("gate_pauses.branch", "=", "gate_checks.branch"),
            ),
          ),
        )
        .orderBy("repository_key")
        .orderBy("position")
        .orderBy("pull_number")
        .limit(limit)
        .execute();
      return rows.map(toCheck);
    },

    async deferGateCheck(repository, headSha, name, retryAt) {
      await db
        .updateTable("gate_checks")
        .set((eb) => ({ attempts: eb("attempts", "+", 1), retry_at: time(retryAt), completing_at: null }))
        .where("repository_key", "=", repository.key)
        .where("head_sha", "=", headSha.toLowerCase())
        .where("check_name", "=", name)
        .where((eb) =>
          eb.or([
            eb.and([eb("state", "=", "claimed"), eb("check_run_id", "is", null)]),
            eb("state", "=", "queued"),
          ]),
        )
        .execute();
    },

    async deleteOldGateChecks(before) {
      const result = await db
        .deleteFrom("gate_checks")
        .where("created_at", "<", time(before))
        .where((eb) => eb.or([eb("state", "=", "success"), eb("kind", "=", "pull")]))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export function toCheck(row: Selectable<Tables["gate_checks"]>): GateCheckRecord {
  return {
    repository: Repo.from(row.repository),
    headSha: row.head_sha,
    name: row.check_name,
    branch: row.branch,
    kind: row.kind,
    pullNumber: Number(row.pull_number),
    checkRunId: row.check_run_id === null ? null : int(row.check_run_id),
    state: row.state,
    createdAt: readTime(row.created_at),
    attempts: Number(row.attempts ?? 0),
  };
}
