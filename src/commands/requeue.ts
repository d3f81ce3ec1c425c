import { queueName, unexpected } from "./arguments.js";
import { defineCommand } from "./command.js";
import { describeGitHubQueued, type GitHubQueueResult, isRelayed } from "./github-queue.js";
import { describeQueued, jumpFlag, queueOn } from "./queue.js";
import type { RelayCommand, RelayResult } from "./relay.js";
import { commentPull, pullArgument } from "./targets.js";

export interface RequeueCommand extends RelayCommand<"requeue"> {
  /** The merge queue's queue to use, when not its default. */
  queueName?: string;
  /** GitHub's merge queue only: put it at the head of the queue (`--jump`). */
  jump?: boolean;
}

/**
 * requeue: puts a pull request that left the queue back in it. Mergify made `requeue` a deprecated
 * alias of `queue`, so `queue [queue-name]` is what is relayed (the answer says so); it reads like queue.
 */
export const requeue = defineCommand<RequeueCommand, RelayResult<"requeue"> | GitHubQueueResult<"requeue">>({
  name: "requeue",
  summary: "put a pull request that left the queue back in it (--jump as for queue)",
  permission: "write",
  needsLink: true,
  changes: true,
  grammar: {
    github: {
      usage: "requeue [queue-name] [--jump]",
      read: ({ words }, place) => {
        const pull = commentPull("requeue", place);
        const { jump, rest } = jumpFlag(words);
        const [name, ...extra] = rest;
        unexpected("requeue", extra);
        return {
          name: "requeue",
          repo: place.repo,
          pull,
          ...(name ? { queueName: queueName("requeue", name) } : {}),
          ...(jump ? { jump } : {}),
        };
      },
    },
    slack: {
      usage: "requeue <pr> [queue-name] [--jump]",
      read: ({ words }, place) => {
        const { jump, rest: typed } = jumpFlag(words);
        const { repo, pull, rest } = pullArgument("requeue", typed, place);
        const [name, ...extra] = rest;
        unexpected("requeue", extra);
        return {
          name: "requeue",
          repo,
          pull,
          ...(name ? { queueName: queueName("requeue", name) } : {}),
          ...(jump ? { jump } : {}),
        };
      },
    },
  },
  execute: (command, actor, ports) => queueOn(command, actor, ports),
  describe: (result, context) =>
    isRelayed(result)
      ? describeQueued(result, context, "requeued")
      : describeGitHubQueued(result, context, "requeued"),
});
