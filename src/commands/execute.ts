import { MergeQueueError, MergeQueueErrorCode } from "../merge-queue/index.js";
import type { Actor, CommandOf, MergeQueueCommand } from "./command.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import { fromMergeQueueError } from "./from-merge-queue-error.js";
import type { GitHubGateway, MergeQueue, PauseAttribution } from "./ports.js";
import type { CommandResult, QueueState } from "./result.js";

export interface ExecuteDeps {
  mergeQueue: MergeQueue;
  github: GitHubGateway;
  /** How relayed commands are addressed (MERGE_QUEUE_COMMAND_PREFIX). */
  commandPrefix: string;
  /**
   * Remembers who paused or unpaused through Yardmaster: the merge queue sees only the app's account,
   * so its pause events cannot say (the notifier reads this back).
   */
  attributePause?: (attribution: PauseAttribution) => Promise<void>;
}

/**
 * Runs an authorized command against the merge queue (PRODUCT.md section 1): queue, dequeue and
 * requeue are relayed as a comment on the pull request; the others call the API. Throws CommandError.
 */
export async function execute(
  command: MergeQueueCommand,
  actor: Actor,
  deps: ExecuteDeps,
): Promise<CommandResult> {
  const context = { command: command.name, repository: "repo" in command ? command.repo.fullName : "" };
  try {
    switch (command.name) {
      case "queue":
      case "dequeue":
      case "requeue":
        return await relay(command, actor, deps);
      case "pause": {
        const pause = await deps.mergeQueue.pause(command.repo, command.reason);
        await attribute(deps, actor, command.repo, "pause", command.reason);
        return { name: "pause", repo: command.repo, pause };
      }
      case "unpause":
        await unpause(command, deps);
        await attribute(deps, actor, command.repo, "unpause", null);
        return { name: "unpause", repo: command.repo };
      case "status": {
        const options = command.branch ? { branch: command.branch } : {};
        const status = await deps.mergeQueue.getStatus(command.repo, options);
        return { name: "status", repo: command.repo, ...options, status };
      }
      case "pr":
        return {
          name: "pr",
          repo: command.repo,
          pull: command.pull,
          queue: await readQueueState(command.repo, command.pull, "pr", deps, true),
        };
      case "branches":
        return {
          name: "branches",
          repo: command.repo,
          branches: await deps.mergeQueue.listBranches(command.repo),
        };
      case "help":
        return { name: "help", surface: actor.surface };
    }
  } catch (error) {
    throw fromMergeQueueError(error, context);
  }
}

/** Best effort: the pause happened whether or not it can be attributed. */
async function attribute(
  deps: ExecuteDeps,
  actor: Actor,
  repo: CommandOf<"pause">["repo"],
  action: "pause" | "unpause",
  reason: string | null,
): Promise<void> {
  await deps
    .attributePause?.({
      repository: repo,
      action,
      reason,
      actor: actor.githubLogin ?? actor.display,
      surface: actor.surface,
      at: new Date(),
    })
    .catch(() => undefined);
}

async function unpause(command: CommandOf<"unpause">, deps: ExecuteDeps): Promise<void> {
  try {
    await deps.mergeQueue.unpause(command.repo);
  } catch (error) {
    // The service answers 404 when there is no pause to delete; say that rather than "not found".
    if (error instanceof MergeQueueError && error.code === MergeQueueErrorCode.NotFound) {
      const pause = await deps.mergeQueue.getPause(command.repo);
      if (!pause.paused) {
        throw new CommandError(CommandErrorCode.NotPaused, {
          command: "unpause",
          repository: command.repo.fullName,
        });
      }
    }
    throw error;
  }
}

/** The first line is for the merge queue; the rest says who asked and from where. */
export function relayBody(prefix: string, relayed: string, actor: Actor): string {
  const where = actor.surface === "slack" ? "Slack" : "a pull-request comment";
  return `${prefix} ${relayed}\n\n<sub>Requested by **${actor.githubLogin ?? actor.display}** from ${where}, relayed by Yardmaster.</sub>`;
}

async function relay(
  command: CommandOf<"queue" | "dequeue" | "requeue">,
  actor: Actor,
  deps: ExecuteDeps,
): Promise<CommandResult> {
  const { repo, pull: number } = command;
  const details = { command: command.name, repository: repo.fullName, pull: number };
  let pull: Awaited<ReturnType<GitHubGateway["pullRequest"]>>;
  try {
    pull = await deps.github.pullRequest(repo, number);
  } catch (error) {
    if (error instanceof CommandError) throw error;
    throw new CommandError(CommandErrorCode.GitHubFailed, { ...details, detail: (error as Error).message });
  }
  if (!pull) throw new CommandError(CommandErrorCode.NotAPullRequest, details);
  if (pull.state !== "open" && command.name !== "dequeue") {
    throw new CommandError(CommandErrorCode.WrongPlace, {
      ...details,
      detail: pull.merged ? "the pull request is already merged" : "the pull request is closed",
    });
  }
  const relayed = command.name === "queue" && command.queueName ? `queue ${command.queueName}` : command.name;
  let comment: { id: number; url: string };
  try {
    comment = await deps.github.comment(repo, number, relayBody(deps.commandPrefix, relayed, actor));
  } catch (error) {
    if (error instanceof CommandError) throw error;
    throw new CommandError(CommandErrorCode.GitHubFailed, { ...details, detail: (error as Error).message });
  }
  const queue = await readQueueState(repo, number, command.name, deps, false);
  return { name: command.name, repo, pull, relayed, relayCommentUrl: comment.url, queue };
}

/** Reads one pull request's place in the queue; after a relay, a failed read is reported, not thrown. */
async function readQueueState(
  repo: CommandOf<"pr">["repo"],
  number: number,
  command: "queue" | "dequeue" | "requeue" | "pr",
  deps: ExecuteDeps,
  strict: boolean,
): Promise<QueueState> {
  try {
    return { state: "queued", details: await deps.mergeQueue.getPullRequest(repo, number) };
  } catch (error) {
    if (error instanceof MergeQueueError && error.code === MergeQueueErrorCode.NotInQueue)
      return { state: "not_queued" };
    const converted = fromMergeQueueError(error, { command, repository: repo.fullName, pull: number });
    if (strict) throw converted;
    return { state: "unknown", error: converted };
  }
}
