import { CommandError, CommandErrorCode } from "../../commands/errors.js";
import type { MergeQueue } from "../../commands/ports.js";

/**
 * The merge-queue port when Mergify is not configured (MERGE_QUEUE_PROVIDER=github without
 * MERGE_QUEUE_API_TOKEN): what only Mergify can answer (`branches`) says so, and calls nothing;
 * `stats` reads the history of GitHub's queue instead (src/yardmaster.ts, queueStatsEvents).
 */
export function withoutMergify(): MergeQueue {
  const refuse = (): never => {
    throw new CommandError(CommandErrorCode.Unavailable, {
      detail:
        "this reads Mergify, which is not configured: with MERGE_QUEUE_PROVIDER=github Yardmaster drives GitHub's own merge queue, which keeps no such log",
    });
  };
  return {
    pause: async () => refuse(),
    unpause: async () => refuse(),
    getPause: async () => refuse(),
    getStatus: async () => refuse(),
    getPullRequest: async () => refuse(),
    listBranches: async () => refuse(),
  };
}
