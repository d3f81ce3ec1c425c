import { noArguments, unexpected } from "./arguments.js";
import { defineCommand } from "./command.js";
import { describeQueued } from "./queue.js";
import { type RelayCommand, type RelayResult, relay } from "./relay.js";
import { commentPull, pullArgument } from "./targets.js";

/** requeue: relays `requeue` for a pull request that left the queue; it then reads like queue. */
export const requeue = defineCommand<RelayCommand<"requeue">, RelayResult<"requeue">>({
  name: "requeue",
  summary: "put a pull request that left the queue back in it",
  permission: "write",
  needsLink: true,
  changes: true,
  grammar: {
    github: {
      usage: "requeue",
      read: ({ text }, place) => {
        const pull = commentPull("requeue", place);
        noArguments("requeue", text);
        return { name: "requeue", repo: place.repo, pull };
      },
    },
    slack: {
      usage: "requeue <pr>",
      read: ({ words }, place) => {
        const { repo, pull, rest } = pullArgument("requeue", words, place);
        unexpected("requeue", rest);
        return { name: "requeue", repo, pull };
      },
    },
  },
  execute: (command, actor, ports) => relay(command, "requeue", actor, ports),
  describe: (result, context) => describeQueued(result, context, "requeued"),
});
