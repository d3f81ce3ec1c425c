// The merge-queue engine: waiting pull requests are grouped into batches, batches run checks, pass and
// merge in order, or fail and are bisected to find the culprit. It is driven by the clock (ClockDriver):
// `nextDueAt()` tells when the next step is due, `runDue(at)` runs every step due by `at`.
//
// Rules:
// - A batch forms from the waiting pull requests of one queue (highest priority queue first) when
//   `batchSize` of them wait, or when the first has waited `batchMaxWaitMs`, and the train has fewer than
//   `speculativeChecks` batches. A formed batch starts its checks once every batch ahead is running or
//   has passed. Checks last `checksDurationMs`.
// - A batch whose checks pass merges when it is at the head of the train.
// - A failing batch of one pull request: it leaves with CHECKS_FAILED. A failing batch of several is
//   bisected: split in halves (sub-batches) checked independently; a failing half of several is split
//   again; at the end the culprits leave with CHECKS_FAILED and the rest merge. When a batch fails or
//   changes, the batches behind it are re-embarked (their checks restart).
// - While the repository is paused: running checks go on and failures are handled, but no batch forms,
//   starts (or restarts) checks, or merges. Unpausing resumes.

import { createHash, randomUUID } from "node:crypto";
import { checksAt, failedCheck, failingChecksOf } from "./checks.js";
import type { ClockDriver } from "./clock.js";
import * as events from "./event-factory.js";
import type { EventLog, NewLogEvent } from "./log.js";
import type {
  Batch,
  BranchQueue,
  CheckRun,
  EntryLocation,
  KnownPullRequest,
  QueueEntry,
  Repository,
  SubBatch,
} from "./model.js";
import { queueSize } from "./model.js";
import type { EngineOptions } from "./options.js";

const MAX_ITERATIONS = 10_000;

export class Engine implements ClockDriver {
  private seq = 0;

  constructor(
    readonly options: EngineOptions,
    private readonly log: EventLog,
    private readonly repositories: () => Iterable<Repository>,
  ) {}

  // ---- events ------------------------------------------------------------------------------------

  private emit(repo: Repository, event: NewLogEvent): void {
    this.log.append(repo.key, event);
  }

  private base(repo: Repository, at: number, trigger: string = events.TRIGGER_ENGINE) {
    return { repository: repo.fullName, at, trigger };
  }

  private batchContext(queue: BranchQueue, batch: Batch, run: { id: string; name: string }) {
    const index = queue.batches.indexOf(batch);
    return {
      batchId: run.id,
      batchName: run.name,
      scopes: scopesOf(batch.entries),
      parentBatchIds: queue.batches.slice(0, Math.max(0, index)).map((ahead) => ahead.id),
    };
  }

  private speculative(
    run: CheckRun,
    entries: QueueEntry[],
    conclusion: events.SpeculativeCheck["checks_conclusion"],
    unsuccessful: events.SpeculativeCheck["unsuccessful_checks"] = [],
  ): events.SpeculativeCheck {
    return events.speculativeCheck(run, entries, conclusion, unsuccessful);
  }

  // ---- entering and leaving ----------------------------------------------------------------------

  /** Puts a pull request in the waiting list of its base branch's queue. */
  enqueue(
    repo: Repository,
    pull: KnownPullRequest,
    queueName: string,
    at: number,
    trigger: string,
    sessionId: string = randomUUID(),
  ): QueueEntry {
    const queue = repo.queues.get(pull.baseRef);
    if (queue === undefined) throw new Error(`no merge queue for ${repo.fullName}@${pull.baseRef}`);
    this.seq += 1;
    const entry: QueueEntry = {
      pull,
      queueName,
      queuedAt: at,
      sessionId,
      seq: this.seq,
      priorityRuleName: "default",
      priorityAlias: "medium",
    };
    this.insertWaiting(queue, entry);
    repo.left.delete(pull.number);
    this.emit(repo, events.queueEnter(this.base(repo, at, trigger), entry));
    this.emit(
      repo,
      events.queueChange(this.base(repo, at, trigger), entry, queue.branch, queueName, queueSize(queue)),
    );
    return entry;
  }

  /** Adds an entry to a waiting list, keeping it ordered by queue priority then arrival. */
  insertWaiting(queue: BranchQueue, entry: QueueEntry): void {
    if (entry.seq > this.seq) this.seq = entry.seq;
    const rank = this.queueRank(entry.queueName);
    const index = queue.waiting.findIndex(
      (other) =>
        this.queueRank(other.queueName) > rank ||
        (this.queueRank(other.queueName) === rank && other.seq > entry.seq),
    );
    if (index === -1) queue.waiting.push(entry);
    else queue.waiting.splice(index, 0, entry);
  }

  nextSeq(): number {
    this.seq += 1;
    return this.seq;
  }

  private queueRank(name: string): number {
    const index = this.options.queues.indexOf(name);
    return index === -1 ? this.options.queues.length : index;
  }

  /**
   * Takes a queued pull request out of its queue: by hand (`dequeue`), or because it was merged without
   * the queue (`leave`: the merge queue's words and code for it, PR_MANUALLY_MERGED).
   */
  dequeue(
    repo: Repository,
    location: EntryLocation,
    at: number,
    trigger: string,
    leave: { reason: string; dequeueCode: string } = {
      reason: `Pull request #${location.entry.pull.number} has been manually dequeued`,
      dequeueCode: "PR_MANUALLY_DEQUEUED",
    },
  ): void {
    const { queue, entry, batch, subBatch } = location;
    let checks: ReturnType<typeof checksAt> = [];
    if (batch === null) {
      queue.waiting.splice(queue.waiting.indexOf(entry), 1);
    } else {
      const run: CheckRun | null = subBatch ?? (batch.phase === "bisecting" ? null : batch);
      const runEntries = subBatch?.entries ?? batch.entries;
      if (run !== null && run.startedAt !== null) {
        checks = checksAt(this.options, repo.fullName, run, runEntries, at);
        if (run.failedChecks === null) {
          const context = this.batchContext(queue, batch, subBatch ?? batch);
          this.emit(
            repo,
            events.checksEnd(
              this.base(repo, at, trigger),
              entry,
              context,
              this.speculative(run, runEntries, "cancelled"),
              {
                aborted: true,
                abortCode: "PR_DEQUEUED",
                abortReason: "The pull request has been manually dequeued",
                abortStatus: "DEFINITIVE",
              },
            ),
          );
        }
      }
      batch.entries = batch.entries.filter((candidate) => candidate !== entry);
      if (subBatch !== null) {
        subBatch.entries = subBatch.entries.filter((candidate) => candidate !== entry);
        if (subBatch.entries.length === 0 && batch.subBatches !== null) {
          batch.subBatches = batch.subBatches.filter((candidate) => candidate !== subBatch);
        }
      }
      if (batch.bisection !== null) {
        batch.bisection.culprits = batch.bisection.culprits.filter((candidate) => candidate !== entry);
      }
      if (batch.entries.length === 0) {
        this.reembarkBehind(repo, queue, batch, at, "PR_AHEAD_DEQUEUED", trigger);
        queue.batches.splice(queue.batches.indexOf(batch), 1);
      } else if (batch.phase === "running" || batch.phase === "passed") {
        this.reembark(
          repo,
          queue,
          batch,
          at,
          "PR_AHEAD_DEQUEUED",
          "a pull request of the batch was dequeued",
          trigger,
        );
        this.reembarkBehind(repo, queue, batch, at, "PR_AHEAD_DEQUEUED", trigger);
      }
    }
    this.leave(repo, queue, entry, at, trigger, {
      reason: leave.reason,
      merged: false,
      dequeueCode: leave.dequeueCode,
      checks,
      unsuccessfulChecks: [],
      batchId: batch?.id ?? null,
      scopes: entry.pull.scopes,
    });
    this.emit(
      repo,
      events.queueChange(
        this.base(repo, at, trigger),
        entry,
        queue.branch,
        entry.queueName,
        queueSize(queue),
      ),
    );
  }

  private leave(
    repo: Repository,
    queue: BranchQueue,
    entry: QueueEntry,
    at: number,
    trigger: string,
    details: events.LeaveDetails,
  ): void {
    this.emit(repo, events.queueLeave(this.base(repo, at, trigger), entry, details));
    repo.left.set(entry.pull.number, {
      queueName: entry.queueName,
      branch: queue.branch,
      merged: details.merged,
      leftAt: at,
      dequeueCode: details.dequeueCode,
    });
  }

  // ---- re-embarking --------------------------------------------------------------------------------

  /** Stops a batch's checks (aborted) and makes it wait to start again with its current entries. */
  private reembark(
    repo: Repository,
    queue: BranchQueue,
    batch: Batch,
    at: number,
    abortCode: string,
    why: string,
    trigger: string = events.TRIGGER_ENGINE,
  ): void {
    const runs: { run: CheckRun & { id: string; name: string }; entries: QueueEntry[] }[] = [];
    // Only runs whose checks are still going get an aborted checks_end.
    if (batch.phase === "running") runs.push({ run: batch, entries: batch.entries });
    if (batch.phase === "bisecting") {
      for (const sub of batch.subBatches ?? []) {
        if (sub.phase === "running") runs.push({ run: sub, entries: sub.entries });
      }
    }
    for (const { run, entries } of runs) {
      const context = this.batchContext(queue, batch, run);
      for (const entry of entries) {
        this.emit(
          repo,
          events.checksEnd(
            this.base(repo, at, trigger),
            entry,
            context,
            this.speculative(run, entries, "cancelled"),
            { aborted: true, abortCode, abortReason: why, abortStatus: "REEMBARKED" },
          ),
        );
      }
    }
    batch.phase = "pending";
    batch.subBatches = null;
    batch.bisection = null;
    resetRun(batch);
    batch.startReason = `Re-embarked: ${why}`;
  }

  /** Re-embarks every batch behind `from` (call it while `from` is still in the train). */
  private reembarkBehind(
    repo: Repository,
    queue: BranchQueue,
    from: Batch,
    at: number,
    abortCode: string,
    trigger: string = events.TRIGGER_ENGINE,
  ): void {
    const index = queue.batches.indexOf(from);
    if (index === -1) return;
    for (const batch of queue.batches.slice(index + 1)) {
      if (batch.phase === "pending") continue;
      this.reembark(repo, queue, batch, at, abortCode, "a batch ahead changed", trigger);
    }
  }

  // ---- the clock driver ----------------------------------------------------------------------------

  nextDueAt(): number | null {
    let next: number | null = null;
    const consider = (time: number | null) => {
      if (time !== null && (next === null || time < next)) next = time;
    };
    for (const repo of this.repositories()) {
      const paused = repo.pause !== null;
      for (const queue of repo.queues.values()) {
        for (const batch of queue.batches) {
          if (batch.phase === "running") consider(batch.checksEndAt);
          if (batch.phase === "bisecting") {
            for (const sub of batch.subBatches ?? []) if (sub.phase === "running") consider(sub.checksEndAt);
          }
        }
        if (!paused && queue.batches.length < this.options.speculativeChecks) {
          const first = queue.waiting[0];
          if (first !== undefined) consider(first.queuedAt + this.options.batchMaxWaitMs);
        }
      }
    }
    return next;
  }

  runDue(at: number): void {
    for (const repo of this.repositories()) {
      for (const queue of repo.queues.values()) this.step(repo, queue, at);
    }
  }

  private step(repo: Repository, queue: BranchQueue, at: number): void {
    for (let i = 0; i < MAX_ITERATIONS; i++) {
      const changed =
        this.finishDueChecks(repo, queue, at) ||
        this.mergeHead(repo, queue, at) ||
        this.startPending(repo, queue, at) ||
        this.formBatch(repo, queue, at);
      if (!changed) return;
    }
    throw new Error("merge-queue engine did not settle");
  }

  private finishDueChecks(repo: Repository, queue: BranchQueue, at: number): boolean {
    for (const batch of queue.batches) {
      if (batch.phase === "running" && batch.checksEndAt !== null && batch.checksEndAt <= at) {
        this.finishBatchChecks(repo, queue, batch, at);
        return true;
      }
      if (batch.phase === "bisecting") {
        for (const sub of batch.subBatches ?? []) {
          if (sub.phase === "running" && sub.checksEndAt !== null && sub.checksEndAt <= at) {
            this.finishSubBatchChecks(repo, queue, batch, sub, at);
            return true;
          }
        }
        const subs = batch.subBatches ?? [];
        if (subs.every((sub) => sub.phase === "passed" || sub.phase === "failed")) {
          this.resolveBisection(repo, queue, batch, at);
          return true;
        }
      }
    }
    return false;
  }

  private endRun(
    repo: Repository,
    queue: BranchQueue,
    batch: Batch,
    run: CheckRun & { id: string; name: string },
    entries: QueueEntry[],
    at: number,
  ): boolean {
    const failing = failingChecksOf(entries, this.options);
    run.failedChecks = failing;
    run.ciFinishedAt = at;
    const unsuccessful = failing.map((name) => failedCheck(this.options, repo.fullName, run, name));
    const conclusion = failing.length > 0 ? "failure" : "success";
    const context = this.batchContext(queue, batch, run);
    for (const entry of entries) {
      this.emit(
        repo,
        events.checksEnd(
          this.base(repo, at),
          entry,
          context,
          this.speculative(run, entries, conclusion, unsuccessful),
          {
            aborted: false,
            abortCode: null,
            abortReason: null,
            abortStatus: "DEFINITIVE",
          },
        ),
      );
    }
    return failing.length === 0;
  }

  private finishBatchChecks(repo: Repository, queue: BranchQueue, batch: Batch, at: number): void {
    const passed = this.endRun(repo, queue, batch, batch, batch.entries, at);
    if (passed) {
      batch.phase = "passed";
      return;
    }
    this.reembarkBehind(repo, queue, batch, at, "BATCH_AHEAD_FAILED");
    const [only] = batch.entries;
    if (batch.entries.length === 1 && only !== undefined) {
      queue.batches.splice(queue.batches.indexOf(batch), 1);
      this.failEntry(repo, queue, batch, batch, only, at);
      this.emit(
        repo,
        events.queueChange(this.base(repo, at), only, queue.branch, only.queueName, queueSize(queue)),
      );
      return;
    }
    batch.phase = "bisecting";
    batch.bisection = {
      sessionId: randomUUID(),
      originalNumbers: batch.entries.map((entry) => entry.pull.number),
      depth: 1,
      culprits: [],
    };
    batch.subBatches = this.split(batch, batch.entries);
    this.emit(
      repo,
      events.bisectionStart(this.base(repo, at), this.bisectionContext(queue, batch), {
        sizeBeforeSplit: batch.entries.length,
        subBatches: batch.subBatches.length,
        depth: 1,
      }),
    );
  }

  private failEntry(
    repo: Repository,
    queue: BranchQueue,
    batch: Batch,
    run: CheckRun,
    entry: QueueEntry,
    at: number,
  ): void {
    const checks = checksAt(this.options, repo.fullName, run, [entry], at);
    this.leave(repo, queue, entry, at, events.TRIGGER_ENGINE, {
      reason: `Pull request #${entry.pull.number} has been dequeued: checks failed`,
      merged: false,
      dequeueCode: "CHECKS_FAILED",
      checks,
      unsuccessfulChecks: checks.filter((check) => check.state === "failure"),
      batchId: batch.id,
      scopes: entry.pull.scopes,
    });
    passOnceFlakesAreSpent(entry.pull);
  }

  private split(batch: Batch, entries: QueueEntry[]): SubBatch[] {
    const half = Math.ceil(entries.length / 2);
    const parts = [entries.slice(0, half), entries.slice(half)].filter((part) => part.length > 0);
    const existing = batch.subBatches?.length ?? 0;
    return parts.map((part, index) => ({
      id: randomUUID(),
      name: `${batch.name} / sub-batch ${existing + index + 1}`,
      entries: part,
      phase: "pending",
      startedAt: null,
      checksEndAt: null,
      ciFinishedAt: null,
      queuePullNumber: null,
      inPlace: part.length === 1,
      failedChecks: null,
    }));
  }

  private bisectionContext(queue: BranchQueue, batch: Batch): events.BisectionContext {
    return {
      branch: queue.branch,
      queueName: batch.queueName,
      priorityRuleName: batch.entries[0]?.priorityRuleName ?? "default",
      originalNumbers: batch.bisection?.originalNumbers ?? batch.entries.map((entry) => entry.pull.number),
      sessionId: batch.bisection?.sessionId ?? batch.id,
      batchId: batch.id,
      batchName: batch.name,
    };
  }

  private finishSubBatchChecks(
    repo: Repository,
    queue: BranchQueue,
    batch: Batch,
    sub: SubBatch,
    at: number,
  ): void {
    const passed = this.endRun(repo, queue, batch, sub, sub.entries, at);
    if (passed) {
      sub.phase = "passed";
      return;
    }
    if (sub.entries.length <= 1) {
      sub.phase = "failed";
      return;
    }
    const bisection = batch.bisection;
    if (bisection === null || batch.subBatches === null) return;
    bisection.depth += 1;
    const halves = this.split(batch, sub.entries);
    const index = batch.subBatches.indexOf(sub);
    batch.subBatches.splice(index, 1, ...halves);
    this.emit(
      repo,
      events.bisectionStart(this.base(repo, at), this.bisectionContext(queue, batch), {
        sizeBeforeSplit: sub.entries.length,
        subBatches: halves.length,
        depth: bisection.depth,
      }),
    );
  }

  private resolveBisection(repo: Repository, queue: BranchQueue, batch: Batch, at: number): void {
    const subs = batch.subBatches ?? [];
    const culprits: { entry: QueueEntry; run: SubBatch }[] = [];
    for (const sub of subs) {
      if (sub.phase === "failed") for (const entry of sub.entries) culprits.push({ entry, run: sub });
    }
    const remaining = batch.entries.filter((entry) => !culprits.some((culprit) => culprit.entry === entry));
    this.emit(
      repo,
      events.bisectionEnd(this.base(repo, at), this.bisectionContext(queue, batch), {
        culprits: culprits.map(({ entry }) => entry.pull.number),
        remaining: remaining.map((entry) => entry.pull.number),
      }),
    );
    batch.entries = remaining;
    batch.subBatches = null;
    batch.bisection = null;
    batch.phase = "passed";
    batch.failedChecks = [];
    batch.ciFinishedAt = at;
    if (remaining.length === 0) queue.batches.splice(queue.batches.indexOf(batch), 1);
    for (const { entry, run } of culprits) this.failEntry(repo, queue, batch, run, entry, at);
    const last = culprits[culprits.length - 1]?.entry;
    if (last !== undefined) {
      this.emit(
        repo,
        events.queueChange(this.base(repo, at), last, queue.branch, last.queueName, queueSize(queue)),
      );
    }
  }

  private mergeHead(repo: Repository, queue: BranchQueue, at: number): boolean {
    const head = queue.batches[0];
    if (head === undefined || head.phase !== "passed" || repo.pause !== null) return false;
    queue.batches.shift();
    const checks = checksAt(this.options, repo.fullName, head, head.entries, at);
    for (const entry of head.entries) {
      const sha = createHash("sha1").update(`${repo.key}#${entry.pull.number}@${at}`).digest("hex");
      this.emit(repo, events.queueMerged(this.base(repo, at), entry, sha));
      this.leave(repo, queue, entry, at, events.TRIGGER_ENGINE, {
        reason: `Pull request #${entry.pull.number} has been merged automatically at ${sha}`,
        merged: true,
        dequeueCode: "PR_MERGED",
        checks,
        unsuccessfulChecks: [],
        batchId: head.id,
        scopes: entry.pull.scopes,
      });
    }
    const last = head.entries[head.entries.length - 1];
    if (last !== undefined) {
      this.emit(
        repo,
        events.queueChange(this.base(repo, at), last, queue.branch, last.queueName, queueSize(queue)),
      );
    }
    return true;
  }

  private startPending(repo: Repository, queue: BranchQueue, at: number): boolean {
    if (repo.pause !== null) return false;
    let changed = false;
    let aheadHealthy = true;
    for (const batch of queue.batches) {
      if (batch.phase === "pending" && aheadHealthy) {
        this.startRun(repo, queue, batch, batch, batch.entries, at, batch.startReason);
        batch.phase = "running";
        changed = true;
      } else if (batch.phase === "bisecting") {
        for (const sub of batch.subBatches ?? []) {
          if (sub.phase === "pending") {
            this.startRun(repo, queue, batch, sub, sub.entries, at, "Batch bisection: checking a sub-batch");
            sub.phase = "running";
            changed = true;
          }
        }
      }
      if (batch.phase !== "running" && batch.phase !== "passed") aheadHealthy = false;
    }
    return changed;
  }

  private startRun(
    repo: Repository,
    queue: BranchQueue,
    batch: Batch,
    run: CheckRun & { id: string; name: string },
    entries: QueueEntry[],
    at: number,
    reason: string,
  ): void {
    run.startedAt = at;
    run.checksEndAt = at + this.options.checksDurationMs;
    run.ciFinishedAt = null;
    run.failedChecks = null;
    run.inPlace = entries.length === 1;
    const [first] = entries;
    if (run.inPlace && first !== undefined) {
      run.queuePullNumber = first.pull.number;
    } else {
      repo.draftCounter += 1;
      run.queuePullNumber = repo.draftCounter;
    }
    if (run === batch) {
      const index = queue.batches.indexOf(batch);
      const ahead = index > 0 ? queue.batches[index - 1] : undefined;
      batch.previous = ahead === undefined ? null : { id: ahead.id, name: ahead.name };
    }
    const context = this.batchContext(queue, batch, run);
    for (const entry of entries) {
      this.emit(
        repo,
        events.checksStart(
          this.base(repo, at),
          entry,
          context,
          this.speculative(run, entries, "pending"),
          reason,
          batch.previous,
        ),
      );
    }
  }

  private formBatch(repo: Repository, queue: BranchQueue, at: number): boolean {
    if (repo.pause !== null || queue.batches.length >= this.options.speculativeChecks) return false;
    const first = queue.waiting[0];
    if (first === undefined) return false;
    const candidates = queue.waiting.filter((entry) => entry.queueName === first.queueName);
    const full = candidates.length >= this.options.batchSize;
    if (!full && at < first.queuedAt + this.options.batchMaxWaitMs) return false;
    const members = candidates.slice(0, this.options.batchSize);
    queue.waiting = queue.waiting.filter((entry) => !members.includes(entry));
    repo.batchCounter += 1;
    queue.batches.push({
      id: randomUUID(),
      name: `Batch ${repo.batchCounter}`,
      queueName: first.queueName,
      entries: members,
      phase: "pending",
      createdAt: at,
      subBatches: null,
      bisection: null,
      previous: null,
      startReason: full
        ? `Batch is full (${members.length}/${this.options.batchSize} pull requests)`
        : `Batch max wait time reached (${members.length}/${this.options.batchSize} pull requests)`,
      startedAt: null,
      checksEndAt: null,
      ciFinishedAt: null,
      queuePullNumber: null,
      inPlace: members.length === 1,
      failedChecks: null,
    });
    return true;
  }
}

function resetRun(run: CheckRun): void {
  run.startedAt = null;
  run.checksEndAt = null;
  run.ciFinishedAt = null;
  run.queuePullNumber = null;
  run.failedChecks = null;
}

export function scopesOf(entries: QueueEntry[]): string[] {
  const scopes: string[] = [];
  for (const entry of entries)
    for (const scope of entry.pull.scopes) if (!scopes.includes(scope)) scopes.push(scope);
  return scopes;
}

/**
 * A flaky check removed the pull request once more: once it was removed for it as often as it was set to,
 * its checks pass (a batch's failure it was part of does not count: the bisection finds it).
 */
function passOnceFlakesAreSpent(pull: KnownPullRequest): void {
  if (pull.checks !== "failure" || pull.failuresLeft === undefined || pull.failuresLeft === null) return;
  pull.failuresLeft -= 1;
  if (pull.failuresLeft > 0) return;
  pull.checks = "success";
  pull.failingCheck = null;
  pull.failuresLeft = null;
}
