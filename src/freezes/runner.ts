import type { MergeQueues } from "../core/merge-queue.js";
import type { QueuePauses } from "../core/pause.js";
import type { FreezeRecords } from "../core/record-ports.js";
import type { Freeze, FreezeStep, FreezeWindowToEnd, PauseAttribution } from "../core/records.js";
import type { Logger } from "../logger.js";
import { Periodic } from "../periodic.js";
import type { Repo } from "../repo.js";
import { recordPauseChange, resumeQueue, type Who } from "../use-cases/pause.js";
import { exceptLabels } from "../wording/lists.js";
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
  store: FreezeRecords;
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
  owner: string;
  logger: Logger;
  now: () => Date;
  intervalMs?: number;
  leaseMs?: number;
}

/**
 * Applies freeze windows (docs/commands.md, "Freeze windows"): every `intervalMs`, for each freeze, its
 * window in progress or next; each step of a window (the notice 15 minutes before, the pause at its
 * start, the resume at its end) is claimed in the store by one replica and done once, whatever the
 * replicas and restarts. A window that started while every replica was down is applied when one comes
 * back, if it is still in progress; a notice whose window has started is not sent late. Before its
 * notice and its pause, a window checks that its creator may still set it: if not, the step is skipped
 * (the channels hear it once, at the start) and the freeze is kept for someone to remove. Its end is
 * never skipped: it only resumes what the window paused.
 */
export class FreezeRunner {
  private readonly passes: Periodic;
  /** Passes finished, failed or not (tests wait on it rather than on time). */
  passCount = 0;

  constructor(private readonly deps: FreezeRunnerDeps) {
    this.passes = new Periodic(
      () => this.tick(),
      deps.intervalMs ?? 5_000,
      (error) => deps.logger.warn({ err: error }, "freezes: pass failed"),
    );
  }

  start(): void {
    this.passes.start();
  }

  async stop(): Promise<void> {
    await this.passes.stop();
  }

  /** One pass; what this replica did, for tests and logs. */
  async tick(): Promise<{ repository: Repo; step: FreezeStep; outcome: string }[]> {
    try {
      return await this.pass();
    } finally {
      this.passCount += 1;
    }
  }

  private async pass(): Promise<{ repository: Repo; step: FreezeStep; outcome: string }[]> {
    const now = this.deps.now();
    const done: { repository: Repo; step: FreezeStep; outcome: string }[] = [];
    for (const ending of await this.deps.store.listFreezeWindowsToEnd(now, 20)) {
      const outcome = await this.step(ending, "end", () => this.end(ending));
      if (outcome) done.push({ repository: ending.repository, step: "end", outcome });
    }
    for (const freeze of await this.deps.store.listFreezes()) {
      const window = windowAt(freeze.schedule, freeze.zone, now);
      if (!window) continue;
      const w = {
        freezeId: freeze.id,
        repository: freeze.repository,
        startsAt: window.start,
        endsAt: window.end,
        reason: freezeReason(freeze),
        by: { login: freeze.createdBy, surface: freeze.surface },
      };
      const t = now.getTime();
      let outcome: string | null = null;
      let step: FreezeStep = "start";
      if (t >= window.start.getTime())
        outcome = await this.step(w, "start", () => this.unlessWithoutAccess(w, freeze, "start"));
      else if (window.start.getTime() - t <= FREEZE_WARNING_MS) {
        step = "warn";
        outcome = await this.step(w, "warn", () => this.unlessWithoutAccess(w, freeze, "warn"));
      }
      if (outcome) done.push({ repository: freeze.repository, step, outcome });
    }
    return done;
  }

  /** Claims the step, does it, marks it done; null when another replica has it or it is done. */
  private async step(
    w: FreezeWindowToEnd,
    step: FreezeStep,
    run: () => Promise<string>,
  ): Promise<string | null> {
    const { store, owner, logger } = this.deps;
    const now = this.deps.now();
    const claimed = await store.claimFreezeStep({
      ...w,
      step,
      owner,
      now,
      leaseMs: this.deps.leaseMs ?? 60_000,
    });
    if (!claimed) return null;
    const log = { repository: w.repository.fullName, reason: w.reason, startsAt: w.startsAt, step };
    try {
      const outcome = await run();
      await store.finishFreezeStep(w.freezeId, w.startsAt, step, owner);
      logger.info({ ...log, outcome }, `freeze of ${w.repository}: ${step} ${outcome}`);
      return outcome;
    } catch (error) {
      // The claim lapses, and this or another replica tries again.
      logger.warn({ ...log, err: error }, `freeze of ${w.repository}: ${step} failed, tried again later`);
      return "failed";
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
    if (await pauses.current(target)) {
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
