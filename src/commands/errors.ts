/** The commands' errors: the closed codes are the core's (src/core/errors.ts), re-exported for the commands. */
export { CommandError, CommandErrorCode, type CommandErrorDetails } from "../core/errors.js";
