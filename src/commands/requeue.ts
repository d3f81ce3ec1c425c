import { defineCommand } from "./command.js";
import type { DirectQueueResult } from "./github-queue.js";
import { describeQueueOn, type QueueLike, queueGrammar, queueOn } from "./queue.js";
import type { RelayResult } from "./relay.js";

export type RequeueCommand = QueueLike<"requeue">;

/**
 * requeue: puts a pull request that left the queue back in it. Mergify made `requeue` a deprecated
 * alias of `queue`, so `queue [queue-name]` is what is relayed (the answer says so); it reads like queue.
 */
export const requeue = defineCommand<RequeueCommand, RelayResult<"requeue"> | DirectQueueResult<"requeue">>({
  name: "requeue",
  summary: "put a pull request that left the queue back in it (--jump as for queue)",
  permission: "write",
  needsLink: true,
  changes: true,
  grammar: queueGrammar("requeue"),
  execute: (command, actor, ports) => queueOn(command, actor, ports),
  describe: (result, context) => describeQueueOn(result, context, "requeued"),
});
