import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics.js";
import type { ScheduleWork, WorkItem, WorkPayload, WorkStore } from "../store/index.js";
import { Completions, type CompletionTurn } from "./completions.js";

/** When an item runs next after a successful run (its payload merged into the kept one), or null: done. */
export type WorkNext = { dueAt: Date; payload?: WorkPayload } | null;

export interface WorkContext {
  signal: AbortSignal;
  renew(): Promise<boolean>;
  /**
   * Gives the item's turn to the next item of its kind: it goes on running, claimed and renewed, but no
   * longer counts against the kind's concurrency (what is left of it only waits, for an answer's write).
   */
  yieldTurn(): void;
}

/**
 * A kind of durable work (docs/architecture.md, "Durable work"): what runs one item, how many run at once
 * on a replica, how long a claim lasts unrenewed, and how long a failed item waits before its retry.
 */
export interface WorkKind {
  kind: string;
  /**
   * Runs one claimed item; throws when it failed (then it is retried with backoff). `signal` aborts when
   * the item is no longer this replica's (replaced, or its claim lapsed and was taken over); `renew`
   * renews the claim now, false when it is not this replica's any more (before an act that must not
   * be done twice).
   */
  run(item: WorkItem, context: WorkContext): Promise<WorkNext>;
  /** Before the items of one claim run (what they need read at once). */
  beforeBatch?(items: readonly WorkItem[]): Promise<void>;
  /** Items run at once on this replica (one claim takes at most this many); default 1. */
  concurrency?: number;
  /** A claim's length; renewed every third of it while the item runs. Default 60 s. */
  leaseMs?: number;
  /** Milliseconds before the retry of an item that failed `attempts` times in a row; default `backoff`. */
  backoff?: (attempts: number) => number;
  /**
   * Whether the kind's runs are completed together, in one write (completions.ts): for a kind with many
   * short runs at once (the reads of the repositories). A run's completion then waits until none of the
   * kind's runs is under way here, or half its concurrency wait. Default: each run is completed by itself.
   */
  completeTogether?: boolean;
  /**
   * The clock of the kind's due times and claims, when not the runner's: leases that follow the real
   * time (an outside service's retries do) while a test moves the runner's.
   */
  now?: () => Date;
  /**
   * The one item a recurring kind keeps (a pass every so often): made, unless there is one, each time
   * the kind is resumed, due at `dueAt()`; while the store refuses, made at the runner's next pass. Its
   * run returns when it is due next, so it is never done.
   */
  standing?: { key: string; dueAt(): Date };
}

/** Exponential backoff from 5 s, doubling per failure in a row, at most 10 minutes. */
export function backoff(attempts: number, baseMs = 5_000, capMs = 10 * 60_000): number {
  return Math.min(capMs, baseMs * 2 ** Math.max(0, Math.min(30, attempts - 1)));
}

export interface WorkRunnerDeps {
  store: WorkStore;
  /** This replica's name in claims. */
  owner: string;
  now: () => Date;
  logger: Logger;
  metrics?: Pick<Metrics, "workRuns" | "workFailing">;
  /** How often the runner looks for work scheduled by other replicas when none is due sooner; 30 s. */
  safetyMs?: number;
}

export interface DrainReport {
  claimed: number;
  ok: number;
  failed: number;
}

const DEFAULT_LEASE_MS = 60_000;

/**
 * The runner of durable work, one per replica. One timer, set for the earliest due item of any kind it
 * runs (the claim says when that is), brought forward when this replica schedules sooner work, and at
 * most `safetyMs` away (work other replicas schedule). Each pass claims, per kind, as many due items as
 * the kind may still run at once, and runs them: a claim is renewed while its item runs; a run that
 * fails is counted and retried after the kind's backoff, and never holds up the others.
 */
export class WorkRunner {
  private readonly kinds = new Map<string, WorkKind>();
  /** The kinds this runner claims by itself (resume); the others run only when drained. */
  private readonly active = new Set<string>();
  /** Each kind's items under way on this replica (waiting for a turn, or running). */
  private readonly running = new Map<string, Set<Promise<unknown>>>();
  /** Each kind's items holding a turn (at most its concurrency), and those waiting for one. */
  private readonly turns = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();
  /** The items under way here, by kind and key. */
  private readonly keys = new Set<string>();
  /** Kinds whose last claim took as many as it could: more may be due once some end. */
  private readonly saturated = new Set<string>();
  private readonly failing = new Map<string, Set<string>>();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private pass: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  /** Passes this runner made by itself (tests wait on it rather than on time). */
  passCount = 0;
  /** Each `completeTogether` kind's completions, written together. */
  private readonly completions = new Map<string, Completions>();
  /** The resumed kinds whose standing item is still to be made (if absent), and those that failed to. */
  private readonly unmade = new Set<string>();
  private readonly unmadeWarned = new Set<string>();
  /** Called after each pass whose claims the store answered (the poller's last tick, /healthz). */
  private readonly passed = new Set<() => void>();

  constructor(private readonly deps: WorkRunnerDeps) {}

  register(kind: WorkKind): void {
    this.kinds.set(kind.kind, kind);
  }

  /** Claims the kind's due items from now on (again, after pause). */
  resume(kind: string): void {
    this.active.add(kind);
    if (this.kinds.get(kind)?.standing) this.unmade.add(kind);
    this.stopped = false;
    this.wake(0);
  }

  /** Claims no more of the kind, and waits for its items under way. */
  async pause(kind: string): Promise<void> {
    this.active.delete(kind);
    this.unmade.delete(kind);
    await this.pass;
    await Promise.all(this.running.get(kind) ?? []);
  }

  /** Stops claiming any kind; resolves once every item under way has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timerAt = Number.POSITIVE_INFINITY;
    await this.pass;
    await Promise.all([...this.running.values()].flatMap((runs) => [...runs]));
  }

  /** Calls `listener` after each pass of this runner whose claims the store answered; returns its removal. */
  onPassed(listener: () => void): () => void {
    this.passed.add(listener);
    return () => this.passed.delete(listener);
  }

  /** Schedules an item (the store's scheduleWork), and wakes this runner when it is due. */
  async schedule(item: ScheduleWork): Promise<WorkItem | null> {
    const scheduled = await this.deps.store.scheduleWork(item);
    if (scheduled) this.wakeAt(scheduled.dueAt, item.kind);
    return scheduled;
  }

  /**
   * Makes a new item claimed by this replica for its kind's lease (null, and nothing made, when the kind
   * has an item by that key) and runs it next, when the kind has a turn free, its claim renewed while it
   * waits; any replica takes it over once the claim lapses. `run` settles when its run here ends.
   */
  async scheduleClaimed(
    item: Omit<ScheduleWork, "when" | "claim" | "existingOnly">,
  ): Promise<{ item: WorkItem; run: Promise<boolean> } | null> {
    const kind = this.kindOf(item.kind);
    const until = new Date(this.nowOf(kind).getTime() + (kind.leaseMs ?? DEFAULT_LEASE_MS));
    const made = await this.deps.store.scheduleWork({
      ...item,
      when: "absent",
      claim: { owner: this.deps.owner, until },
    });
    if (!made) return null;
    return { item: made, run: this.launch(kind, made) };
  }

  /** Makes sure a pass comes at `at` (or sooner), on the kind's clock (default the runner's). */
  wakeAt(at: Date, kind?: string): void {
    const clock = kind ? this.kinds.get(kind) : undefined;
    this.wake(at.getTime() - this.nowOf(clock).getTime());
  }

  private nowOf(kind: WorkKind | undefined): Date {
    return kind?.now?.() ?? this.deps.now();
  }

  /**
   * Claims and runs the kind's due items, claim after claim, until none is due (whether or not the
   * runner claims the kind by itself): a pass by hand, for tests and the benchmark.
   */
  async drain(kindName: string): Promise<DrainReport> {
    const kind = this.kindOf(kindName);
    const report: DrainReport = { claimed: 0, ok: 0, failed: 0 };
    for (;;) {
      const { claimed } = await this.claim(kind, this.concurrency(kind));
      if (claimed.length === 0) return report;
      report.claimed += claimed.length;
      // By hand: run at once, whatever the kind's turns (as many as one claim takes).
      const outcomes = await Promise.all(claimed.map((item) => this.execute(kind, item, false)));
      for (const ok of outcomes) report[ok ? "ok" : "failed"] += 1;
    }
  }

  /**
   * Claims one item (scheduled due now, say) and runs it here at once, whether or not the runner claims
   * its kind by itself: `ok` or `failed` (retried with the kind's backoff), or `elsewhere` when it was
   * not claimable (another replica runs it, or it is not due).
   */
  async runNow(kindName: string, key: string): Promise<"ok" | "failed" | "elsewhere"> {
    const kind = this.kindOf(kindName);
    const { claimed } = await this.claim(kind, 1, key);
    const item = claimed[0];
    if (!item) return "elsewhere";
    return (await this.execute(kind, item)) ? "ok" : "failed";
  }

  private kindOf(name: string): WorkKind {
    const kind = this.kinds.get(name);
    if (!kind) throw new Error(`no kind of work named ${name} is registered`);
    return kind;
  }

  private concurrency(kind: WorkKind): number {
    return Math.max(1, kind.concurrency ?? 1);
  }

  private wake(ms: number): void {
    if (this.stopped || this.active.size === 0) return;
    const delay = Math.max(0, ms);
    const at = Date.now() + delay;
    if (at >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.onTimer(), delay);
    this.timer.unref?.();
  }

  private onTimer(): void {
    this.timerAt = Number.POSITIVE_INFINITY;
    if (this.pass) {
      this.again = true;
      return;
    }
    this.pass = this.runPass()
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, "durable work: pass failed"))
      .finally(() => {
        this.pass = undefined;
        this.passCount += 1;
        if (this.again) {
          this.again = false;
          this.wake(0);
        }
      });
  }

  /**
   * One pass: each active kind's due items, as many as it may still run; then the timer for the next. A
   * kind the store (or its beforeBatch) failed does not hold up the others; the pass then comes again at
   * the safety look at the latest, and is not told to the listeners.
   */
  private async runPass(): Promise<void> {
    let delay = this.deps.safetyMs ?? 30_000;
    let failure: { error: unknown } | undefined;
    for (const name of this.active) {
      try {
        const next = await this.claimAndLaunch(this.kindOf(name));
        if (next !== null) delay = Math.min(delay, next);
      } catch (error) {
        failure ??= { error };
      }
    }
    this.wake(delay);
    if (failure) throw failure.error;
    for (const listener of this.passed) listener();
  }

  /** The kind's standing item made if need be, and its due items claimed and run; ms until more are due. */
  private async claimAndLaunch(kind: WorkKind): Promise<number | null> {
    const name = kind.kind;
    if (this.unmade.has(name)) await this.makeStanding(kind);
    const free = this.concurrency(kind) - this.busy(name);
    if (free <= 0) return null;
    const { claimed, nextDueAt } = await this.claim(kind, free);
    if (claimed.length >= free) this.saturated.add(name);
    else this.saturated.delete(name);
    // An item whose claim lapsed while it still runs here (its renewals late: a stalled process) and
    // that this replica claimed again runs on as it was, renewed: it is not run twice at once.
    for (const item of claimed) if (!this.runsHere(item)) void this.launch(kind, item);
    return nextDueAt ? nextDueAt.getTime() - this.nowOf(kind).getTime() : null;
  }

  /** The kind's standing item made unless there is one; a failure is told once, and tried at the next pass. */
  private async makeStanding(kind: WorkKind): Promise<void> {
    const { standing } = kind;
    if (!standing) return;
    try {
      const dueAt = standing.dueAt();
      await this.deps.store.scheduleWork({ kind: kind.kind, key: standing.key, dueAt, when: "absent" });
      this.unmade.delete(kind.kind);
      this.unmadeWarned.delete(kind.kind);
    } catch (error) {
      if (this.unmadeWarned.has(kind.kind)) return;
      this.unmadeWarned.add(kind.kind);
      this.deps.logger.error(
        { kind: kind.kind, err: error },
        `durable work ${kind.kind}: its recurring item could not be made; tried again at each pass`,
      );
    }
  }

  private async claim(kind: WorkKind, limit: number, key?: string) {
    const work = await this.deps.store.claimWork({
      kind: kind.kind,
      owner: this.deps.owner,
      now: this.nowOf(kind),
      leaseMs: kind.leaseMs ?? DEFAULT_LEASE_MS,
      limit,
      ...(key !== undefined ? { key } : {}),
    });
    if (work.claimed.length === 0 || !kind.beforeBatch) return work;
    try {
      await kind.beforeBatch(work.claimed);
    } catch (error) {
      // The batch could not run: each of its items failed (counted, retried after the kind's backoff).
      await Promise.all(work.claimed.map((item) => this.failed(kind, item, error)));
      throw error;
    }
    return work;
  }

  private launch(kind: WorkKind, item: WorkItem): Promise<boolean> {
    const runs = this.running.get(kind.kind) ?? new Set();
    this.running.set(kind.kind, runs);
    const id = `${item.kind}\u0000${item.key}`;
    this.keys.add(id);
    const run = this.execute(kind, item).finally(() => {
      runs.delete(run);
      this.keys.delete(id);
    });
    runs.add(run);
    return run;
  }

  private runsHere(item: WorkItem): boolean {
    return this.keys.has(`${item.kind}\u0000${item.key}`);
  }

  /** The kind's items holding a turn or waiting for one. */
  private busy(name: string): number {
    return (this.turns.get(name) ?? 0) + (this.waiting.get(name)?.length ?? 0);
  }

  /** Waits for one of the kind's turns; the function that gives it back (once). */
  private async turn(kind: WorkKind): Promise<() => void> {
    const name = kind.kind;
    if ((this.turns.get(name) ?? 0) >= this.concurrency(kind)) {
      const queue = this.waiting.get(name) ?? [];
      this.waiting.set(name, queue);
      // A turn given back is handed on to the first waiting, counted still.
      await new Promise<void>((resolve) => queue.push(resolve));
    } else this.turns.set(name, (this.turns.get(name) ?? 0) + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const next = this.waiting.get(name)?.shift();
      if (next) next();
      else this.turns.set(name, (this.turns.get(name) ?? 1) - 1);
      // A kind that had more due than it could take: claim again once half its turns are free.
      if (this.saturated.has(name) && this.busy(name) <= this.concurrency(kind) / 2) this.wake(0);
    };
  }

  /** Runs one claimed item to its end: completed, or failed and rescheduled. True when it succeeded. */
  private async execute(kind: WorkKind, item: WorkItem, takesTurn = true): Promise<boolean> {
    const { store, owner, metrics } = this.deps;
    const now = () => this.nowOf(kind);
    const leaseMs = kind.leaseMs ?? DEFAULT_LEASE_MS;
    // The signal is made when a run asks for it (most never do: a quiet read is over in milliseconds).
    let lost: AbortController | undefined;
    let gone = false;
    const renewNow = async () => {
      const mine = await store.renewWork(item.kind, item.key, owner, new Date(now().getTime() + leaseMs));
      if (!mine) {
        gone = true;
        lost?.abort();
      }
      return mine;
    };
    const context: WorkContext = {
      get signal() {
        lost ??= new AbortController();
        if (gone) lost.abort();
        return lost.signal;
      },
      renew: renewNow,
      yieldTurn: () => yieldTurn(),
    };
    const renew = setInterval(() => void renewNow().catch(() => undefined), leaseMs / 3);
    renew.unref?.();
    let yieldTurn = () => {};
    let together: CompletionTurn | null = null;
    try {
      if (takesTurn) yieldTurn = await this.turn(kind);
      if (kind.completeTogether) together = this.completionsOf(kind).begin();
      const next = await kind.run(item, context);
      const done = { kind: item.kind, key: item.key, next };
      if (together) {
        // Its turn is the next run's while it waits for the others' to be written with it.
        yieldTurn();
        await together.complete(done);
      } else await store.completeWork(owner, [done]);
      metrics?.workRuns.inc({ kind: item.kind, outcome: "ok" });
      this.markFailing(item, false);
      if (next) this.wakeAt(next.dueAt, item.kind);
      return true;
    } catch (error) {
      together?.abandon();
      await this.failed(kind, item, error);
      return false;
    } finally {
      yieldTurn();
      clearInterval(renew);
    }
  }

  /** A run of `item` failed: counted, its error kept, and due again after the kind's backoff. */
  private async failed(kind: WorkKind, item: WorkItem, error: unknown): Promise<void> {
    const { store, owner, logger, metrics } = this.deps;
    const retryAt = new Date(this.nowOf(kind).getTime() + (kind.backoff ?? backoff)(item.attempts + 1));
    const message = error instanceof Error ? error.message : String(error);
    const attempts = await store
      .failWork(item.kind, item.key, owner, { error: message, retryAt })
      .catch(() => null);
    metrics?.workRuns.inc({ kind: item.kind, outcome: "failed" });
    this.markFailing(item, true);
    logger.warn(
      { kind: item.kind, key: item.key, attempts, retryAt: retryAt.toISOString(), err: error },
      `durable work ${item.kind} ${item.key} failed: retried at ${retryAt.toISOString()}`,
    );
    this.wakeAt(retryAt, item.kind);
  }

  private completionsOf(kind: WorkKind): Completions {
    let made = this.completions.get(kind.kind);
    if (!made) {
      made = new Completions(
        this.deps.store,
        this.deps.owner,
        Math.max(1, Math.floor(this.concurrency(kind) / 2)),
      );
      this.completions.set(kind.kind, made);
    }
    return made;
  }

  private markFailing(item: WorkItem, failed: boolean): void {
    const keys = this.failing.get(item.kind) ?? new Set<string>();
    this.failing.set(item.kind, keys);
    const had = keys.has(item.key);
    if (failed) keys.add(item.key);
    else keys.delete(item.key);
    if (had !== failed || failed) this.deps.metrics?.workFailing.set({ kind: item.kind }, keys.size);
  }
}
