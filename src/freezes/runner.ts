import type { MergeQueues } from "../core/merge-queue.js";
import type { QueuePauses } from "../core/pause.js";
import type { FreezeRecords } from "../core/record-ports.js";
import type { Freeze, FreezeStep, FreezeWindowToEnd, PauseAttribution } from "../core/records.js";
import type { Logger } from "../logger.js";
import { Repo } from "../repo.js";
import { FREEZE_END_KIND, FREEZE_KIND, type WorkItem } from "../store/index.js";
import { recordPauseChange, resumeQueue, type Who } from "../use-cases/pause.js";
import { exceptLabels } from "../wording/lists.js";
import { backoff, type WorkContext, type WorkNext, type WorkRunner } from "../work/runner.js";
import { timeIn } from "./present.js";
import { windowAt } from "./schedule.js";

/**
 * Who made the window's freeze, as its steps keep it (the freeze may be gone by the window's end). A
 * window started before migration 34 has none kept: its pause's reason names the person, and Slack, where
 * freezes were made then, is taken as the surface.
 */
function setterOf(w: FreezeWindowToEnd): Who {
  if (w.by) return w.by;
  return { login: w.reason.replace(/^.* \(scheduled by (.*)\)$/, "$1"), surface: "slack" };
}

/** Subscribed channels hear of a window this long before it starts. */
const FREEZE_WARNING_MS = 15 * 60_000;

/** The pause's reason of a freeze's windows: "weekend freeze (scheduled by alice)". */
export function freezeReason(freeze: Pick<Freeze, "name" | "createdBy">): string {
  return `${freeze.name} (scheduled by ${freeze.createdBy})`;
}

export interface FreezeRunnerDeps {
  store: Pick<FreezeRecords, "listFreezes">;
  /** The runner of durable work on this replica: the freezes' steps are its kinds `freeze` and `freeze-end`. */
  work: Pick<WorkRunner, "register" | "resume" | "pause" | "drain" | "schedule" | "passCount">;
  /** The repository's merge queue, whose pause the windows use as the pause command does. */
  queues: Pick<MergeQueues, "for">;
  attributePause?: (attribution: PauseAttribution) => Promise<void>;
  /** Says something to the repository's subscribed channels (plain text, already escaped). */
  announce?: (repository: Repo, text: string, key: string) => Promise<void>;
  /** After a pause or resume: the notifier reads the repository promptly. */
  afterChange?: (repository: Repo) => Promise<void>;
  /**
   * Whether a freeze's creator may still set it (the freeze command's permission on the repository, asked
   * of GitHub at each step); absent (no GitHub App to ask): not checked.
   */
  creatorMayFreeze?: (repository: Repo, login: string) => Promise<boolean>;
  logger: Logger;
  now: () => Date;
  /** How long a step's claim holds unrenewed (and, at least, how long a failed step waits); 60 s. */
  leaseMs?: number;
}

/** What one step came to, for tests and logs. */
export interface FreezeStepDone {
  repository: Repo;
  step: FreezeStep;
  outcome: string;
}

/** A freeze's item: its repository, and the windows (by start) whose notice and start were done. */
interface FreezeProgress {
  repository: string;
  warned?: string;
  started?: string;
}

/** A window's end, as its item keeps it (the freeze may be gone by then). */
interface WindowEnd {
  freezeId: string;
  repository: string;
  startsAt: string;
  endsAt: string;
  reason: string;
  by: { login: string; surface: "github" | "slack" } | null;
}

/**
 * Applies freeze windows (docs/commands.md, "Freeze windows") as durable work (src/work): each freeze is
 * an item of kind `freeze`, due at its next step, the notice 15 minutes before a window or its start;
 * a window started is ended by an item of kind `freeze-end` of its own, due at its end. The runner claims
 * each for one replica (taken over when its replica dies) and retries a step that failed with its backoff
 * (at least the lease). A window that started while every replica was down is applied when one comes
 * back, if it is still in progress; a notice whose window has started is not sent late. Before its notice
 * and its pause, a window checks that its creator may still set it: if not, the step is skipped (the
 * channels hear it once, at the start) and the freeze is kept for someone to remove. Its end is never
 * skipped: it only resumes what the window paused.
 */
export class FreezeRunner {
  /** What the steps run by hand (tick) came to. */
  private tally: FreezeStepDone[] | undefined;

  constructor(private readonly deps: FreezeRunnerDeps) {
    const leaseMs = deps.leaseMs ?? 60_000;
    const common = { leaseMs, backoff: (attempts: number) => Math.max(leaseMs, backoff(attempts)) };
    deps.work.register({ kind: FREEZE_KIND, ...common, run: (item, context) => this.next(item, context) });
    deps.work.register({
      kind: FREEZE_END_KIND,
      ...common,
      run: async (item, context) => {
        const w = windowEnd(item.payload as unknown as WindowEnd);
        await this.step(w, "end", context, () => this.end(w));
        return null;
      },
    });
  }

  /** The runner's passes on this replica (tests wait on them rather than on time). */
  get passCount(): number {
    return this.deps.work.passCount;
  }

  start(): void {
    this.deps.work.resume(FREEZE_END_KIND);
    this.deps.work.resume(FREEZE_KIND);
  }

  /** Claims no more steps, and waits for those under way. */
  async stop(): Promise<void> {
    await this.deps.work.pause(FREEZE_KIND);
    await this.deps.work.pause(FREEZE_END_KIND);
  }

  /** Every step due now that this replica could claim (ends first), and what came of them. */
  async tick(): Promise<FreezeStepDone[]> {
    const tally: FreezeStepDone[] = [];
    this.tally = tally;
    try {
      await this.deps.work.drain(FREEZE_END_KIND);
      await this.deps.work.drain(FREEZE_KIND);
    } finally {
      this.tally = undefined;
    }
    return tally;
  }

  /**
   * A freeze's next step: its window in progress or next, the notice or the start when due and not done
   * (the start then schedules the window's end); then due at the next one. Done when the freeze is gone.
   */
  private async next(item: WorkItem, context: WorkContext): Promise<WorkNext> {
    const progress = item.payload as unknown as FreezeProgress;
    const repository = Repo.from(progress.repository);
    const freeze = (await this.deps.store.listFreezes(repository)).find((f) => f.id === item.key);
    const now = this.deps.now();
    const window = freeze ? windowAt(freeze.schedule, freeze.zone, now) : null;
    if (!freeze || !window) return null;
    const w = {
      freezeId: freeze.id,
      repository,
      startsAt: window.start,
      endsAt: window.end,
      reason: freezeReason(freeze),
      by: { login: freeze.createdBy, surface: freeze.surface },
    };
    const key = window.start.toISOString();
    const warnAt = new Date(window.start.getTime() - FREEZE_WARNING_MS);
    if (now >= window.start) {
      if (progress.started === key) return { dueAt: window.end };
      await this.step(w, "start", context, () => this.unlessWithoutAccess(w, freeze, "start"));
      await this.deps.work.schedule({
        kind: FREEZE_END_KIND,
        key: `${freeze.id}@${key}`,
        dueAt: w.endsAt,
        payload: { ...endOf(w) },
        when: "absent",
      });
      return { dueAt: window.end, payload: { started: key } };
    }
    if (now < warnAt) return { dueAt: warnAt };
    if (progress.warned !== key)
      await this.step(w, "warn", context, () => this.unlessWithoutAccess(w, freeze, "warn"));
    return { dueAt: window.start, payload: { warned: key } };
  }

  /** Does a step of this replica's item (renewed first: one replaced meanwhile is left); throws when it failed. */
  private async step(
    w: FreezeWindowToEnd,
    step: FreezeStep,
    context: WorkContext,
    run: () => Promise<string>,
  ): Promise<void> {
    const { logger } = this.deps;
    const log = { repository: w.repository.fullName, reason: w.reason, startsAt: w.startsAt, step };
    if (!(await context.renew())) return;
    try {
      const outcome = await run();
      this.tally?.push({ repository: w.repository, step, outcome });
      logger.info({ ...log, outcome }, `freeze of ${w.repository}: ${step} ${outcome}`);
    } catch (error) {
      // The runner tries it again after its backoff, on this or another replica.
      this.tally?.push({ repository: w.repository, step, outcome: "failed" });
      logger.warn({ ...log, err: error }, `freeze of ${w.repository}: ${step} failed, tried again later`);
      throw error;
    }
  }

  /**
   * The window's notice or pause, unless its creator may no longer set the freeze: then skipped, and at
   * the start the channels are told (a lookup that fails throws: the step is tried again).
   */
  private async unlessWithoutAccess(
    w: FreezeWindowToEnd,
    freeze: Freeze,
    step: "warn" | "start",
  ): Promise<string> {
    const may = this.deps.creatorMayFreeze;
    if (may && !(await may(w.repository, freeze.createdBy))) {
      if (step === "start")
        await this.deps.announce?.(
          w.repository,
          `❄️ The freeze "${freeze.name}" of ${w.repository.fullName} was set by ${freeze.createdBy}, who may no longer freeze it: this window is skipped and its merge queue is not paused. The freeze is kept: someone with write access removes it (unfreeze ${freeze.number}) or sets it again.`,
          `freeze:${w.freezeId}:${w.startsAt.toISOString()}:start`,
        );
      return "creator-without-access";
    }
    return step === "start" ? this.begin(w, freeze) : this.warn(w, freeze);
  }

  private async warn(w: FreezeWindowToEnd, freeze: Freeze): Promise<string> {
    const minutes = Math.max(1, Math.round((w.startsAt.getTime() - this.deps.now().getTime()) / 60_000));
    await this.deps.announce?.(
      w.repository,
      `❄️ The freeze "${freeze.name}" of ${w.repository.fullName} begins in ${minutes} minutes: its merge queue will be paused until ${timeIn(w.endsAt, freeze.zone)} ${freeze.zone}${exceptLabels(freeze.except, (l) => l, ", ")}.`,
      `freeze:${w.freezeId}:${w.startsAt.toISOString()}:warn`,
    );
    return "announced";
  }

  /** The pause of the repository's default branch's queue; null where the queue has none. */
  private async pausesOf(repository: Repo): Promise<QueuePauses | null> {
    return (await this.deps.queues.for(repository)).pauses ?? null;
  }

  private async begin(w: FreezeWindowToEnd, freeze: Freeze): Promise<string> {
    const pauses = await this.pausesOf(w.repository);
    if (!pauses) return "no-pause";
    const target = { repo: w.repository, branch: null };
    const current = await pauses.current(target);
    // Paused for this window already (a replica that paused, then died before its item moved on).
    if (current?.reason === w.reason) return "paused";
    if (current) {
      await this.deps.announce?.(
        w.repository,
        `❄️ The freeze "${freeze.name}" of ${w.repository.fullName} begins, but its merge queue is already paused for another reason: it is left as it is, and the freeze will not resume it.`,
        `freeze:${w.freezeId}:${w.startsAt.toISOString()}:start`,
      );
      return "already-paused";
    }
    // Its exemptions where the queue takes them; a queue that cannot holds every pull request.
    const except = pauses.exemptions === "labels" && freeze.except?.length ? { except: freeze.except } : {};
    const who = setterOf(w);
    await pauses.pause(target, { reason: w.reason, by: who.login, ...except });
    await recordPauseChange(this.deps, w.repository, who, {
      action: "pause",
      reason: w.reason,
      resumesAt: w.endsAt,
    });
    await this.deps.afterChange?.(w.repository).catch(() => undefined);
    return "paused";
  }

  private async end(w: FreezeWindowToEnd): Promise<string> {
    const pauses = await this.pausesOf(w.repository);
    if (!pauses) return "no-pause";
    const target = { repo: w.repository, branch: null };
    const pause = await pauses.current(target);
    if (!pause) return "not-paused";
    if (pause.reason !== w.reason) {
      await this.deps.announce?.(
        w.repository,
        `❄️ A freeze of ${w.repository.fullName} ended, but its merge queue was paused again meanwhile for another reason: it stays paused until someone unpauses it.`,
        `freeze:${w.freezeId}:${w.startsAt.toISOString()}:end`,
      );
      return "paused-otherwise";
    }
    await resumeQueue(this.deps, pauses, target, setterOf(w), { scheduled: true });
    await this.deps.afterChange?.(w.repository).catch(() => undefined);
    return "resumed";
  }
}

/** A window's end as its item keeps it. */
function endOf(w: FreezeWindowToEnd): WindowEnd {
  return {
    freezeId: w.freezeId,
    repository: w.repository.fullName,
    startsAt: w.startsAt.toISOString(),
    endsAt: w.endsAt.toISOString(),
    reason: w.reason,
    by: w.by,
  };
}

function windowEnd(kept: WindowEnd): FreezeWindowToEnd {
  return {
    freezeId: kept.freezeId,
    repository: Repo.from(kept.repository),
    startsAt: new Date(kept.startsAt),
    endsAt: new Date(kept.endsAt),
    reason: kept.reason,
    by: kept.by?.login && kept.by.surface ? kept.by : null,
  };
}
