import { randomUUID } from "node:crypto";
import { type Selectable, sql } from "kysely";
import { Repo } from "../repo.js";
import type { Tables } from "./database.js";
import { type GateCheckRecord, type GateSweepStore, gateSweeps, toCheck } from "./gate-sweeps.js";
import { json, maybeTime, readTime, type StoreContext, time } from "./query-helpers.js";

// The gate check of GitHub's merge queue (src/backends/github/gate/): each branch's pause as Yardmaster
// keeps it, each gate check's record per repository, commit and check name (made once: its claim, lapse
// and retries are durable work, kinds `gate-check` and `gate-complete`), and the entries a pause held.

/** A branch's pause, kept by Yardmaster (GitHub's merge queue has none of its own). */
export interface GatePauseRecord {
  repository: Repo;
  branch: string;
  /** Stays the same while the pause lasts (a new reason included): the entries it held are filed under it. */
  pauseId: string;
  reason: string;
  by: string;
  pausedAt: Date;
  /** A drain rather than a pause: what was queued when it began (null: a pause). */
  drain: GateDrain | null;
  /** When nothing queued before the drain was left (null: draining still, or a pause). */
  drainedAt: Date | null;
  /** Labels whose pull requests pass while the pause holds the rest (lower case; empty: none). */
  except: string[];
}

/** A drain: a new id each time one begins (even over a pause in force), who began it, and what was queued. */
export interface GateDrain {
  id: string;
  by: string;
  startedAt: Date;
  /** The entries of the branch's queue when the drain began, in its order, as GitHub said when each entered. */
  entries: { number: number; enteredAt: string | null }[];
}

/** What a new pause (or drain) of a branch says; a pause in force keeps its id, author and start. */
export interface GatePauseInput {
  repository: Repo;
  branch: string;
  reason: string;
  by: string;
  pausedAt: Date;
  /** A drain (its id made by the caller); absent or null: a pause (a drain in force becomes one). */
  drain?: GateDrain | null;
  /** Absent: none. */
  except?: readonly string[];
}

/** A pull request an admin let through a branch's pause, with the others its merge group may hold. */
export interface GatePass {
  repository: Repo;
  branch: string;
  pauseId: string;
  pullNumber: number;
  /** The same for every update of the pass (a new one for each pause). */
  passId: string;
  /** Every pull request its merge group may hold to pass, the named one included, in the queue's order. */
  pulls: number[];
  by: string;
  at: Date;
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
  putGatePause(pause: GatePauseInput): Promise<GatePauseRecord & { updated: boolean }>;
  /**
   * Ends the pause: the record to the one caller that removed it, null to any other (or if none). The
   * pull requests let through it are forgotten.
   */
  takeGatePause(repository: Repo, branch: string): Promise<GatePauseRecord | null>;
  /**
   * Marks the drain `drainId` of the branch drained, once: the record to the one caller that marked it,
   * null when it was marked already, or another drain (or a pause, or nothing) is in force.
   */
  markGateDrained(
    repository: Repo,
    branch: string,
    drainId: string,
    at: Date,
  ): Promise<GatePauseRecord | null>;
  /** Every branch draining still (not drained yet), of every repository. */
  listDrainingGatePauses(): Promise<GatePauseRecord[]>;
  /**
   * Lets a pull request through the pause `pauseId`: a new pass, or the pull request's pass of that pause
   * with these pulls (its id kept). The pass as kept.
   */
  putGatePass(pass: Omit<GatePass, "passId">): Promise<GatePass>;
  getGatePass(
    repository: Repo,
    branch: string,
    pauseId: string,
    pullNumber: number,
  ): Promise<GatePass | null>;
  /**
   * The gate's record of a commit (its claim, its retries and lapses are durable work: kinds `gate-check`,
   * `gate-complete`): made if there is none (state `claimed`, no check run), else the one kept.
   */
  recordGateCheck(
    check: Omit<GateCheckRecord, "checkRunId" | "state" | "createdAt" | "attempts"> & {
      owner: string;
      at: Date;
    },
  ): Promise<GateCheckRecord>;
  /** The gate's record of a commit, or null. */
  getGateCheck(repository: Repo, headSha: string, name: string): Promise<GateCheckRecord | null>;
  /** The check run is made: held (`queued`) or done (`success`). */
  gateCheckReported(
    repository: Repo,
    headSha: string,
    name: string,
    checkRunId: number,
    state: "queued" | "success",
    at: Date,
  ): Promise<void>;
  /** GitHub was told the held gate succeeded: it is done. */
  gateCompleted(repository: Repo, headSha: string, name: string, at: Date): Promise<void>;
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
  /**
   * A held gate is to be decided again (GitHub could not be read for it, or its branch's pause changed):
   * every held merge group's gate of the branch, or only the one of a commit, or those made for a pull request.
   */
  reconsiderGates(
    repository: Repo,
    branch: string,
    which?: { headSha?: string; pull?: number },
  ): Promise<void>;
  /**
   * Up to `limit` held gates flagged to be decided again (of one repository and branch, or of any), oldest
   * first. Who decides them is durable work's (kind `gate-reconsider`, one item per branch).
   */
  gatesToReconsider(limit: number, where?: { repository: Repo; branch: string }): Promise<GateCheckRecord[]>;
  /** The flags of these held gates of a repository are taken off (they are being decided again). */
  reconsidered(repository: Repo, headShas: readonly string[]): Promise<void>;
}

export type { GateCheckRecord } from "./gate-sweeps.js";

export function kyselyGates(ctx: StoreContext): GateStore {
  return {
    ...gatePauses(ctx),
    ...gateChecks(ctx),
    ...gateCompletions(ctx),
    ...gateHolds(ctx),
    ...gateSweeps(ctx),
    ...gateDrains(ctx),
    ...gatePasses(ctx),
    ...gateReconsiders(ctx),
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
      return row ? toPause(ctx, row) : null;
    },

    async listGatePauses(repository) {
      const rows = await db
        .selectFrom("gate_pauses")
        .selectAll()
        .where("repository_key", "=", repository.key)
        .orderBy("branch")
        .execute();
      return rows.map((row) => toPause(ctx, row));
    },

    async putGatePause(p) {
      const pauseId = randomUUID();
      // What a new pause says replaces what the one in force said: its reason, drain and exemptions.
      const says = {
        reason: p.reason,
        drain_id: p.drain?.id ?? null,
        drain: p.drain ? json(drainJson(p.drain)) : null,
        drained_at: null,
        except_labels: p.except?.length ? json([...p.except]) : null,
      };
      const row = await db
        .insertInto("gate_pauses")
        .values({
          repository_key: p.repository.key,
          branch: p.branch,
          repository: p.repository.fullName,
          pause_id: pauseId,
          paused_by: p.by,
          paused_at: time(p.pausedAt),
          ...says,
        })
        .onConflict((oc) => oc.columns(["repository_key", "branch"]).doUpdateSet(says))
        .returningAll()
        .executeTakeFirstOrThrow();
      return { ...toPause(ctx, row), updated: row.pause_id !== pauseId };
    },

    async takeGatePause(repository, branch) {
      const row = await db
        .deleteFrom("gate_pauses")
        .where("repository_key", "=", repository.key)
        .where("branch", "=", branch)
        .returningAll()
        .executeTakeFirst();
      if (!row) return null;
      await db
        .deleteFrom("gate_passes")
        .where("repository_key", "=", repository.key)
        .where("branch", "=", branch)
        .where("pause_id", "=", row.pause_id)
        .execute();
      return toPause(ctx, row);
    },
  };
}

type CheckQueries = Pick<
  GateStore,
  "recordGateCheck" | "getGateCheck" | "gateCheckReported" | "pendingGateChecks"
>;

function gateChecks(ctx: StoreContext): CheckQueries {
  const { db } = ctx;
  const getGateCheck: GateStore["getGateCheck"] = async (repository, headSha, name) => {
    const row = await db
      .selectFrom("gate_checks")
      .selectAll()
      .where("repository_key", "=", repository.key)
      .where("head_sha", "=", headSha.toLowerCase())
      .where("check_name", "=", name)
      .executeTakeFirst();
    return row ? toCheck(row) : null;
  };
  return {
    getGateCheck,

    async recordGateCheck(c) {
      await db
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
          // Kept for a rolling upgrade's older replicas (their sweep reads the claim's columns).
          claimed_by: c.owner,
          created_at: time(c.at),
          completed_at: null,
          claimed_at: time(c.at),
          completing_at: null,
        })
        .onConflict((oc) => oc.columns(["repository_key", "head_sha", "check_name"]).doNothing())
        .execute();
      const kept = await getGateCheck(c.repository, c.headSha, c.name);
      if (!kept) throw new Error("the gate check's record is gone");
      return kept;
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

type CompletionQueries = Pick<GateStore, "gateCompleted">;

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
    async gateCompleted(repository, headSha, name, at) {
      await gate(repository, headSha, name)
        .set({ state: "success", completed_at: time(at), completing_at: null })
        .execute();
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

function drainJson(drain: GateDrain): unknown {
  return { by: drain.by, startedAt: time(drain.startedAt), entries: drain.entries };
}

function toPause(ctx: StoreContext, row: Selectable<Tables["gate_pauses"]>): GatePauseRecord {
  const kept = row.drain_id && row.drain ? (ctx.v.readJson(row.drain) as StoredDrain) : null;
  const labels = row.except_labels ? (ctx.v.readJson(row.except_labels) as string[]) : [];
  return {
    repository: Repo.from(row.repository),
    branch: row.branch,
    pauseId: row.pause_id,
    reason: row.reason,
    by: row.paused_by,
    pausedAt: readTime(row.paused_at),
    drain:
      kept && row.drain_id
        ? { id: row.drain_id, by: kept.by, startedAt: readTime(kept.startedAt), entries: kept.entries }
        : null,
    drainedAt: maybeTime(row.drained_at ?? null),
    except: labels,
  };
}

interface StoredDrain {
  by: string;
  startedAt: string;
  entries: { number: number; enteredAt: string | null }[];
}

type DrainQueries = Pick<GateStore, "markGateDrained" | "listDrainingGatePauses">;

function gateDrains(ctx: StoreContext): DrainQueries {
  const { db } = ctx;
  return {
    async markGateDrained(repository, branch, drainId, at) {
      const row = await db
        .updateTable("gate_pauses")
        .set({ drained_at: time(at) })
        .where("repository_key", "=", repository.key)
        .where("branch", "=", branch)
        .where("drain_id", "=", drainId)
        .where("drained_at", "is", null)
        .returningAll()
        .executeTakeFirst();
      return row ? toPause(ctx, row) : null;
    },

    async listDrainingGatePauses() {
      const rows = await db
        .selectFrom("gate_pauses")
        .selectAll()
        .where("drain_id", "is not", null)
        .where("drained_at", "is", null)
        .orderBy("repository_key")
        .orderBy("branch")
        .execute();
      return rows.map((row) => toPause(ctx, row));
    },
  };
}

type PassQueries = Pick<GateStore, "putGatePass" | "getGatePass">;

function gatePasses(ctx: StoreContext): PassQueries {
  const { db } = ctx;
  const toPass = (row: Selectable<Tables["gate_passes"]>, repository: Repo): GatePass => ({
    repository,
    branch: row.branch,
    pauseId: row.pause_id,
    pullNumber: Number(row.pull_number),
    passId: row.pass_id,
    pulls: ctx.v.readJson(row.pulls) as number[],
    by: row.passed_by,
    at: readTime(row.passed_at),
  });
  return {
    async putGatePass(p) {
      const says = { pulls: json(p.pulls), passed_by: p.by, passed_at: time(p.at) };
      const row = await db
        .insertInto("gate_passes")
        .values({
          repository_key: p.repository.key,
          branch: p.branch,
          pause_id: p.pauseId,
          pull_number: p.pullNumber,
          pass_id: randomUUID(),
          ...says,
        })
        .onConflict((oc) =>
          oc.columns(["repository_key", "branch", "pause_id", "pull_number"]).doUpdateSet(says),
        )
        .returningAll()
        .executeTakeFirstOrThrow();
      return toPass(row, p.repository);
    },

    async getGatePass(repository, branch, pauseId, pullNumber) {
      const row = await db
        .selectFrom("gate_passes")
        .selectAll()
        .where("repository_key", "=", repository.key)
        .where("branch", "=", branch)
        .where("pause_id", "=", pauseId)
        .where("pull_number", "=", pullNumber)
        .executeTakeFirst();
      return row ? toPass(row, repository) : null;
    },
  };
}

type ReconsiderQueries = Pick<GateStore, "reconsiderGates" | "gatesToReconsider" | "reconsidered">;

function gateReconsiders(ctx: StoreContext): ReconsiderQueries {
  const { db } = ctx;
  return {
    async reconsiderGates(repository, branch, which = {}) {
      const { headSha, pull } = which;
      await db
        .updateTable("gate_checks")
        .set({ reconsider: 1 })
        .where("repository_key", "=", repository.key)
        .where("branch", "=", branch)
        .where("state", "=", "queued")
        .where("kind", "=", "group")
        .$if(headSha !== undefined, (q) => q.where("head_sha", "=", (headSha ?? "").toLowerCase()))
        .$if(pull !== undefined, (q) => q.where("pull_number", "=", pull ?? 0))
        .execute();
    },

    async gatesToReconsider(limit, where) {
      const rows = await db
        .selectFrom("gate_checks")
        .selectAll()
        .where("reconsider", "=", 1)
        .where("state", "=", "queued")
        .$if(where !== undefined, (q) =>
          q
            .where("repository_key", "=", where?.repository.key ?? "")
            .where("branch", "=", where?.branch ?? ""),
        )
        .orderBy("position")
        .orderBy("pull_number")
        .limit(limit)
        .execute();
      return rows.map(toCheck);
    },

    async reconsidered(repository, headShas) {
      if (headShas.length === 0) return;
      await db
        .updateTable("gate_checks")
        .set({ reconsider: 0 })
        .where("repository_key", "=", repository.key)
        .where(
          "head_sha",
          "in",
          headShas.map((h) => h.toLowerCase()),
        )
        .execute();
    },
  };
}
