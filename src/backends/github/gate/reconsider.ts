import { Repo } from "../../../repo.js";
import type { GateCheckRecord, GateStore, WorkItem } from "../../../store/index.js";
import { GATE_CLAIM_LEASE_MS, type GateChecks, type GateWork, gateRetryDelayMs } from "./checks.js";
import type { GateDecisions } from "./decisions.js";
import { passedRun } from "./runs.js";

/** The durable work's kind of a branch's held gates to decide again, keyed by repository and branch. */
export const GATE_RECONSIDER_KIND = "gate-reconsider";
/** How many held gates one run decides again at most (more: it runs again at once). */
const BATCH = 100;

export interface GateReconsidersDeps {
  store: GateStore;
  checkName: string;
  work: GateWork;
  claimsNow: () => Date;
  retryBaseMs?: number;
}

type Branch = { repository: Repo; branch: string };

/**
 * Held gates decided again (docs/backends.md, "The gate"): flagged in their record (`reconsiderGates`),
 * then decided by one replica, a work item of kind `gate-reconsider` per branch asked for `earlier`
 * (its run at once where the flag was set, or by any replica's runner): those that pass now are
 * completed; those GitHub could not be read for (or whose pull request it does not list yet) stay
 * flagged, and the item is retried after a backoff (5 s, 10 s, then every 15 s).
 */
export class GateReconsiders {
  /** The gates the latest run here of each branch's item completed (its caller reads them once). */
  private readonly passed = new Map<string, GateCheckRecord[]>();

  constructor(
    private readonly deps: GateReconsidersDeps,
    private readonly decisions: GateDecisions,
    private readonly checks: GateChecks,
  ) {
    deps.work.register({
      kind: GATE_RECONSIDER_KIND,
      leaseMs: GATE_CLAIM_LEASE_MS,
      // As often as the sweep looked before (15 s at most): a pull request GitHub does not list yet is too.
      backoff: (attempts) =>
        Math.min(3 * (deps.retryBaseMs ?? 5_000), gateRetryDelayMs(attempts, deps.retryBaseMs)),
      now: () => deps.claimsNow(),
      run: (item) => this.run(item),
    });
  }

  /** Flags held gates of a branch (all, a commit's, a pull request's) and asks for their decision. */
  async flag(at: Branch, which?: { headSha?: string; pull?: number }): Promise<void> {
    await this.deps.store.reconsiderGates(at.repository, at.branch, which);
    await this.deps.work.schedule({ ...this.item(at), when: "earlier" });
  }

  /** Decides the branch's flagged gates here and now (unless another replica does): the gates completed. */
  async now(at: Branch): Promise<GateCheckRecord[]> {
    const key = this.item(at).key;
    await this.deps.work.runNow(GATE_RECONSIDER_KIND, key);
    const passed = this.passed.get(key) ?? [];
    this.passed.delete(key);
    return passed;
  }

  /** The sweep: a decision asked for every branch with flagged gates and none asked (an older replica's). */
  async sweep(): Promise<void> {
    const seen = new Set<string>();
    for (const gate of await this.deps.store.gatesToReconsider(BATCH)) {
      const item = this.item({ repository: gate.repository, branch: gate.branch });
      if (seen.has(item.key)) continue;
      seen.add(item.key);
      await this.deps.work.schedule({ ...item, when: "absent" });
    }
  }

  start(): void {
    this.deps.work.resume(GATE_RECONSIDER_KIND);
  }

  async stop(): Promise<void> {
    await this.deps.work.pause(GATE_RECONSIDER_KIND);
  }

  private item(at: Branch) {
    return {
      kind: GATE_RECONSIDER_KIND,
      key: `${at.repository.key} ${at.branch}`,
      dueAt: this.deps.claimsNow(),
      payload: { repository: at.repository.fullName, branch: at.branch },
    };
  }

  /** Decides the branch's flagged gates (flags taken off first: one set meanwhile is decided next run). */
  private async run(item: WorkItem): Promise<{ dueAt: Date } | null> {
    const { store, checkName } = this.deps;
    const p = item.payload as { repository: string; branch: string };
    const where = { repository: Repo.from(p.repository), branch: p.branch };
    const gates = await store.gatesToReconsider(BATCH, where);
    await store.reconsidered(
      where.repository,
      gates.map((g) => g.headSha),
    );
    const pause = await store.getGatePause(where.repository, where.branch);
    const reads = this.decisions.reads();
    const passed: GateCheckRecord[] = [];
    let undecided = false;
    for (const gate of gates) {
      const decided = pause ? await this.decisions.decide(pause, gate, reads) : null;
      if (pause && !decided?.pass) {
        if (decided?.undecided) {
          undecided = true;
          await store.reconsiderGates(gate.repository, gate.branch, { headSha: gate.headSha });
        }
        continue;
      }
      if (await this.checks.complete(gate, decided?.run ?? passedRun(checkName, "Resumed")))
        passed.push(gate);
    }
    this.passed.set(item.key, passed);
    if (undecided)
      throw new Error("held gates not decided (GitHub's queue unread, or a pull request not listed yet)");
    return gates.length >= BATCH ? { dueAt: this.deps.claimsNow() } : null;
  }
}
