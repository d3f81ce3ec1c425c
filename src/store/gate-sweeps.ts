import type { Selectable } from "kysely";
import { Repo } from "../repo.js";
import type { Tables } from "./database.js";
import { int, readTime, type StoreContext, time } from "./query-helpers.js";

// The gate's sweep (GitHubGate.sweep, src/backends/github/gate/gate.ts): held gates whose branch is no
// longer paused (a resume that stopped half way), old rows. Claims whose replica died, and check runs or
// completions GitHub refused, are durable work's (kinds `gate-check`, `gate-complete`).

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
  /** How often an older version's GitHub refused its check run or completion (now: the work item's). */
  attempts: number;
}

export interface GateSweepStore {
  /** Held gates whose branch has no pause any more, oldest first. */
  unpausedHeldGates(limit: number): Promise<GateCheckRecord[]>;
  /** Deletes completed gates and pull requests' gates made before `before`: how many. */
  deleteOldGateChecks(before: Date): Promise<number>;
}

export function gateSweeps(ctx: StoreContext): GateSweepStore {
  const { db } = ctx;
  return {
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
    attempts: Number(row.attempts ?? 0),
  };
}
