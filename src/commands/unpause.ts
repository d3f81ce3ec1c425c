import { MergeQueueError, MergeQueueErrorCode } from "../backends/mergify/index.js";
import type { QueuePauses } from "../core/pause.js";
import type { Repo } from "../repo.js";
import { noArguments, unexpected } from "./arguments.js";
import { type Actor, defineCommand } from "./command.js";
import { sentence } from "./description.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import { branchOption, githubPausesOf } from "./github-pause.js";
import { attributePause, pauser } from "./pause.js";
import type { Ports } from "./ports.js";
import { clip } from "./present.js";
import { repoArgument } from "./targets.js";

export interface UnpauseCommand {
  name: "unpause";
  repo: Repo;
  /** `branch=<name>`: one branch's queue (GitHub's merge queue); absent: the default branch's. */
  branch?: string;
}

/** `[branch=<name>]`, and nothing else, after the repository. */
function unpauseArguments(repo: Repo, text: string): UnpauseCommand {
  const { branch, rest } = branchOption("unpause", text);
  noArguments("unpause", rest);
  return { name: "unpause", repo, ...(branch !== undefined ? { branch } : {}) };
}

/** unpause (or resume): lets the repository's merge queue run again. */
export const unpause = defineCommand<UnpauseCommand, UnpauseCommand>({
  name: "unpause",
  aliases: ["resume"],
  summary: "resume the repository's merge queue",
  permission: "write",
  needsLink: true,
  changes: true,
  grammar: {
    github: {
      usage: "unpause [branch=<name>]",
      read: ({ text }, place) => unpauseArguments(place.repo, text),
    },
    slack: {
      usage: "unpause [repo] [branch=<name>]",
      read: ({ words }, place) => {
        const { repo, rest } = repoArgument("unpause", words, place);
        const command = unpauseArguments(repo, rest.join(" "));
        unexpected("unpause", rest.slice(command.branch !== undefined ? 1 : 0));
        return command;
      },
    },
  },
  async execute(command, actor, ports) {
    // GitHub's merge queue resumes through the gate check where it is wired; refused otherwise, before
    // anything else (a timed pause's end included).
    const gate = await githubPausesOf(ports, "unpause", command.repo, command.branch);
    if (gate) return unpauseGate(command, actor, ports, gate);
    try {
      await ports.mergeQueue.unpause(command.repo);
    } catch (error) {
      // The service answers 404 when there is no pause to delete; say that rather than "not found".
      if (error instanceof MergeQueueError && error.code === MergeQueueErrorCode.NotFound) {
        const state = await ports.mergeQueue.getPause(command.repo);
        if (!state.paused) {
          // Not paused any more: a timed pause's end has nothing left to end.
          await ports.unpauseSchedule?.cancel(command.repo).catch(() => false);
          throw new CommandError(CommandErrorCode.NotPaused, {
            command: "unpause",
            repository: command.repo.fullName,
          });
        }
      }
      throw error;
    }
    // A manual unpause cancels a timed pause's end (best effort: the runner also finds it unpaused).
    await ports.unpauseSchedule?.cancel(command.repo).catch(() => false);
    await attributePause(ports, actor, command.repo, "unpause", null);
    return { name: "unpause", repo: command.repo };
  },
  describe: (result, { by }) =>
    sentence((f) => {
      const repo = `${f.code(result.repo.fullName)}${result.branch !== undefined ? ` (branch ${f.code(clip(result.branch, 255))})` : ""}`;
      return by
        ? `▶️ ${by} unpaused the merge queue of ${repo}: it is running again.`
        : `▶️ The merge queue of ${repo} is running again.`;
    }),
});

/** GitHub's merge queue: the gate's pause of the branch ends (a timed pause of the default branch too). */
async function unpauseGate(
  command: UnpauseCommand,
  actor: Actor,
  ports: Ports,
  gate: QueuePauses,
): Promise<UnpauseCommand> {
  const resumed = await gate.resume({ repo: command.repo, branch: command.branch ?? null }, pauser(actor));
  if (command.branch === undefined) await ports.unpauseSchedule?.cancel(command.repo).catch(() => false);
  if (!resumed) {
    throw new CommandError(CommandErrorCode.NotPaused, {
      command: "unpause",
      repository: command.repo.fullName,
    });
  }
  await attributePause(ports, actor, command.repo, "unpause", null);
  return command;
}
