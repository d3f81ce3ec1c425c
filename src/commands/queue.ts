import { estimatedAt } from "../core/merge-queue.js";
import type { Repo } from "../repo.js";
import type { Description, Text } from "../wording/description.js";
import { clip, formatEta, pullLink } from "../wording/words.js";
import {
  type Actor,
  type CommentPlace,
  type DescribeContext,
  defineCommand,
  type Grammar,
  type SlackPlace,
} from "./command.js";
import {
  actDirectly,
  baseBranchOf,
  type DirectQueueResult,
  describeGitHubQueued,
  isRelayed,
  notOnThisQueue,
  queueOf,
} from "./github-queue.js";
import { queueName, unexpected } from "./grammar/arguments.js";
import { commentPull, pullArgument } from "./grammar/targets.js";
import type { Ports } from "./ports.js";
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

/** queue and requeue: a pull request, the queue to use when not the default, and GitHub's `--jump`. */
export type QueueLike<N extends "queue" | "requeue"> = RelayCommand<N> & {
  /** The merge queue's queue to use, when not its default. */
  queueName?: string;
  /** GitHub's merge queue only: put it at the head of the queue (`--jump`). */
  jump?: boolean;
};
export type QueueCommand = QueueLike<"queue">;

/** `--jump`, anywhere after the command, and the other words. */
export function jumpFlag(words: string[]): { jump?: true; rest: string[] } {
  const rest = words.filter((w) => w !== "--jump");
  return rest.length < words.length ? { jump: true, rest } : { rest };
}

/**
 * queue and requeue on the queue serving the pull request's base branch: directly where it takes them
 * (GitHub's: no named queues), otherwise relayed as a comment (Mergify's: no `--jump`).
 */
export async function queueOn<N extends "queue" | "requeue">(
  command: QueueLike<N>,
  actor: Actor,
  ports: Ports,
): Promise<RelayResult<N> | DirectQueueResult<N>> {
  const backend = await queueOf(ports, command.repo, baseBranchOf(ports, command.repo, command.pull));
  const { can, cannot } = backend;
  if (!can.namedQueues && command.queueName) {
    notOnThisQueue(command.name, command.repo, cannot.namedQueues ?? "its merge queue has no named queues");
  }
  if (!can.jump && command.jump) {
    notOnThisQueue(command.name, command.repo, cannot.jump ?? "its merge queue cannot put one at its head");
  }
  await rememberAsker(command, actor, ports);
  if (backend.commands.via === "api")
    return actDirectly(command, backend.commands, (r, n) => backend.entry(r, n), ports, actor);
  return relay(command, command.queueName ? `queue ${command.queueName}` : "queue", actor, ports, backend);
}

/**
 * Who asked, remembered before the merge queue is asked (its log or webhook may come first): the merge
 * queue names only the app's bot as the pull request's queuer. The same write again in a run that takes
 * the command over (who asked, kept per pull request and day): not a step.
 */
async function rememberAsker(
  command: { repo: Repo; pull: number },
  actor: Actor,
  ports: Ports,
): Promise<void> {
  if (!actor.githubLogin) return;
  await ports
    .attributeQueue?.(command.repo, command.pull, {
      login: actor.githubLogin,
      at: ports.now?.() ?? new Date(),
    })
    .catch(() => undefined);
}

/** queue: relays `queue [queue-name]` to Mergify, or enqueues on GitHub's own merge queue (`--jump` there). */
export const queue = defineCommand<QueueCommand, RelayResult<"queue"> | DirectQueueResult<"queue">>({
  name: "queue",
  summary:
    "add the pull request to the merge queue (--jump: at the head; for GitHub's merge queue only, refused where the repository's is Mergify)",
  permission: "write",
  needsLink: true,
  changes: true,
  grammar: queueGrammar("queue"),
  execute: (command, actor, ports) => queueOn(command, actor, ports),
  describe: (result, context) => describeQueueOn(result, context, "queued"),
});

/** The grammar of queue and requeue: `[queue-name] [--jump]` on the comment's pull request, or after `<pr>`. */
export function queueGrammar<N extends "queue" | "requeue">(
  name: N,
): { github: Grammar<QueueLike<N>, CommentPlace>; slack: Grammar<QueueLike<N>, SlackPlace> } {
  const command = (repo: Repo, pull: number, jump: true | undefined, rest: string[]): QueueLike<N> => {
    const [queue, ...extra] = rest;
    unexpected(name, extra);
    return {
      name,
      repo,
      pull,
      ...(queue ? { queueName: queueName(name, queue) } : {}),
      ...(jump ? { jump } : {}),
    };
  };
  return {
    github: {
      usage: `${name} [queue-name] [--jump]`,
      read: ({ words }, place) => {
        const pull = commentPull(name, place);
        const { jump, rest } = jumpFlag(words);
        return command(place.repo, pull, jump, rest);
      },
    },
    slack: {
      usage: `${name} <pr> [queue-name] [--jump]`,
      read: ({ words }, place) => {
        const { jump, rest: typed } = jumpFlag(words);
        const { repo, pull, rest } = pullArgument(name, typed, place);
        return command(repo, pull, jump, rest);
      },
    },
  };
}

/** How queue and requeue read: where the pull request stands, on Mergify's queue or GitHub's. */
export function describeQueueOn(
  result: RelayResult<"queue" | "requeue"> | DirectQueueResult<"queue" | "requeue">,
  context: DescribeContext,
  verb: "queued" | "requeued",
): Description {
  return isRelayed(result)
    ? describeQueued(result, context, verb)
    : describeGitHubQueued(result, context, verb);
}

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
    const answered = answeredSentence(result, f, context);
    if (answered) return answered;
    const state = result.queue;
    if (state.state === "unknown") return unknownState(result, state.error, f, context);
    if (state.state === "not_queued") {
      return result.answer
        ? `✅ The merge queue accepted ${f.code(result.relayed)} for ${pullLink(f, result.pull)}.`
        : `${relayedSentence(result, f, context)}; the merge queue has not picked it up yet.`;
    }
    if (context.surface === "github") {
      // The summary comment sits on the pull request itself, so the number alone names it. This
      // wording and Slack's below are both pinned by the end-to-end tests; one could replace the other.
      const e = state.entry;
      return `✅ #${result.pull.number} is in the merge queue ${f.code(clip(e.queue ?? "", 100))} at position ${e.position}, ETA ${formatEta(estimatedAt(e.estimate, context.now), context.now)}.`;
    }
    const pr = pullLink(f, result.pull);
    const place = queuePlace(f, state.entry, context.now);
    return by ? `✅ ${by} ${done} ${pr}: it is ${place}.` : `✅ ${pr} is ${place}.`;
  };
  return describeRelay(result, text);
}
