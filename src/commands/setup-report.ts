import type { SetupLine, SetupStatus } from "../core/setup-line.js";

/**
 * The setup check's report (`npm run doctor`, `/mq doctor`, the start log): one line per thing checked.
 * A `fail` of a required check means something Yardmaster needs does not work; `warn` is worth fixing
 * but Yardmaster works without it; `skip` was not checked (its surface is off, or what it needs failed).
 * The command core shows it (src/commands/doctor.ts) and defines it: the setup check (src/doctor) makes
 * it, and the composition root gives the core the check (SetupCheck). Its lines are the core's
 * (src/core/setup-line.ts): the backends write some of them.
 */
export interface SetupReport {
  lines: SetupLine[];
  /** True when a required check failed (`npm run doctor` then exits 1). */
  failed: boolean;
}

/** Runs the setup check (src/doctor/run-setup-check.ts), for `/mq doctor`. */
export interface SetupCheck {
  run(): Promise<SetupReport>;
}

/** How many required checks failed, and how many warned. */
export function setupCounts(report: SetupReport): { fails: number; warns: number } {
  const count = (s: SetupStatus) => report.lines.filter((l) => l.status === s).length;
  return { fails: count("fail"), warns: count("warn") };
}
