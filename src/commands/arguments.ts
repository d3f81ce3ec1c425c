import type { z } from "zod";
import { branchSchema, pauseReasonSchema } from "../merge-queue/index.js";
import type { CommandName } from "./catalog.js";
import { CommandError, CommandErrorCode } from "./errors.js";

/**
 * Argument checks shared by both surfaces. The limits themselves are the merge-queue client's
 * (`src/merge-queue/limits.ts`): one place per fact.
 */
function check<T>(
  schema: z.ZodType<T>,
  value: string,
  command: CommandName,
  argument: string,
  limit: string,
): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new CommandError(CommandErrorCode.InvalidArgument, { command, argument, limit });
  return parsed.data;
}

export function pauseReason(command: CommandName, text: string): string {
  const reason = text.trim();
  if (reason === "")
    throw new CommandError(CommandErrorCode.MissingArgument, { command, argument: "reason" });
  return check(pauseReasonSchema, reason, command, "reason", "1 to 255 characters");
}

export function branchName(command: CommandName, text: string): string {
  return check(branchSchema, text, command, "branch", "1 to 255 characters, no spaces");
}

const QUEUE_NAME = /^[A-Za-z0-9][\w.\-/]{0,254}$/;

export function queueName(command: CommandName, text: string): string {
  if (!QUEUE_NAME.test(text)) {
    throw new CommandError(CommandErrorCode.InvalidArgument, {
      command,
      argument: "queue-name",
      limit: "1 to 255 letters, digits, '-', '_', '.', '/'",
    });
  }
  return text;
}

/** Splits on runs of white space. */
export function words(text: string): string[] {
  return text.trim() === "" ? [] : text.trim().split(/\s+/);
}

export function noArguments(command: CommandName, rest: string): void {
  if (rest.trim() !== "") {
    throw new CommandError(CommandErrorCode.UnexpectedArgument, { command, argument: rest.trim() });
  }
}
