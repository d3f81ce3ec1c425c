import type { Logger } from "../../../logger.js";
import type { Repo } from "../../../repo.js";
import type { GateCheckRecord, GateStore } from "../../../store/gates.js";
import type { GateGitHub, GateRun } from "./github.js";
import { passedRun } from "./runs.js";

/** A claim (of a check run to make, or of a held gate to complete) older than this may be taken over. */
const GATE_CLAIM_LEASE_MS = 60_000;

/** After GitHub refused a gate's check run or completion `attempts` times before: when to try again. */
export function gateRetryDelayMs(attempts: number): number {
  return Math.min(5 * 60_000, 5_000 * 2 ** Math.min(attempts, 10));
}

/** A commit the gate reports on: a merge group's head, or a pull request's. */
export interface GateHead {
  repository: Repo;
  baseRef: string;
  headSha: string;
  pullNumber: number;
  kind: "group" | "pull";
}

interface GateChecksDeps {
  store: GateStore;
  github: GateGitHub;
  checkName: string;
  owner: string;
  now: () => Date;
  logger: Logger;
}

/**
 * The gate's check runs (docs/backends.md, "The gate"): each claimed in the store before it is made, so
 * one per commit across replicas and redeliveries; made again after a backoff when GitHub refused it;
 * a held one completed once.
 */
export class GateChecks {
  constructor(private readonly deps: GateChecksDeps) {}

  /**
   * Claims the gate of a commit, then makes its check run; null when another replica or an earlier
   * delivery claimed it, or when GitHub refused the check run: the claim is kept then, and the sweep
   * makes it again later (GitHub never redelivers a webhook by itself).
   */
  async report(head: GateHead, run: GateRun): Promise<GateCheckRecord | null> {
    const { store, now } = this.deps;
    const key = { repository: head.repository, headSha: head.headSha, name: run.name };
    const claimed = await store.claimGateCheck({
      ...key,
      branch: head.baseRef,
      kind: head.kind,
      pullNumber: head.pullNumber,
      owner: this.deps.owner,
      at: now(),
      staleBefore: this.staleBefore(),
    });
    if (!claimed) return null;
    return this.makeRun(head, run, 0).catch((error: unknown) => {
      this.deps.logger.warn(
        { err: error, repository: head.repository.fullName, sha: head.headSha },
        "GitHub refused the gate check: Yardmaster makes it again shortly",
      );
      return null;
    });
  }

  staleBefore(): Date {
    return new Date(this.deps.now().getTime() - GATE_CLAIM_LEASE_MS);
  }

  /**
   * Makes the check run of a gate this replica claimed; a failure keeps the claim, to be made again by the
   * sweep after a backoff (`attempts`: GitHub's refusals so far), and throws.
   */
  async makeRun(head: GateHead, run: GateRun, attempts: number): Promise<GateCheckRecord> {
    const { store, github, now } = this.deps;
    const key = { repository: head.repository, headSha: head.headSha, name: run.name };
    let id: number;
    try {
      id = await github.createCheckRun(head.repository, { ...run, headSha: head.headSha });
    } catch (error) {
      await this.defer(head.repository, head.headSha, run.name, attempts);
      throw error;
    }
    const state = run.status === "queued" ? "queued" : "success";
    await store.gateCheckReported(head.repository, head.headSha, run.name, id, state, now());
    return {
      ...key,
      branch: head.baseRef,
      kind: head.kind,
      pullNumber: head.pullNumber,
      checkRunId: id,
      state,
      createdAt: now(),
      attempts: 0,
    };
  }

  /** GitHub refused a gate's check run or completion: tried again after the backoff. */
  async defer(repository: Repo, headSha: string, name: string, attempts: number): Promise<void> {
    const retryAt = new Date(this.deps.now().getTime() + gateRetryDelayMs(attempts));
    await this.deps.store.deferGateCheck(repository, headSha, name, retryAt).catch(() => undefined);
  }

  /**
   * Completes a held gate, once across replicas: false when GitHub refused (it stays held, and the sweep
   * completes it again after a backoff).
   */
  async complete(gate: GateCheckRecord, how: string | GateRun): Promise<boolean> {
    const { store, github, now, checkName } = this.deps;
    const { repository, headSha, name } = gate;
    const id = await store.claimGateCompletion(repository, headSha, name, now(), this.staleBefore());
    if (id === null) return true;
    try {
      await github.updateCheckRun(repository, id, typeof how === "string" ? passedRun(checkName, how) : how);
    } catch (error) {
      await this.defer(repository, headSha, name, gate.attempts);
      this.deps.logger.error(
        { err: error, repository: repository.fullName, sha: headSha },
        "could not complete a held gate check: Yardmaster tries again shortly",
      );
      return false;
    }
    await store.gateCompleted(repository, headSha, name, now());
    return true;
  }
}
