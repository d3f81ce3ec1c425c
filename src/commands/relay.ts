import type { CommandAnswer, MergeQueueBackend } from "../core/merge-queue.js";
import type { Repo } from "../repo.js";
import type { Button, Description, Text, TextFormat } from "../wording/description.js";
import { clip, pullLink } from "../wording/words.js";
import type { Actor, DescribeContext } from "./command.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import type { Ports, PullRequestInfo } from "./ports.js";
import { pullRequestOf } from "./pull-request.js";
import { type QueueState, readQueueState } from "./queue-state.js";
import { stepMarker, stepsOf } from "./steps.js";

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
  /** The relay as followed in the store (relay-follow.ts); null when nothing follows it. */
  relayId?: string | null;
  /** The merge queue's answer in the thread, once it came (relay-follow.ts). */
  answer?: { read: CommandAnswer; url: string } | null;
}

/** What following a relay keeps of it (the store's `relay` JSON): its result without the queue state. */
export type StoredRelay = Omit<RelayResult<RelayName>, "repo" | "queue" | "relayId" | "answer">;

/** Mergify's documentation of `commands_restrictions`, which a refusal points at. */
const COMMAND_RESTRICTIONS_DOC = "https://docs.mergify.com/commands/restrictions/";

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
  backend: Pick<MergeQueueBackend, "entry">,
): Promise<RelayResult<N>> {
  const { repo, pull: number } = command;
  const details = { command: command.name, repository: repo.fullName, pull: number };
  const github = <T>(call: () => Promise<T>): Promise<T> =>
    call().catch((error: unknown) => {
      if (error instanceof CommandError) throw error;
      throw new CommandError(CommandErrorCode.GitHubFailed, { ...details, detail: (error as Error).message });
    });
  // A closed pull request can still be taken out of the queue, never put in it.
  const pull = await pullRequestOf(ports, command, command.name !== "dequeue");
  // Each outside effect once across the runs of this command (a run taken over skips what was done).
  const steps = stepsOf(ports);
  // The relayed comment carries its step's key, hidden: a run taking over finds it rather than post again.
  const marker = ports.steps ? stepMarker(steps.key("relay.comment")) : "";
  const body = `${relayBody(ports.commandPrefix, relayed, actor)}${marker ? `\n${marker}` : ""}`;
  // Followed from before the comment exists: the merge queue may answer before the comment's call does.
  const follow = ports.relayFollow;
  const stored = (relayCommentUrl: string): StoredRelay => ({
    name: command.name,
    pull,
    relayed,
    relayCommentUrl,
  });
  // The relay's id is the step's key: created again by a run that took over, it is the same relay
  // (createRelay keeps the one it finds), so the step may be made twice, never followed twice.
  const relayId = follow
    ? await steps.once("relay.follow", async () => {
        const id = steps.key("relay.follow");
        const now = (ports.now ?? (() => new Date()))();
        await follow.store.createRelay({
          id,
          repository: repo,
          pull: number,
          commandName: relayed.split(" ", 1)[0] ?? relayed,
          surface: actor.surface,
          relayedAt: now,
          deadline: new Date(now.getTime() + follow.seconds * 1000),
          relay: stored(""),
        });
        return id;
      })
    : null;
  let comment: { url: string };
  try {
    comment = await steps.once(
      "relay.comment",
      () => github(() => ports.github.comment(repo, number, body)),
      marker ? () => github(() => ports.github.findComment(repo, number, marker)) : undefined,
    );
  } catch (error) {
    // Nothing relayed: nothing to follow. The step is forgotten first: a later run of this command
    // follows its relay again (its record would otherwise name a relay deleted).
    if (follow && relayId) {
      await steps.forget("relay.follow").catch(() => undefined);
      await follow.store.deleteRelay(relayId).catch(() => undefined);
    }
    throw error;
  }
  if (follow && relayId) await follow.store.updateRelay(relayId, stored(comment.url));
  const queue = await readQueueState(backend, repo, number, command.name, false);
  return { name: command.name, repo, pull, relayed, relayCommentUrl: comment.url, queue, relayId };
}

/** Whether the merge queue turned the relayed command down: the surface ends with 😕. */
export function relayTurnedDown(result: RelayResult<RelayName>): boolean {
  const kind = result.answer?.read.kind;
  return kind === "refused" || kind === "not-understood";
}

/** The merge queue's headline, quoted, escaped: “Waiting for conditions to match”. */
function quoted(answer: CommandAnswer, f: TextFormat): string {
  return `“${f.escape(clip(answer.headline, 200))}”`;
}

/**
 * The relay's sentence once the merge queue answered, or null when it has not (or accepted it: the
 * command's own sentence says where the pull request stands). A refusal says what to change.
 */
export function answeredSentence(
  result: RelayResult<RelayName>,
  f: TextFormat,
  ctx: DescribeContext,
): string | null {
  const answer = result.answer?.read;
  if (!answer) return null;
  const pr = pullLink(f, result.pull);
  const relayed = f.code(result.relayed);
  switch (answer.kind) {
    case "accepted":
      return null;
    case "refused":
      return `😕 The merge queue refused ${relayed} for ${pr}: ${quoted(answer, f)}. Yardmaster checked the permission of who asked, but the merge queue only lets its ${f.code("commands_restrictions")} run commands: allow Yardmaster's bot to run ${f.code("queue")} and ${f.code("dequeue")} in ${f.code(".mergify.yml")} (${f.link(COMMAND_RESTRICTIONS_DOC, "command restrictions")}; Yardmaster's README, “Mergify setup for relayed commands”).`;
    case "not-understood":
      return `😕 The merge queue did not understand ${relayed} for ${pr}: ${quoted(answer, f)}.`;
    case "waiting": {
      const shown = answer.unmet.slice(0, 3).map((c) => f.code(clip(c, 100)));
      const more = answer.unmet.length - shown.length;
      const which = shown.length
        ? `${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}`
        : "its conditions";
      return `⏳ The merge queue is waiting for conditions before it queues ${pr}: ${which}.`;
    }
    case "other":
      return `${relayedSentence(result, f, ctx)}; the merge queue answered ${quoted(answer, f)}.`;
  }
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

/**
 * The sentence, then where the relayed comment is (and why `queue` was sent for a `requeue`), the merge
 * queue's answer quoted, then any button.
 */
export function describeRelay(
  result: RelayResult<RelayName>,
  text: Text,
  buttons: Button[] = [],
): Description {
  const note: Text = (f) => {
    const alias =
      result.name === "requeue"
        ? ` (${f.code("requeue")} is a deprecated alias of ${f.code("queue")} in Mergify)`
        : "";
    return `${f.code(result.repo.fullName)} · relayed as ${f.code(result.relayed)}${alias} in ${f.link(result.relayCommentUrl, "a comment")} on #${result.pull.number}`;
  };
  const answer = result.answer;
  const said: Text[] = answer
    ? [(f) => `${f.link(answer.url, "The merge queue's answer")}: ${quoted(answer.read, f)}`]
    : [];
  return {
    parts: [
      { kind: "sentence", text },
      { kind: "note", texts: [note, ...said] },
      ...(buttons.length ? [{ kind: "buttons" as const, buttons }] : []),
    ],
    summary: text,
  };
}
