import type { Button, Text } from "../wording/description.js";
import { pullLink } from "../wording/words.js";
import { defineCommand } from "./command.js";
import {
  actDirectly,
  baseBranchOf,
  type DirectQueueResult,
  describeGitHubDequeued,
  isRelayed,
  queueOf,
} from "./github-queue.js";
import { noArguments, unexpected } from "./grammar/arguments.js";
import { commentPull, pullArgument } from "./grammar/targets.js";
import { queuePlace } from "./queue-state.js";
import {
  answeredSentence,
  describeRelay,
  type RelayCommand,
  type RelayResult,
  relay,
  relayedSentence,
  unknownState,
} from "./relay.js";

/** dequeue: relays `dequeue`; a pull request that left without merging can be requeued at a click. */
export const dequeue = defineCommand<
  RelayCommand<"dequeue">,
  RelayResult<"dequeue"> | DirectQueueResult<"dequeue">
>({
  name: "dequeue",
  summary: "remove the pull request from the merge queue",
  permission: "write",
  needsLink: true,
  changes: true,
  grammar: {
    github: {
      usage: "dequeue",
      read: ({ text }, place) => {
        const pull = commentPull("dequeue", place);
        noArguments("dequeue", text);
        return { name: "dequeue", repo: place.repo, pull };
      },
    },
    slack: {
      usage: "dequeue <pr>",
      read: ({ words }, place) => {
        const { repo, pull, rest } = pullArgument("dequeue", words, place);
        unexpected("dequeue", rest);
        return { name: "dequeue", repo, pull };
      },
    },
  },
  async execute(command, actor, ports) {
    const backend = await queueOf(ports, command.repo, baseBranchOf(ports, command.repo, command.pull));
    return backend.commands.via === "api"
      ? actDirectly(command, backend.commands, (r, n) => backend.entry(r, n), ports, actor)
      : relay(command, "dequeue", actor, ports, backend);
  },
  describe(result, context) {
    if (!isRelayed(result)) return describeGitHubDequeued(result, context);
    const { by } = context;
    const text: Text = (f) => {
      const answered = answeredSentence(result, f, context);
      if (answered) return answered;
      const state = result.queue;
      const pr = pullLink(f, result.pull);
      if (state.state === "unknown") return unknownState(result, state.error, f, context);
      if (state.state === "not_queued") {
        return by
          ? `✅ ${by} dequeued ${pr}: it is not in the merge queue any more.`
          : `✅ ${pr} is not in the merge queue any more.`;
      }
      return `${relayedSentence(result, f, context)}; it is still listed ${queuePlace(f, state.entry, null)} until the merge queue processes the command.`;
    };
    const { pull, repo } = result;
    const leftWithoutMerging = result.queue.state === "not_queued" && !pull.merged && pull.state === "open";
    const buttons: Button[] = leftWithoutMerging
      ? [{ label: `Requeue #${pull.number}`, runs: { name: "requeue", repo, pull: pull.number } }]
      : [];
    return describeRelay(result, text, buttons);
  },
});
