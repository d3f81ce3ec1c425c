import { z } from "zod";
import { CommandError, CommandErrorCode } from "../commands/errors.js";
import { readNotify } from "../commands/notify.js";
import { branchSchema } from "../core/input-limits.js";
import { Repo } from "../repo.js";
import type { ButtonCommand } from "../wording/description.js";
import { notifyWords } from "../wording/notify-change.js";

/**
 * The buttons of Slack messages (docs/commands.md). Each carries the command it runs in its `value`;
 * clicking it runs that command with the same checks as typing it. A value is read back only if it is
 * exactly what this version writes: anything else is refused, never repaired.
 */
export const ACTION_IDS = {
  unpause: "mq.unpause",
  requeue: "mq.requeue",
  refresh: "mq.refresh",
  /** `let <pr> through confirm`, offered when its merge group holds others too. */
  let: "mq.let",
  // The Home tab's buttons.
  dequeue: "mq.dequeue",
  notify: "mq.notify",
  login: "mq.login",
  logout: "mq.logout",
} as const;
export type ActionId = (typeof ACTION_IDS)[keyof typeof ACTION_IDS];

/** "owner/repo", exactly as Repo writes it. */
const repoField = z.string().refine((r) => Repo.parse(r) !== null);
/** A pull request number as JSON writes it: a whole number from 0 to 2^53-1. */
const pullField = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** What each button's value holds, and nothing else. */
const VALUE_SCHEMAS = {
  [ACTION_IDS.unpause]: z.strictObject({ r: repoField, b: branchSchema.optional() }),
  [ACTION_IDS.requeue]: z.strictObject({ r: repoField, p: pullField }),
  [ACTION_IDS.refresh]: z.strictObject({ r: repoField, b: branchSchema.optional() }),
  [ACTION_IDS.let]: z.strictObject({ r: repoField, p: pullField }),
  [ACTION_IDS.dequeue]: z.strictObject({ r: repoField, p: pullField }),
  /** The words of `/mq notify` the button stands for. */
  [ACTION_IDS.notify]: z.strictObject({ w: z.string().max(400) }),
  [ACTION_IDS.login]: z.strictObject({}),
  [ACTION_IDS.logout]: z.strictObject({}),
} as const;

/** The command each button stands for, for the message that refuses a value. */
const COMMAND_OF: Record<ActionId, ButtonCommand["name"]> = {
  [ACTION_IDS.unpause]: "unpause",
  [ACTION_IDS.requeue]: "requeue",
  [ACTION_IDS.refresh]: "status",
  [ACTION_IDS.let]: "let",
  [ACTION_IDS.dequeue]: "dequeue",
  [ACTION_IDS.notify]: "notify",
  [ACTION_IDS.login]: "login",
  [ACTION_IDS.logout]: "logout",
};

/**
 * JSON with `<`, `>`, `&` and `@` written as `\u003c`...: the same JSON once parsed, but a branch name
 * such as `<!channel>` never appears raw anywhere in a message's payload.
 */
export function jsonSafe(json: string): string {
  return json.replace(/[<>&@]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** `branch`: a branch's queue paused by name (GitHub's merge queue); absent: the default branch's. */
export function unpauseValue(repo: Repo, branch?: string): string {
  return jsonSafe(JSON.stringify({ r: repo.fullName, ...(branch ? { b: branch } : {}) }));
}

export function requeueValue(repo: Repo, pull: number): string {
  return jsonSafe(JSON.stringify({ r: repo.fullName, p: pull }));
}

export function refreshValue(repo: Repo, branch?: string): string {
  return jsonSafe(JSON.stringify({ r: repo.fullName, ...(branch ? { b: branch } : {}) }));
}

/** The action id a button that runs this command carries. */
export function actionIdOf(command: ButtonCommand): ActionId {
  switch (command.name) {
    case "status":
      return ACTION_IDS.refresh;
    default:
      return ACTION_IDS[command.name];
  }
}

/** The value a button that runs this command carries. */
export function buttonValue(command: ButtonCommand): string {
  switch (command.name) {
    case "unpause":
      return unpauseValue(command.repo, command.branch);
    case "requeue":
    case "dequeue":
      return requeueValue(command.repo, command.pull);
    case "let":
      // Only `confirm` is a button: without it, the value stands for no button.
      return command.confirm ? requeueValue(command.repo, command.pull) : "";
    case "status":
      return refreshValue(command.repo, command.branch);
    case "notify":
      return jsonSafe(JSON.stringify({ w: notifyWords(command.change) }));
    case "login":
    case "logout":
      return "{}";
  }
}

export type ButtonRead =
  | { kind: "command"; command: ButtonCommand }
  | { kind: "refused"; error: CommandError };

/**
 * The command a click asks for. The value must parse with its button's strict schema (no other key,
 * no other type, a repository written exactly `owner/repo`, a number within 2^53-1) and be, byte for
 * byte, the value this version writes for that command (so `1.0`, a repeated key or another key order
 * are refused too). Refused: an UnreadableButton error, before anything runs.
 */
export function readAction(actionId: string, value: string): ButtonRead {
  if (!isActionId(actionId)) return refused(undefined);
  const command = COMMAND_OF[actionId];
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch {
    return refused(command);
  }
  const parsed = VALUE_SCHEMAS[actionId].safeParse(json);
  if (!parsed.success) return refused(command);
  let read: ButtonCommand;
  try {
    read = commandOf(command, parsed.data);
  } catch {
    return refused(command);
  }
  if (buttonValue(read) !== value) return refused(command);
  return { kind: "command", command: read };
}

/** The command a button's value (parsed by its schema) stands for; throws when it stands for none. */
function commandOf(command: ButtonCommand["name"], data: object): ButtonCommand {
  const d = data as { r?: string; p?: number; b?: string | undefined; w?: string };
  switch (command) {
    case "login":
    case "logout":
      return { name: command };
    case "notify": {
      const words = (d.w ?? "").split(/\s+/).filter(Boolean);
      return { name: "notify", change: readNotify(words) };
    }
    case "requeue":
    case "dequeue":
      return { name: command, repo: Repo.from(d.r ?? ""), pull: d.p as number };
    case "let":
      return { name: "let", repo: Repo.from(d.r ?? ""), pull: d.p as number, confirm: true };
    case "unpause":
      return d.b === undefined
        ? { name: "unpause", repo: Repo.from(d.r ?? "") }
        : { name: "unpause", repo: Repo.from(d.r ?? ""), branch: d.b };
    case "status":
      return d.b === undefined
        ? { name: "status", repo: Repo.from(d.r ?? "") }
        : { name: "status", repo: Repo.from(d.r ?? ""), branch: d.b };
  }
}

function isActionId(actionId: string): actionId is ActionId {
  return (Object.values(ACTION_IDS) as string[]).includes(actionId);
}

function refused(command: ButtonCommand["name"] | undefined): ButtonRead {
  return {
    kind: "refused",
    error: new CommandError(CommandErrorCode.UnreadableButton, command ? { command, surface: "slack" } : {}),
  };
}
