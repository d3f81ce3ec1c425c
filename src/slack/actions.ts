import type { MergeQueueCommand } from "../commands/command.js";
import { ownerSchema, repositorySchema } from "../merge-queue/index.js";

/**
 * The buttons of PRODUCT.md section 3. Each carries the command it runs in its `value`; clicking it
 * runs that command with the same checks as typing it.
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

export function unpauseValue(repo: { owner: string; repo: string }): string {
  return JSON.stringify({ r: `${repo.owner}/${repo.repo}` } satisfies ActionValue);
}

export function requeueValue(repo: { owner: string; repo: string }, pull: number): string {
  return JSON.stringify({ r: `${repo.owner}/${repo.repo}`, p: pull } satisfies ActionValue);
}

export function refreshValue(repo: { owner: string; repo: string }, branch?: string): string {
  return JSON.stringify({
    r: `${repo.owner}/${repo.repo}`,
    ...(branch ? { b: branch } : {}),
  } satisfies ActionValue);
}

/** The command a click asks for, or undefined for a value this version did not write. */
export function commandOfAction(actionId: string, value: string): MergeQueueCommand | undefined {
  let parsed: ActionValue;
  try {
    parsed = JSON.parse(value) as ActionValue;
  } catch {
    return undefined;
  }
  const [owner = "", name = ""] = String(parsed.r ?? "").split("/");
  if (!ownerSchema.safeParse(owner).success || !repositorySchema.safeParse(name).success) return undefined;
  const repo = { owner, repo: name };
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
