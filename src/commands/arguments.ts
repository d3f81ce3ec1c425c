import type { z } from "zod";
import { branchSchema, pauseReasonSchema } from "../core/input-limits.js";
import type { Grammar } from "./command.js";
import { CommandError, CommandErrorCode } from "./errors.js";

/**
 * Argument checks shared by the grammars of both surfaces. The limits themselves are the merge-queue
 * client's (`src/merge-queue/limits.ts`): one place per fact.
 */
function check<T>(schema: z.ZodType<T>, value: string, command: string, argument: string, limit: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new CommandError(CommandErrorCode.InvalidArgument, { command, argument, limit });
  return parsed.data;
}

export function pauseReason(command: string, text: string): string {
  const reason = text.trim();
  if (reason === "")
    throw new CommandError(CommandErrorCode.MissingArgument, { command, argument: "reason" });
  return check(pauseReasonSchema, reason, command, "reason", "1 to 255 characters");
}

export function branchName(command: string, text: string): string {
  return check(branchSchema, text, command, "branch", "1 to 255 characters, no spaces");
}

const QUEUE_NAME = /^[A-Za-z0-9][\w.\-/]{0,254}$/;

export function queueName(command: string, text: string): string {
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

/** Refuses anything after a command that takes nothing, quoting it as typed. */
export function noArguments(command: string, text: string): void {
  if (text.trim() !== "") {
    throw new CommandError(CommandErrorCode.UnexpectedArgument, { command, argument: text.trim() });
  }
}

/** Refuses the words left over once a command has read its own. */
export function unexpected(command: string, rest: readonly string[]): void {
  if (rest.length)
    throw new CommandError(CommandErrorCode.UnexpectedArgument, { command, argument: rest.join(" ") });
}

export function missing(command: string, argument: string): never {
  throw new CommandError(CommandErrorCode.MissingArgument, { command, argument, surface: "slack" });
}

/** The grammar of a command written alone (`/mq whoami`): anything after it is refused. */
export function alone<N extends string>(name: N): Grammar<{ name: N }, unknown> {
  return {
    usage: name,
    read: ({ words }) => {
      unexpected(name, words);
      return { name };
    },
  };
}
