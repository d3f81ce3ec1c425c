import type { Repo } from "../repo.js";
import { noArguments, unexpected } from "./arguments.js";
import { defineCommand } from "./command.js";
import { sentence } from "./description.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import { pausesOf } from "./github-queue.js";
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
    // A queue without a pause: refused before anything else (a timed pause's end included).
    const pauses = await pausesOf(ports, "unpause", command.repo);
    const by = actor.githubLogin ?? actor.display;
    if (!(await pauses.resume({ repo: command.repo, branch: null }, by))) {
      // Not paused any more: a timed pause's end has nothing left to end.
      await ports.unpauseSchedule?.cancel(command.repo).catch(() => false);
      throw new CommandError(CommandErrorCode.NotPaused, {
        command: "unpause",
        repository: command.repo.fullName,
      });
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
