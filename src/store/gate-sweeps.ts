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
}

export interface GateSweepStore {
  /**
   * Takes over, for `owner`, every claim without a check run taken before `staleBefore` (its replica
   * died, or could not record the check run): each to the one caller whose statement moved it.
   */
  takeStaleGateClaims(owner: string, at: Date, staleBefore: Date): Promise<GateCheckRecord[]>;
  /** Held gates whose branch has no pause any more, oldest first. */
  unpausedHeldGates(limit: number): Promise<GateCheckRecord[]>;
  /** Deletes completed gates and pull requests' gates made before `before`: how many. */
  deleteOldGateChecks(before: Date): Promise<number>;
}

export function gateSweeps(ctx: StoreContext): GateSweepStore {
  const { db } = ctx;
  return {
    async takeStaleGateClaims(owner, at, staleBefore) {
      const rows = await db
        .updateTable("gate_checks")
        .set({ claimed_by: owner, claimed_at: time(at) })
        .where("state", "=", "claimed")
        .where("check_run_id", "is", null)
        .where(sql<string>`coalesce(claimed_at, created_at)`, "<", time(staleBefore))
        .returningAll()
        .execute();
      return rows
        .sort((a, b) => Number(a.position) - Number(b.position) || a.pull_number - b.pull_number)
        .map(toCheck);
    },

    async unpausedHeldGates(limit) {
      const rows = await db
        .selectFrom("gate_checks")
        .selectAll()
        .where("state", "=", "queued")
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
  };
}
