import { MergeQueueError, MergeQueueErrorCode } from "../backends/mergify/index.js";
import type { Repo } from "../repo.js";
import { noArguments, unexpected } from "./arguments.js";
import { defineCommand } from "./command.js";
import { sentence } from "./description.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import { githubQueueOf, NO_PAUSE, notOnGitHubQueue } from "./github-queue.js";
import { attributePause } from "./pause.js";
import { repoArgument } from "./targets.js";

export interface UnpauseCommand {
  name: "unpause";
  repo: Repo;
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
      usage: "unpause",
      read: ({ text }, place) => {
        noArguments("unpause", text);
        return { name: "unpause", repo: place.repo };
      },
    },
    slack: {
      usage: "unpause [repo]",
      read: ({ words }, place) => {
        const { repo, rest } = repoArgument("unpause", words, place);
        unexpected("unpause", rest);
        return { name: "unpause", repo };
      },
    },
  },
  async execute(command, actor, ports) {
    // GitHub's merge queue has no pause: refused before anything else (a timed pause's end included).
    if (await githubQueueOf(ports, command.repo)) notOnGitHubQueue("unpause", command.repo, NO_PAUSE);
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
      const repo = f.code(result.repo.fullName);
      return by
        ? `▶️ ${by} unpaused the merge queue of ${repo}: it is running again.`
        : `▶️ The merge queue of ${repo} is running again.`;
    }),
});
