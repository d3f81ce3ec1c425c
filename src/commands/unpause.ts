import type { Repo } from "../repo.js";
import { sentence } from "../wording/description.js";
import { clip } from "../wording/words.js";
import { defineCommand } from "./command.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import { branchOption, pausesOf } from "./github-pause.js";
import { noArguments, unexpected } from "./grammar/arguments.js";
import { repoArgument } from "./grammar/targets.js";
import { attributePause, pauser } from "./pause.js";
import { stepsOf } from "./steps.js";

export interface UnpauseCommand {
  name: "unpause";
  repo: Repo;
  /** `branch=<name>`: one branch's queue (GitHub's merge queue); absent: the default branch's. */
  branch?: string;
}

export interface UnpauseResult extends UnpauseCommand {
  /** The branch resumed, where one pause holds one branch (the gate): named in the answer. */
  held?: string;
  /** Said where the queue does not run yet (the gate: held gates GitHub would not complete). */
  warning?: string;
}

/** `[branch=<name>]`, and nothing else, after the repository. */
function unpauseArguments(repo: Repo, text: string): UnpauseCommand {
  const { branch, rest } = branchOption("unpause", text);
  noArguments("unpause", rest);
  return { name: "unpause", repo, ...(branch !== undefined ? { branch } : {}) };
}

/** unpause (or resume): lets the repository's merge queue run again. */
export const unpause = defineCommand<UnpauseCommand, UnpauseResult>({
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
    // A queue without a pause: refused before anything else (a timed pause's end included).
    const pauses = await pausesOf(ports, "unpause", command.repo, command.branch);
    const target = { repo: command.repo, branch: command.branch ?? null };
    // The merge queue's resume, once: a run taking over a resume begun and not recorded finds the queue
    // running (its replica died after asking) and does not ask again.
    const resumed = await stepsOf(ports).once(
      "queue.resume",
      () => pauses.resume(target, pauser(actor)),
      async () => ((await pauses.current(target)) === null ? true : null),
    );
    // The default branch's timed pause has nothing left to end, whether this unpaused it or it was not
    // paused any more (best effort: the runner also finds it unpaused). Who unpaused is kept per
    // repository, for the default branch's queue too (the gate tells a branch's own). Both are the same
    // write again in a run that takes the command over: not steps.
    const defaultBranch = command.branch === undefined;
    if (defaultBranch) await ports.unpauseSchedule?.cancel(command.repo).catch(() => false);
    if (!resumed) {
      throw new CommandError(CommandErrorCode.NotPaused, {
        command: "unpause",
        repository: command.repo.fullName,
      });
    }
    if (defaultBranch) await attributePause(ports, actor, command.repo, "unpause", null);
    const said = typeof resumed === "object" ? resumed : {};
    return {
      ...command,
      ...(said.branch !== undefined ? { held: said.branch } : {}),
      ...(said.warning ? { warning: said.warning } : {}),
    };
  },
  describe: (result, { by }) =>
    sentence((f) => {
      const branch = result.branch ?? result.held;
      const repo = `${f.code(result.repo.fullName)}${branch !== undefined ? ` (branch ${f.code(clip(branch, 255))})` : ""}`;
      if (result.warning) {
        const warning = f.escape(clip(result.warning, 500));
        return by
          ? `⚠️ ${by} unpaused the merge queue of ${repo}. ${warning}`
          : `⚠️ The merge queue of ${repo} was unpaused. ${warning}`;
      }
      return by
        ? `▶️ ${by} unpaused the merge queue of ${repo}: it is running again.`
        : `▶️ The merge queue of ${repo} is running again.`;
    }),
});
