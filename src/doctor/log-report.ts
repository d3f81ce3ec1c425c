import type { SetupReport } from "../commands/setup-report.js";
import type { SetupStatus } from "../core/setup-line.js";
import type { Logger } from "../logger.js";
import { formatSetupLine, setupVerdict } from "./run-setup-check.js";

const LEVELS: Record<SetupStatus, "info" | "warn" | "error"> = {
  pass: "info",
  skip: "info",
  warn: "warn",
  fail: "error",
};

/** The setup check in the start log: a line per check (a failure at error level), then the verdict. */
export function logSetupReport(report: SetupReport, logger: Logger): void {
  for (const line of report.lines)
    logger[LEVELS[line.status]]({ check: line.check, status: line.status }, formatSetupLine(line));
  logger[report.failed ? "warn" : "info"](setupVerdict(report));
}
