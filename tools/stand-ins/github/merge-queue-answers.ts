import { answerComment, queuedAnswer } from "../../simulator/commands.js";
import { issueCommentPayload } from "./comment-flow.js";
import { type StandInContext, subscribed } from "./context.js";
import type { ForwardRecord } from "./merge-queue-forwarder.js";
import type { MergeQueueSource } from "./merge-queue-webhooks.js";
import type { Comment } from "./state.js";

/**
 * The merge queue's answer comments after they are posted: Mergify edits its answer to a command as the
 * command progresses (README.md, "Merge-queue forwarding"). A queue command's answer that waits for
 * conditions becomes "the Nth in the queue" when the pull request enters the queue; a queued one becomes
 * "merged automatically", or "removed from the queue" when it leaves without merging. Each edit sends
 * `issue_comment.edited`, by `mergify[bot]`, like GitHub.
 */
export class MergeQueueAnswers {
  /** Answers still to be edited, by `repo#number` (lower-case). */
  private readonly open = new Map<
    string,
    { comment: Comment; command: string; state: "queued" | "waiting" }
  >();
  private source: MergeQueueSource | undefined;

  constructor(private readonly ctx: StandInContext) {}

  /** A reply posted for a forwarded command: followed when the merge queue will edit it. */
  track(reply: Comment, record: ForwardRecord): void {
    if (record.follow !== "queued" && record.follow !== "waiting") return;
    const command = /^>\s*(.+)$/m.exec(reply.body)?.[1]?.trim() ?? "queue";
    this.open.set(keyOf(record.repository, record.number), { comment: reply, command, state: record.follow });
  }

  /** Follows the merge queue's log; returns the function that stops following it. */
  follow(source: MergeQueueSource): () => void {
    this.source = source;
    return source.onAppend((event) => {
      if (event.pullRequest === null) return;
      const key = keyOf(event.repository, event.pullRequest);
      const number = event.pullRequest;
      // After the merge queue's step that appended the event (its position is known then).
      queueMicrotask(() => {
        try {
          this.onEvent(key, event.repository, number, event.type, event.metadata);
        } catch (error) {
          this.ctx.logger.warn({ err: error, type: event.type }, "merge-queue answer not edited");
        }
      });
    });
  }

  private onEvent(
    key: string,
    repository: string,
    number: number,
    type: string,
    metadata: Record<string, unknown>,
  ): void {
    const open = this.open.get(key);
    if (!open) return;
    if (type === "action.queue.enter" && open.state === "waiting") {
      open.state = "queued";
      const position = this.source?.position?.(repository, number) ?? 1;
      this.edit(open.comment, queuedAnswer(open.command, position, String(metadata.queue_name ?? "default")));
    } else if (type === "action.queue.merged") {
      this.open.delete(key);
      const sha = typeof metadata.merge_commit_sha === "string" ? metadata.merge_commit_sha : "";
      this.edit(
        open.comment,
        answerComment(open.command, "success", "The pull request has been merged automatically", [
          `The pull request has been merged automatically at *${sha}*`,
        ]),
      );
    } else if (type === "action.queue.leave" && metadata.merged !== true) {
      this.open.delete(key);
      this.edit(
        open.comment,
        answerComment(
          open.command,
          "cancelled",
          `The pull request has been removed from the queue \`${String(metadata.queue_name ?? "default")}\``,
        ),
      );
    }
  }

  private edit(comment: Comment, body: string): void {
    const { ctx } = this;
    const previous = comment.body;
    ctx.state.updateComment(comment, body);
    if (!ctx.apiEvents || !subscribed(ctx, comment.repository.fullName, "issue_comment")) return;
    ctx.webhooks.enqueue(
      "issue_comment",
      issueCommentPayload(ctx, "edited", comment, { changes: { body: { from: previous } } }),
    );
  }
}

function keyOf(repository: string, number: number): string {
  return `${repository.toLowerCase()}#${number}`;
}
