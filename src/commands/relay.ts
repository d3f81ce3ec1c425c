import type { Repo } from "../repo.js";
import type { Actor, DescribeContext } from "./command.js";
import type { Button, Description, Text, TextFormat } from "./description.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import type { Ports, PullRequestInfo } from "./ports.js";
import { pullLink } from "./present.js";
import { type QueueState, readQueueState } from "./queue-state.js";

/**
 * What queue, dequeue and requeue share. The merge queue's API cannot queue a pull request: it takes
 * those commands as comments addressed to itself, so Yardmaster posts one on the pull request (after
 * its own permission check) and then reads where the pull request stands (docs/commands.md).
 */

export type RelayName = "queue" | "dequeue" | "requeue";

export interface RelayCommand<N extends RelayName> {
  name: N;
  repo: Repo;
  pull: number;
}

export interface RelayResult<N extends RelayName> {
  name: N;
  repo: Repo;
  pull: PullRequestInfo;
  /** The exact command the merge queue was sent, e.g. "queue urgent". */
  relayed: string;
  relayCommentUrl: string;
  queue: QueueState;
}

/** The first line is for the merge queue; the rest says who asked and from where. */
function relayBody(prefix: string, relayed: string, actor: Actor): string {
  const where = actor.surface === "slack" ? "Slack" : "a pull-request comment";
  return `${prefix} ${relayed}\n\n<sub>Requested by **${actor.githubLogin ?? actor.display}** from ${where}, relayed by Yardmaster.</sub>`;
}

/** Posts `relayed` on the pull request for the merge queue, then reads the pull request's state. */
export async function relay<N extends RelayName>(
  command: RelayCommand<N>,
  relayed: string,
  actor: Actor,
  ports: Ports,
): Promise<RelayResult<N>> {
  const { repo, pull: number } = command;
  const details = { command: command.name, repository: repo.fullName, pull: number };
  const github = <T>(call: () => Promise<T>): Promise<T> =>
    call().catch((error: unknown) => {
      if (error instanceof CommandError) throw error;
      throw new CommandError(CommandErrorCode.GitHubFailed, { ...details, detail: (error as Error).message });
    });
  const pull = await github(() => ports.github.pullRequest(repo, number));
  if (!pull) throw new CommandError(CommandErrorCode.NotAPullRequest, details);
  // A closed pull request can still be taken out of the queue, never put in it.
  if (pull.state !== "open" && command.name !== "dequeue") {
    throw new CommandError(CommandErrorCode.WrongPlace, {
      ...details,
      detail: pull.merged ? "the pull request is already merged" : "the pull request is closed",
    });
  }
  const body = relayBody(ports.commandPrefix, relayed, actor);
  const comment = await github(() => ports.github.comment(repo, number, body));
  const queue = await readQueueState(ports.mergeQueue, repo, number, command.name, false);
  return { name: command.name, repo, pull, relayed, relayCommentUrl: comment.url, queue };
}

/** "📨 Relayed `queue` for #42 title to the merge queue", naming who asked when the answer is posted. */
export function relayedSentence(result: RelayResult<RelayName>, f: TextFormat, ctx: DescribeContext): string {
  const pr = pullLink(f, result.pull);
  const relayed = f.code(result.relayed);
  return ctx.by
    ? `📨 ${ctx.by} relayed ${relayed} for ${pr} to the merge queue`
    : `📨 Relayed ${relayed} for ${pr} to the merge queue`;
}

/** "…; its state is unknown: <why>": the relay happened, only the read after it failed. */
export function unknownState(
  result: RelayResult<RelayName>,
  error: CommandError,
  f: TextFormat,
  ctx: DescribeContext,
): string {
  return `${relayedSentence(result, f, ctx)}; its state is unknown: ${ctx.error(error)(f)}`;
}

/** The sentence, then where the relayed comment is, then any button. */
export function describeRelay(
  result: RelayResult<RelayName>,
  text: Text,
  buttons: Button[] = [],
): Description {
  const note: Text = (f) =>
    `${f.code(result.repo.fullName)} · relayed as ${f.code(result.relayed)} in ${f.link(result.relayCommentUrl, "a comment")} on #${result.pull.number}`;
  return {
    parts: [
      { kind: "sentence", text },
      { kind: "note", texts: [note] },
      ...(buttons.length ? [{ kind: "buttons" as const, buttons }] : []),
    ],
    summary: text,
  };
}
