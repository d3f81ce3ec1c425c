import type { ButtonCommand } from "../commands/description.js";
import { Repo } from "../repo.js";

/**
 * The buttons of Slack messages (docs/commands.md). Each carries the command it runs in its `value`;
 * clicking it runs that command with the same checks as typing it.
 */
export const ACTION_IDS = {
  unpause: "mq.unpause",
  requeue: "mq.requeue",
  refresh: "mq.refresh",
} as const;
export type ActionId = (typeof ACTION_IDS)[keyof typeof ACTION_IDS];

interface ActionValue {
  /** "owner/repo" */
  r: string;
  /** pull request number (requeue) */
  p?: number;
  /** branch (refresh of a status) */
  b?: string;
}

export function unpauseValue(repo: Repo): string {
  return JSON.stringify({ r: repo.fullName } satisfies ActionValue);
}

export function requeueValue(repo: Repo, pull: number): string {
  return JSON.stringify({ r: repo.fullName, p: pull } satisfies ActionValue);
}

export function refreshValue(repo: Repo, branch?: string): string {
  return JSON.stringify({
    r: repo.fullName,
    ...(branch ? { b: branch } : {}),
  } satisfies ActionValue);
}

/** The action id a button that runs this command carries. */
export function actionIdOf(command: ButtonCommand): ActionId {
  switch (command.name) {
    case "unpause":
      return ACTION_IDS.unpause;
    case "requeue":
      return ACTION_IDS.requeue;
    case "status":
      return ACTION_IDS.refresh;
  }
}

/** The command a click asks for, or undefined for a value this version did not write. */
export function commandOfAction(actionId: string, value: string): ButtonCommand | undefined {
  let parsed: ActionValue;
  try {
    parsed = JSON.parse(value) as ActionValue;
  } catch {
    return undefined;
  }
  const repo = typeof parsed.r === "string" ? Repo.parse(parsed.r) : null;
  if (!repo) return undefined;
  switch (actionId) {
    case ACTION_IDS.unpause:
      return { name: "unpause", repo };
    case ACTION_IDS.requeue:
      return Number.isSafeInteger(parsed.p) && (parsed.p ?? -1) >= 0
        ? { name: "requeue", repo, pull: parsed.p as number }
        : undefined;
    case ACTION_IDS.refresh:
      return typeof parsed.b === "string"
        ? { name: "status", repo, branch: parsed.b }
        : { name: "status", repo };
    default:
      return undefined;
  }
}
