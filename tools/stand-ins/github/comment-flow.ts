import { type StandInContext, subscribed } from "./context.js";
import { issueCommentEventJson } from "./payloads.js";
import type { Account, Comment, Issue } from "./state.js";

/** GitHub's limit on a comment body. */
export const MAX_COMMENT_LENGTH = 65_536;

/**
 * What happens when a comment is created, whoever creates it: stored, then, when it addresses the merge
 * queue on a pull request, forwarded to the simulator's command hook (awaited), whose answer becomes a
 * `mergify[bot]` reply. The caller sends the webhooks afterwards: the comment's own, then the replies'.
 */
export async function createComment(
  ctx: StandInContext,
  issue: Issue,
  author: Account,
  body: string,
  viaApp: boolean,
): Promise<{ comment: Comment; replies: Comment[] }> {
  const comment = ctx.state.createComment(issue, author, body, viaApp);
  const replies: Comment[] = [];
  const forwarder = ctx.forwarder;
  if (forwarder && issue.pull && author.id !== ctx.state.mergeQueueBot.id && forwarder.addresses(body)) {
    const htmlUrl = `${ctx.urls.web}/${issue.repository.fullName}/pull/${issue.number}`;
    const record = await forwarder.forward(comment, issue, htmlUrl);
    if (record.message) {
      const reply = ctx.state.createComment(issue, ctx.state.mergeQueueBot, record.message, false);
      ctx.answers?.track(reply, record);
      replies.push(reply);
    }
  }
  return { comment, replies };
}

/** The `issue_comment` payload for a comment, sent by `sender` (default: its author). */
export function issueCommentPayload(
  ctx: StandInContext,
  action: "created" | "edited" | "deleted",
  comment: Comment,
  extra: { sender?: Account; changes?: Record<string, unknown> } = {},
): Record<string, unknown> {
  return issueCommentEventJson(ctx.urls, ctx.state, ctx.app, {
    action,
    comment,
    sender: extra.sender ?? comment.user,
    installationId: ctx.state.installationFor(comment.repository.fullName).id,
    ...(extra.changes ? { changes: extra.changes } : {}),
  });
}

/**
 * Queues `issue_comment.created` webhooks for comments created by API calls or by the merge queue
 * (unless the stand-in was started with `apiEvents: false`, or the installation is not subscribed).
 */
export function emitCreated(ctx: StandInContext, comments: Comment[]): void {
  if (!ctx.apiEvents) return;
  for (const comment of comments) {
    if (!subscribed(ctx, comment.repository.fullName, "issue_comment")) continue;
    ctx.webhooks.enqueue("issue_comment", issueCommentPayload(ctx, "created", comment));
  }
}
