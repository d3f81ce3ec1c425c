import type { Repo } from "../repo.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import type { Ports, PullRequestInfo } from "./ports.js";

/**
 * The pull request a command names, read from GitHub: refused when GitHub cannot be read, when the
 * number is not a pull request, and (`open`) when it is merged or closed.
 */
export async function pullRequestOf(
  ports: Pick<Ports, "github">,
  command: { name: string; repo: Repo; pull: number },
  open: boolean,
): Promise<PullRequestInfo> {
  const { repo, pull: number } = command;
  const details = { command: command.name, repository: repo.fullName, pull: number };
  const pull = await ports.github.pullRequest(repo, number).catch((error: unknown) => {
    if (error instanceof CommandError) throw error;
    throw new CommandError(CommandErrorCode.GitHubFailed, { ...details, detail: (error as Error).message });
  });
  if (!pull) throw new CommandError(CommandErrorCode.NotAPullRequest, details);
  if (open && pull.state !== "open") {
    throw new CommandError(CommandErrorCode.WrongPlace, {
      ...details,
      detail: pull.merged ? "the pull request is already merged" : "the pull request is closed",
    });
  }
  return pull;
}
