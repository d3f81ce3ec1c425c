import { queueName, unexpected } from "./arguments.js";
import { type DescribeContext, defineCommand } from "./command.js";
import type { Description, Text } from "./description.js";
import { clip, formatEta, pullLink } from "./present.js";
import { queuePlace } from "./queue-state.js";
import {
  describeRelay,
  type RelayCommand,
  type RelayResult,
  relay,
  relayedSentence,
  unknownState,
} from "./relay.js";
import { commentPull, pullArgument } from "./targets.js";

export interface QueueCommand extends RelayCommand<"queue"> {
  /** The merge queue's queue to use, when not its default. */
  queueName?: string;
}

/** queue: relays `queue [queue-name]` to the merge queue on the pull request. */
export const queue = defineCommand<QueueCommand, RelayResult<"queue">>({
  name: "queue",
  summary: "add the pull request to the merge queue",
  permission: "write",
  needsLink: true,
  changes: true,
  grammar: {
    github: {
      usage: "queue [queue-name]",
      read: ({ words }, place) => {
        const pull = commentPull("queue", place);
        const [name, ...extra] = words;
        unexpected("queue", extra);
        return name
          ? { name: "queue", repo: place.repo, pull, queueName: queueName("queue", name) }
          : { name: "queue", repo: place.repo, pull };
      },
    },
    slack: {
      usage: "queue <pr> [queue-name]",
      read: ({ words }, place) => {
        const { repo, pull, rest } = pullArgument("queue", words, place);
        const [name, ...extra] = rest;
        unexpected("queue", extra);
        return name
          ? { name: "queue", repo, pull, queueName: queueName("queue", name) }
          : { name: "queue", repo, pull };
      },
    },
  },
  execute: (command, actor, ports) =>
    relay(command, command.queueName ? `queue ${command.queueName}` : "queue", actor, ports),
  describe: (result, context) => describeQueued(result, context, "queued"),
});

/**
 * Where the pull request stands after queue or requeue, truthfully: its place, or that the merge
 * queue has not picked the command up yet, or that its state could not be read.
 */
export function describeQueued(
  result: RelayResult<"queue" | "requeue">,
  context: DescribeContext,
  done: string,
): Description {
  const { by } = context;
  const text: Text = (f) => {
    const state = result.queue;
    if (state.state === "unknown") return unknownState(result, state.error, f, context);
    if (state.state === "not_queued")
      return `${relayedSentence(result, f, context)}; the merge queue has not picked it up yet.`;
    if (context.surface === "github") {
      // The summary comment sits on the pull request itself, so the number alone names it. This
      // wording and Slack's below are both pinned by the end-to-end tests; one could replace the other.
      const d = state.details;
      return `✅ #${result.pull.number} is in the merge queue ${f.code(clip(d.queue_rule_name, 100))} at position ${d.position + 1}, ETA ${formatEta(d.estimated_time_of_merge, context.now)}.`;
    }
    const pr = pullLink(f, result.pull);
    const place = queuePlace(f, state.details, context.now);
    return by ? `✅ ${by} ${done} ${pr}: it is ${place}.` : `✅ ${pr} is ${place}.`;
  };
  return describeRelay(result, text);
}
