import { type Logger as BoltLogger, LogLevel } from "@slack/bolt";
import type { Logger } from "../logger.js";

/** Bolt's logger interface on top of the service's pino logger (so redaction applies to Bolt too). */
export function boltLogger(logger: Logger): BoltLogger {
  const log = logger.child({ name: "bolt" });
  let level: LogLevel = LogLevel.INFO;
  const text = (args: unknown[]) =>
    args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" ");
  return {
    debug: (...args) => log.debug(text(args)),
    info: (...args) => log.info(text(args)),
    warn: (...args) => log.warn(text(args)),
    error: (...args) => log.error(text(args)),
    setLevel: (l) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => {},
  };
}
