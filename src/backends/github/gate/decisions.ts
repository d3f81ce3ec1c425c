import { CommandError, CommandErrorCode } from "../../../core/errors.js";
import type { Logger } from "../../../logger.js";
import type { Repo } from "../../../repo.js";
import type { GatePauseRecord, GateStore } from "../../../store/gates.js";
import { decideGate, decidesApart, type GateEntry, groupOf, queuedBefore } from "./decide.js";
import type { GateRun } from "./github.js";
import { heldRun } from "./runs.js";

/** A branch's queue by position (GitHub's `mergeQueue`); null where the branch has none. */
export type GateEntries = (
  repo: Repo,
  branch: string,
) => Promise<{ entries: GateEntry[]; complete: boolean } | null>;

/** A merge group's gate decided: pass or held, its check run, and whether to decide it again later. */
export interface Decided {
  pass: boolean;
  run: GateRun;
  /** GitHub could not be read, or did not list the group's pull request yet: the sweep decides it again. */
  undecided: boolean;
}

/** A held gate whose pull request GitHub does not list is decided again for this long after it was made. */
const UNLISTED_RETRY_MS = 5 * 60_000;

interface DecisionDeps {
  store: Pick<GateStore, "getGatePass">;
  checkName: string;
  logger: Logger;
  now: () => Date;
  entries?: GateEntries;
}

/**
 * The gate's reads for its decisions (decide.ts): the branch's queue from GitHub, each branch once per
 * pass, and the pull request let through, from the store.
 */
export class GateDecisions {
  constructor(private readonly deps: DecisionDeps) {}

  /** Reads each branch's queue once, for the decisions of one pass. */
  reads(): GateEntries {
    const read = this.deps.entries;
    const cache = new Map<string, ReturnType<GateEntries>>();
    return (repo, branch) => {
      if (!read) return Promise.resolve(null);
      const key = `${repo.key}\n${branch}`;
      const cached = cache.get(key) ?? read(repo, branch);
      cache.set(key, cached);
      return cached;
    };
  }

  /** The gate of the merge group made for `pullNumber` on a held branch. */
  async decide(
    pause: GatePauseRecord,
    at: { repository: Repo; branch: string; pullNumber: number; createdAt?: Date },
    reads: GateEntries = this.reads(),
  ): Promise<Decided> {
    const { store, checkName, logger, now } = this.deps;
    const pass = await store.getGatePass(at.repository, at.branch, pause.pauseId, at.pullNumber);
    const held: Decided = { pass: false, run: heldRun(checkName, pause), undecided: false };
    if (!decidesApart(pause, pass) || !this.deps.entries) return held;
    let read: Awaited<ReturnType<GateEntries>>;
    try {
      read = await reads(at.repository, at.branch);
    } catch (error) {
      logger.warn(
        { err: error, repository: at.repository.fullName, branch: at.branch, pull: at.pullNumber },
        "could not read GitHub's merge queue to decide a merge group's gate: held, and decided again shortly",
      );
      return { ...held, undecided: true };
    }
    const group = read ? groupOf(read.entries, at.pullNumber) : null;
    if (!group) {
      // GitHub may list a new entry a moment after it made its group; an old group's entry has left.
      const age = now().getTime() - (at.createdAt ?? now()).getTime();
      return { ...held, undecided: age < UNLISTED_RETRY_MS };
    }
    return { ...decideGate(checkName, pause, group, pass), undecided: false };
  }

  /** Whether what a held group was decided on changed since (another drain, exemptions, a pass for it). */
  async changed(before: GatePauseRecord, after: GatePauseRecord, pull: number): Promise<boolean> {
    if (after.pauseId !== before.pauseId || after.drain?.id !== before.drain?.id) return true;
    if (after.except.join("\n") !== before.except.join("\n")) return true;
    return (await this.deps.store.getGatePass(after.repository, after.branch, after.pauseId, pull)) !== null;
  }

  /**
   * How many entries queued before the drain the queue still holds (`left`: one GitHub just removed, not
   * counted); null when it cannot tell (GitHub listed only part of the queue). Throws when GitHub fails.
   * `reads`: the queue as read already for this decision (a drain just begun); absent: read from GitHub.
   */
  async earlierLeft(pause: GatePauseRecord, left?: number, reads?: GateEntries): Promise<number | null> {
    const { drain } = pause;
    const entries = reads ?? this.deps.entries;
    if (!drain || !entries) return null;
    const read = await entries(pause.repository, pause.branch);
    if (!read) return 0;
    const earlier = read.entries.filter((e) => e.number !== left && queuedBefore(drain, e)).length;
    return earlier === 0 && !read.complete ? null : earlier;
  }

  /** The pull requests the merge group of `pull` holds, in the queue's order; null when it is not queued. */
  async groupToLet(repo: Repo, branch: string, pull: number): Promise<number[] | null> {
    if (!this.deps.entries) {
      throw new CommandError(CommandErrorCode.Unavailable, {
        command: "let",
        detail: "letting a pull request through GitHub's merge queue",
      });
    }
    const read = await this.deps.entries(repo, branch);
    return (read ? groupOf(read.entries, pull) : null)?.map((e) => e.number) ?? null;
  }
}
