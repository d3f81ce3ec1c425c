import type { Repo } from "../repo.js";
import type { FreezeSchedule } from "./schedule.js";

/** A freeze window kept for a repository (docs/commands.md, "Freeze windows"). */
export interface Freeze {
  id: string;
  repository: Repo;
  /** Its number within the repository (1, 2, …), as `freezes` lists it and `unfreeze` takes it. */
  number: number;
  name: string;
  schedule: FreezeSchedule;
  /** The IANA zone its times are read in. */
  zone: string;
  /** Who set it (as pause attributions name people), and where. */
  createdBy: string;
  surface: "github" | "slack";
  createdAt: Date;
  /** Labels whose pull requests pass while a window holds the queue (`except label:…`); absent: none. */
  except?: readonly string[];
}

/** What happens to a window once: the notice before it, its pause, its resume. */
export type FreezeStep = "warn" | "start" | "end";

/** One window's step, as a replica claims it (the window's freeze may be removed since). */
export interface FreezeStepClaim {
  freezeId: string;
  repository: Repo;
  step: FreezeStep;
  startsAt: Date;
  endsAt: Date;
  /** The pause's reason ("weekend freeze (scheduled by alice)"). */
  reason: string;
  owner: string;
  now: Date;
  leaseMs: number;
}

/** A window whose pause was applied and whose end has come, not resumed yet. */
export interface FreezeWindowToEnd {
  freezeId: string;
  repository: Repo;
  startsAt: Date;
  endsAt: Date;
  reason: string;
}

/** Where freezes and their windows' steps are kept (src/store/freezes.ts). */
export interface FreezeRecords {
  /** Adds it with the repository's next number; "name-taken" when the repository has one of that name. */
  addFreeze(freeze: Omit<Freeze, "number">): Promise<Freeze | "name-taken">;
  /** The repository's freezes (every repository's without one), by number. */
  listFreezes(repository?: Repo): Promise<Freeze[]>;
  /** Removes the repository's freeze of that number or name (case-insensitive); the one removed, or null. */
  deleteFreeze(repository: Repo, which: { number: number } | { name: string }): Promise<Freeze | null>;
  /**
   * Claims a window's step for `owner` until `now + leaseMs`, unless it is done or another replica's
   * claim still runs: of two concurrent claims, one wins. True when claimed.
   */
  claimFreezeStep(claim: FreezeStepClaim): Promise<boolean>;
  /** Marks the step done (if `owner` still claims it): it is never claimed again. */
  finishFreezeStep(freezeId: string, startsAt: Date, step: FreezeStep, owner: string): Promise<void>;
  /** Windows whose start step is done and whose end has come (`endsAt <= now`), their end step not done. */
  listFreezeWindowsToEnd(now: Date, limit: number): Promise<FreezeWindowToEnd[]>;
}

/** What the freeze commands need (src/commands/freeze.ts, freezes.ts, unfreeze.ts). */
export interface FreezePorts {
  store: Pick<FreezeRecords, "addFreeze" | "listFreezes" | "deleteFreeze">;
  /** The clock windows are reckoned on (tests move it). */
  now: () => Date;
}
