import type { Logger } from "../../../logger.js";
import { Repo } from "../../../repo.js";
import type { GateCheckRecord, GateStore, WorkItem } from "../../../store/index.js";
import type { WorkRunner } from "../../../work/runner.js";
import type { GateGitHub, GateRun } from "./github.js";
import { passedRun } from "./runs.js";

/** The durable work's kind of a gate's check run to make (src/work), keyed by gateKey. */
export const GATE_CHECK_KIND = "gate-check";
/** The durable work's kind of a held gate's completion, keyed by gateKey. */
export const GATE_COMPLETE_KIND = "gate-complete";
/** A claim (of a check run to make, or of a held gate to complete) unrenewed this long is taken over. */
export const GATE_CLAIM_LEASE_MS = 60_000;
/** Gates a replica makes or completes at once (each kind). */
const GATE_CONCURRENCY = 8;

/**
 * After GitHub refused a gate's check run or completion `attempts` times in a row: when to try again
 * (from `baseMs`, 5 s, doubling, at most 60 times it: 5 minutes).
 */
export function gateRetryDelayMs(attempts: number, baseMs = 5_000): number {
  return Math.min(60 * baseMs, baseMs * 2 ** Math.max(0, Math.min(attempts - 1, 10)));
}

/** A gate's work item's key: its repository, commit and check name. */
export function gateKey(repository: Repo, headSha: string, name: string): string {
  return `${repository.key} ${headSha.toLowerCase()} ${name}`;
}

/** A commit the gate reports on: a merge group's head, or a pull request's. */
export interface GateHead {
  repository: Repo;
  baseRef: string;
  headSha: string;
  pullNumber: number;
  kind: "group" | "pull";
}

/** The runner's part the gate uses (src/work/runner.ts). */
export type GateWork = Pick<
  WorkRunner,
  "register" | "resume" | "pause" | "schedule" | "scheduleClaimed" | "runNow"
>;

export interface GateChecksDeps {
  store: GateStore;
  github: GateGitHub;
  checkName: string;
  owner: string;
  now: () => Date;
  logger: Logger;
  work: GateWork;
  /** The clock of the gates' claims and retries: the real time (GitHub's), unless a test gives its own. */
  claimsNow?: () => Date;
  /** The retries' first delay (gateRetryDelayMs); default 5 s. */
  retryBaseMs?: number;
}

/**
 * The gate's check runs (docs/backends.md, "The gate"): each recorded once per commit across replicas
 * and redeliveries, its making a work item of kind `gate-check` (made claimed by the replica that heard
 * of it, run at once; made again after a backoff by any replica's runner when GitHub refused it; taken
 * over at its claim's lapse); a held one's completion a work item of kind `gate-complete`, done once.
 */
export class GateChecks {
  constructor(
    private readonly deps: GateChecksDeps,
    makeCheck: (item: WorkItem) => Promise<void>,
  ) {
    const common = {
      concurrency: GATE_CONCURRENCY,
      leaseMs: GATE_CLAIM_LEASE_MS,
      backoff: (attempts: number) => gateRetryDelayMs(attempts, deps.retryBaseMs),
      now: () => this.claimsNow(),
    };
    deps.work.register({
      ...common,
      kind: GATE_CHECK_KIND,
      run: async (item) => {
        await makeCheck(item);
        return null;
      },
    });
    deps.work.register({ ...common, kind: GATE_COMPLETE_KIND, run: (item) => this.completeItem(item) });
  }

  private claimsNow(): Date {
    return this.deps.claimsNow?.() ?? new Date();
  }

  /** This replica's runner makes and completes the gates left to it (lapsed, or due again), until `stop`. */
  start(): void {
    this.deps.work.resume(GATE_CHECK_KIND);
    this.deps.work.resume(GATE_COMPLETE_KIND);
  }

  async stop(): Promise<void> {
    await Promise.all([this.deps.work.pause(GATE_CHECK_KIND), this.deps.work.pause(GATE_COMPLETE_KIND)]);
  }

  /**
   * Makes the gate of a commit, claimed by this replica, and runs it at once (`made`: true when it was
   * made here, false when it failed: retried later); nothing when another replica or an earlier delivery
   * makes it now (its work item is claimed), or when its record says it was made.
   */
  async report(head: GateHead, name: string, before: (key: string) => void): Promise<boolean | null> {
    const { store, work } = this.deps;
    const kept = await store.getGateCheck(head.repository, head.headSha, name);
    if (kept && (kept.checkRunId !== null || kept.state !== "claimed")) return null;
    const item = gateCheckItem(head, name, this.claimsNow());
    before(item.key);
    const scheduled = await work.scheduleClaimed(item);
    return scheduled ? scheduled.run : null;
  }

  /** Records the gate's check run made on GitHub: held (`queued`) or done. Throws when GitHub refused. */
  async makeRun(head: GateHead, run: GateRun): Promise<GateCheckRecord> {
    const { store, github, now } = this.deps;
    const id = await github.createCheckRun(head.repository, { ...run, headSha: head.headSha });
    const state = run.status === "queued" ? "queued" : "success";
    await store.gateCheckReported(head.repository, head.headSha, run.name, id, state, now());
    return {
      repository: head.repository,
      headSha: head.headSha,
      name: run.name,
      branch: head.baseRef,
      kind: head.kind,
      pullNumber: head.pullNumber,
      checkRunId: id,
      state,
      createdAt: now(),
      attempts: 0,
    };
  }

  /**
   * Completes a held gate, once across replicas (a work item of kind `gate-complete`, made claimed here
   * and run at once): false when GitHub refused (it stays held, and any replica's runner completes it
   * after a backoff). A completion under way elsewhere is left to it; one waiting for its retry is run
   * now with `now` (a resume), left to its backoff otherwise (the sweep).
   */
  async complete(
    gate: GateCheckRecord,
    how: string | GateRun,
    retry: "now" | "later" = "now",
  ): Promise<boolean> {
    const { work, checkName } = this.deps;
    const run = typeof how === "string" ? passedRun(checkName, how) : how;
    const item = {
      kind: GATE_COMPLETE_KIND,
      key: gateKey(gate.repository, gate.headSha, gate.name),
      dueAt: this.claimsNow(),
      payload: { repository: gate.repository.fullName, headSha: gate.headSha, name: gate.name, run },
    };
    const made = await work.scheduleClaimed(item);
    if (made) return made.run;
    if (retry === "later") return true;
    await work.schedule({ ...item, when: "earlier" });
    return (await work.runNow(GATE_COMPLETE_KIND, item.key)) !== "failed";
  }

  /** A `gate-complete` item's run: GitHub told, then the gate marked done; throws when GitHub refused. */
  private async completeItem(item: WorkItem): Promise<null> {
    const { store, github, now, logger } = this.deps;
    const { repository, headSha, name, run = passedRun(this.deps.checkName, "Resumed") } = completion(item);
    const gate = await store.getGateCheck(repository, headSha, name);
    if (gate?.state !== "queued" || gate.checkRunId === null) return null;
    try {
      await github.updateCheckRun(repository, gate.checkRunId, run);
    } catch (error) {
      logger.error(
        { err: error, repository: repository.fullName, sha: headSha },
        "could not complete a held gate check: Yardmaster tries again shortly",
      );
      throw error;
    }
    await store.gateCompleted(repository, headSha, name, now());
    return null;
  }
}

/** A `gate-check` item: what its run makes the check run of. */
export function gateCheckItem(head: GateHead, name: string, dueAt: Date) {
  const { repository, headSha, baseRef, kind, pullNumber } = head;
  return {
    kind: GATE_CHECK_KIND,
    key: gateKey(repository, headSha, name),
    dueAt,
    payload: { repository: repository.fullName, headSha, name, branch: baseRef, kind, pullNumber },
  };
}

/** The head and check name a `gate-check` item names. */
export function checkOf(item: WorkItem): { head: GateHead; name: string } {
  const p = item.payload as { repository: string; headSha: string; name: string; branch: string };
  const q = item.payload as { kind: "group" | "pull"; pullNumber: number };
  const repository = Repo.from(p.repository);
  return {
    head: { repository, headSha: p.headSha, baseRef: p.branch, kind: q.kind, pullNumber: q.pullNumber },
    name: p.name,
  };
}

function completion(item: WorkItem) {
  // No run: an older version's completion (migration 043), which said "Resumed".
  const p = item.payload as { repository: string; headSha: string; name: string; run?: GateRun };
  return { repository: Repo.from(p.repository), headSha: p.headSha, name: p.name, run: p.run };
}
