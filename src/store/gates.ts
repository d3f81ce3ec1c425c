import { randomUUID } from "node:crypto";
import { type Selectable, sql } from "kysely";
import { Repo } from "../repo.js";
import type { Tables } from "./database.js";
import { type GateCheckRecord, type GateSweepStore, gateSweeps, toCheck } from "./gate-sweeps.js";
import { int, readTime, type StoreContext, time } from "./query-helpers.js";

// The gate check of GitHub's merge queue (src/backends/github/gate/): each branch's pause as Yardmaster
// keeps it, each gate check claimed once per repository, commit and check name before its check run is
// made (so no replica or redelivery makes two) and completed once, and the entries a pause held.

/** A branch's pause, kept by Yardmaster (GitHub's merge queue has none of its own). */
export interface GatePauseRecord {
  repository: Repo;
  branch: string;
  /** Stays the same while the pause lasts (a new reason included): the entries it held are filed under it. */
  pauseId: string;
  reason: string;
  by: string;
  pausedAt: Date;
}

/** A pull request a pause held in a merge group, in the order the pause first held them. */
export interface GateHold {
  repository: Repo;
  branch: string;
  pauseId: string;
  pullNumber: number;
  pullHeadSha: string;
  /** GitHub removed it for its check timeout while the pause held it. */
  timedOut: boolean;
}

export interface GateStore extends GateSweepStore {
  getGatePause(repository: Repo, branch: string): Promise<GatePauseRecord | null>;
  /** Every branch's pause in force in the repository, by branch. */
  listGatePauses(repository: Repo): Promise<GatePauseRecord[]>;
  /**
   * Pauses the branch, or changes the reason of the pause in force (its id, author and start stay), in
   * one statement: `updated` says a pause was in force (of two pauses at once, one is the update).
   */
  putGatePause(pause: Omit<GatePauseRecord, "pauseId">): Promise<GatePauseRecord & { updated: boolean }>;
  /** Ends the pause: the record to the one caller that removed it, null to any other (or if none). */
  takeGatePause(repository: Repo, branch: string): Promise<GatePauseRecord | null>;
  /** Claims a gate check before its check run is made: false when one was claimed already. */
  /**
   * Claims a gate check before its check run is made: false when one was claimed already, unless that
   * claim has no check run and was taken before `staleBefore` (its replica died): then it is taken over.
   */
  claimGateCheck(
    check: Omit<GateCheckRecord, "checkRunId" | "state" | "createdAt" | "attempts"> & {
      owner: string;
      at: Date;
      /** Absent: a claim is never taken over. */
      staleBefore?: Date;
    },
  ): Promise<boolean>;
  /** Gives a claim up (its check run could not be made): a redelivery may claim it again. */
  releaseGateCheck(repository: Repo, headSha: string, name: string): Promise<void>;
  /** The check run is made: held (`queued`) or done (`success`). */
  gateCheckReported(
    repository: Repo,
    headSha: string,
    name: string,
    checkRunId: number,
    state: "queued" | "success",
    at: Date,
  ): Promise<void>;
  /**
   * Claims the completion of a held gate (until GitHub is told: `gateCompleted`, or given up with
   * `releaseGateCompletion`): its check run id to the one caller that claimed it, else null. A claim
   * taken before `staleBefore` whose gate is still held may be taken again.
   */
  claimGateCompletion(
    repository: Repo,
    headSha: string,
    name: string,
    at: Date,
    /** Absent: a claimed completion is never taken again. */
    staleBefore?: Date,
  ): Promise<number | null>;
  /** GitHub was told the held gate succeeded: it is done. */
  gateCompleted(repository: Repo, headSha: string, name: string, at: Date): Promise<void>;
  /** GitHub could not be told: the held gate may be completed again (the sweep retries it). */
  releaseGateCompletion(repository: Repo, headSha: string, name: string): Promise<void>;
  /** The held gates of a branch, oldest first. */
  pendingGateChecks(repository: Repo, branch: string): Promise<GateCheckRecord[]>;
  /** Remembers a pull request a pause held (the first time only: its place stays the first one). */
  holdGateEntry(hold: Omit<GateHold, "timedOut"> & { at: Date }): Promise<void>;
  /** GitHub removed a held pull request for its check timeout: false when the pause did not hold it. */
  markGateTimedOut(repository: Repo, branch: string, pauseId: string, pullNumber: number): Promise<boolean>;
  /**
   * GitHub removed a pull request for its check timeout during the pause: remembered as timed out at the
   * head it had then, in its place if the pause held it already, else after the others.
   */
  holdTimedOutEntry(hold: Omit<GateHold, "timedOut"> & { at: Date }): Promise<void>;
  /** The entries a pause held, in their first order, removed from the store. */
  takeGateHolds(repository: Repo, branch: string, pauseId: string): Promise<GateHold[]>;
}

export type { GateCheckRecord } from "./gate-sweeps.js";

export function kyselyGates(ctx: StoreContext): GateStore {
  return {
    ...gatePauses(ctx),
    ...gateChecks(ctx),
    ...gateCompletions(ctx),
    ...gateHolds(ctx),
    ...gateSweeps(ctx),
  };
}

/** The next place in a table's order of a repository's rows (ties, from a race, go by pull request). */
async function nextPosition(
  ctx: StoreContext,
  table: "gate_checks" | "gate_holds",
  repository: Repo,
): Promise<number> {
  const row = await ctx.db
    .selectFrom(table)
    .select(sql<number | string | null>`max(position)`.as("n"))
    .where("repository_key", "=", repository.key)
    .executeTakeFirst();
  return Number(row?.n ?? 0) + 1;
}

type PauseQueries = Pick<GateStore, "getGatePause" | "listGatePauses" | "putGatePause" | "takeGatePause">;

function gatePauses(ctx: StoreContext): PauseQueries {
  const { db } = ctx;
  return {
    async getGatePause(repository, branch) {
      const row = await db
        .selectFrom("gate_pauses")
        .selectAll()
        .where("repository_key", "=", repository.key)
        .where("branch", "=", branch)
        .executeTakeFirst();
      return row ? toPause(row) : null;
    },

    async listGatePauses(repository) {
      const rows = await db
        .selectFrom("gate_pauses")
        .selectAll()
        .where("repository_key", "=", repository.key)
        .orderBy("branch")
        .execute();
      return rows.map(toPause);
    },

    async putGatePause(p) {
      const pauseId = randomUUID();
      const row = await db
        .insertInto("gate_pauses")
        .values({
          repository_key: p.repository.key,
          branch: p.branch,
          repository: p.repository.fullName,
          pause_id: pauseId,
          reason: p.reason,
          paused_by: p.by,
          paused_at: time(p.pausedAt),
        })
        .onConflict((oc) => oc.columns(["repository_key", "branch"]).doUpdateSet({ reason: p.reason }))
        .returningAll()
        .executeTakeFirstOrThrow();
      return { ...toPause(row), updated: row.pause_id !== pauseId };
    },

    async takeGatePause(repository, branch) {
      const row = await db
        .deleteFrom("gate_pauses")
        .where("repository_key", "=", repository.key)
        .where("branch", "=", branch)
        .returningAll()
        .executeTakeFirst();
      return row ? toPause(row) : null;
    },
  };
}

type CheckQueries = Pick<
  GateStore,
  "claimGateCheck" | "releaseGateCheck" | "gateCheckReported" | "pendingGateChecks"
>;

function gateChecks(ctx: StoreContext): CheckQueries {
  const { db } = ctx;
  return {
    async claimGateCheck(c) {
      const row = await db
        .insertInto("gate_checks")
        .values({
          repository_key: c.repository.key,
          head_sha: c.headSha.toLowerCase(),
          check_name: c.name,
          repository: c.repository.fullName,
          branch: c.branch,
          kind: c.kind,
          pull_number: c.pullNumber,
          position: await nextPosition(ctx, "gate_checks", c.repository),
          check_run_id: null,
          state: "claimed",
          claimed_by: c.owner,
          created_at: time(c.at),
          completed_at: null,
          claimed_at: time(c.at),
          completing_at: null,
        })
        // A claim without a check run whose replica died may be taken over (in this one statement).
        .onConflict((oc) =>
          oc
            .columns(["repository_key", "head_sha", "check_name"])
            .doUpdateSet({ claimed_by: c.owner, claimed_at: time(c.at) })
            .where("gate_checks.state", "=", "claimed")
            .where("gate_checks.check_run_id", "is", null)
            .where(
              sql<string>`coalesce(gate_checks.claimed_at, gate_checks.created_at)`,
              "<",
              time(c.staleBefore ?? new Date(0)),
            ),
        )
        .returning("head_sha")
        .executeTakeFirst();
      return row !== undefined;
    },

    async releaseGateCheck(repository, headSha, name) {
      await db
        .deleteFrom("gate_checks")
        .where("repository_key", "=", repository.key)
        .where("head_sha", "=", headSha.toLowerCase())
        .where("check_name", "=", name)
        .where("check_run_id", "is", null)
        .execute();
    },

    async gateCheckReported(repository, headSha, name, checkRunId, state, at) {
      await db
        .updateTable("gate_checks")
        .set({ check_run_id: checkRunId, state, ...(state === "success" ? { completed_at: time(at) } : {}) })
        .where("repository_key", "=", repository.key)
        .where("head_sha", "=", headSha.toLowerCase())
        .where("check_name", "=", name)
        .execute();
    },

    async pendingGateChecks(repository, branch) {
      const rows = await db
        .selectFrom("gate_checks")
        .selectAll()
        .where("repository_key", "=", repository.key)
        .where("branch", "=", branch)
        .where("state", "=", "queued")
        .orderBy("position")
        .orderBy("pull_number")
        .execute();
      return rows.map(toCheck);
    },
  };
}

type CompletionQueries = Pick<GateStore, "claimGateCompletion" | "gateCompleted" | "releaseGateCompletion">;

function gateCompletions(ctx: StoreContext): CompletionQueries {
  const { db } = ctx;
  const gate = (repository: Repo, headSha: string, name: string) =>
    db
      .updateTable("gate_checks")
      .where("repository_key", "=", repository.key)
      .where("head_sha", "=", headSha.toLowerCase())
      .where("check_name", "=", name)
      .where("state", "=", "queued");
  return {
    async claimGateCompletion(repository, headSha, name, at, staleBefore) {
      const row = await gate(repository, headSha, name)
        .set({ completing_at: time(at) })
        .where((eb) =>
          eb.or([
            eb("completing_at", "is", null),
            eb("completing_at", "<", time(staleBefore ?? new Date(0))),
          ]),
        )
        .returning("check_run_id")
        .executeTakeFirst();
      return row?.check_run_id === undefined || row.check_run_id === null ? null : int(row.check_run_id);
    },

    async gateCompleted(repository, headSha, name, at) {
      await gate(repository, headSha, name)
        .set({ state: "success", completed_at: time(at), completing_at: null })
        .execute();
    },

    async releaseGateCompletion(repository, headSha, name) {
      await gate(repository, headSha, name).set({ completing_at: null }).execute();
    },
  };
}

type HoldQueries = Pick<
  GateStore,
  "holdGateEntry" | "markGateTimedOut" | "holdTimedOutEntry" | "takeGateHolds"
>;

function gateHolds(ctx: StoreContext): HoldQueries {
  const { db } = ctx;
  return {
    async holdGateEntry(h) {
      await db
        .insertInto("gate_holds")
        .values({
          repository_key: h.repository.key,
          branch: h.branch,
          pause_id: h.pauseId,
          pull_number: h.pullNumber,
          pull_head_sha: h.pullHeadSha,
          position: await nextPosition(ctx, "gate_holds", h.repository),
          held_at: time(h.at),
          timed_out: 0,
        })
        .onConflict((oc) => oc.columns(["repository_key", "branch", "pause_id", "pull_number"]).doNothing())
        .execute();
    },

    async markGateTimedOut(repository, branch, pauseId, pullNumber) {
      const result = await db
        .updateTable("gate_holds")
        .set({ timed_out: 1 })
        .where("repository_key", "=", repository.key)
        .where("branch", "=", branch)
        .where("pause_id", "=", pauseId)
        .where("pull_number", "=", pullNumber)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async holdTimedOutEntry(h) {
      await db
        .insertInto("gate_holds")
        .values({
          repository_key: h.repository.key,
          branch: h.branch,
          pause_id: h.pauseId,
          pull_number: h.pullNumber,
          pull_head_sha: h.pullHeadSha,
          position: await nextPosition(ctx, "gate_holds", h.repository),
          held_at: time(h.at),
          timed_out: 1,
        })
        .onConflict((oc) =>
          oc
            .columns(["repository_key", "branch", "pause_id", "pull_number"])
            .doUpdateSet({ timed_out: 1, pull_head_sha: h.pullHeadSha }),
        )
        .execute();
    },

    async takeGateHolds(repository, branch, pauseId) {
      const rows = await db
        .deleteFrom("gate_holds")
        .where("repository_key", "=", repository.key)
        .where("branch", "=", branch)
        .where("pause_id", "=", pauseId)
        .returningAll()
        .execute();
      return rows
        .sort((a, b) => Number(a.position) - Number(b.position) || a.pull_number - b.pull_number)
        .map((r) => ({
          repository: repository,
          branch: r.branch,
          pauseId: r.pause_id,
          pullNumber: Number(r.pull_number),
          pullHeadSha: r.pull_head_sha,
          timedOut: Number(r.timed_out) === 1,
        }));
    },
  };
}

function toPause(row: Selectable<Tables["gate_pauses"]>): GatePauseRecord {
  return {
    repository: Repo.from(row.repository),
    branch: row.branch,
    pauseId: row.pause_id,
    reason: row.reason,
    by: row.paused_by,
    pausedAt: readTime(row.paused_at),
  };
}
