import type { CommandSteps } from "../commands/ports.js";
import type { Logger } from "../logger.js";
import type { Repo } from "../repo.js";
import type { GitHubWrites, WritePriority } from "./github-writes.js";
import type { Octokit } from "./octokit-gateway.js";

export type Reaction = "eyes" | "+1" | "confused";

/** Where the reactions are: the command's comment, written as its installation through the write queue. */
export interface ReactionTarget {
  octokit: Octokit;
  writes: GitHubWrites;
  repo: Repo;
  commentId: number;
  log: Logger;
}

/**
 * The reactions on a command's comment (👀 while it runs, 👍 or 😕 at its end), each a recorded step of
 * the command (`reaction.eyes`, `reaction.+1`, `reaction.confused`): a run that takes the command over
 * adds none that an earlier run added. Between a reaction's creation and its record (a replica dying
 * then), GitHub closes the gap: a second creation of the same reaction by the same app answers the one
 * there (200), it adds none. Taking 😕 back is a removal by its id, which changes nothing the second time
 * (GitHub answers 404): not a step. A failure is logged, never thrown.
 */
export function commentReactions(
  t: ReactionTarget,
  steps: CommandSteps,
  /** What an earlier run of the command recorded for a step (its result), or null. */
  recorded: (step: string) => Promise<unknown>,
) {
  const what = (content: string) => `${content} reaction on comment ${t.commentId} in ${t.repo.fullName}`;
  let confused: number | null = null;
  const create = (content: Reaction, priority: WritePriority, signal?: AbortSignal) =>
    t.writes.run({
      kind: "reaction",
      priority,
      what: what(content),
      ...(signal ? { signal } : {}),
      send: async (request) => {
        const { data } = await t.octokit.rest.reactions.createForIssueComment({
          owner: t.repo.owner,
          repo: t.repo.name,
          comment_id: t.commentId,
          content,
          request,
        });
        return data.id;
      },
    });
  const remove = async (reactionId: number) => {
    try {
      await t.writes.run({
        kind: "delete",
        priority: "outcome",
        what: `removal of reaction ${reactionId} on comment ${t.commentId} in ${t.repo.fullName}`,
        send: (request) =>
          t.octokit.rest.reactions.deleteForIssueComment({
            owner: t.repo.owner,
            repo: t.repo.name,
            comment_id: t.commentId,
            reaction_id: reactionId,
            request,
          }),
      });
    } catch (error) {
      t.log.warn({ err: error, reactionId }, "could not remove a reaction");
    }
  };
  return {
    /** The reaction's id, or null when it could not be added (or was cancelled). */
    async add(content: Reaction, priority: WritePriority = "outcome", signal?: AbortSignal) {
      try {
        const id = await steps.once(`reaction.${content}`, () => create(content, priority, signal));
        if (content === "confused") confused = id;
        return id;
      } catch (error) {
        if (!signal?.aborted) t.log.warn({ err: error, content }, "could not add a reaction");
        return null;
      }
    },
    /** Takes back the 😕 this command added (in this run, or in an earlier one that died). */
    async takeBackConfused() {
      const id = confused ?? (await recorded("reaction.confused").catch(() => null));
      if (typeof id === "number") await remove(id);
    },
  };
}

export type CommentReactions = ReturnType<typeof commentReactions>;
