import { createComment, emitCreated, issueCommentPayload, MAX_COMMENT_LENGTH } from "./comment-flow.js";
import type { StandInContext } from "./context.js";
import { intParam, requireRepository, selfUrl, subscribed } from "./context.js";
import {
  bodyFields,
  notFound,
  paginate,
  type RouteRequest,
  type Router,
  sendEmpty,
  sendJson,
  validationFailed,
} from "./http.js";
import { commentJson, reactionJson } from "./payloads.js";
import { type Comment, REACTION_CONTENTS, type ReactionContent } from "./state.js";

/** The `body` field of a comment create or update, validated like GitHub. */
function commentBody(req: RouteRequest): string {
  const body = bodyFields(req.body).body;
  if (typeof body !== "string" || body.trim() === "") {
    throw validationFailed({ resource: "IssueComment", code: "missing_field", field: "body" });
  }
  if (body.length > MAX_COMMENT_LENGTH) {
    throw validationFailed({
      resource: "IssueComment",
      code: "custom",
      field: "body",
      message: `body is too long (maximum is ${MAX_COMMENT_LENGTH} characters)`,
    });
  }
  return body;
}

/** Issue comments and their reactions. */
export function addCommentRoutes(router: Router, ctx: StandInContext): void {
  const { state, urls, app } = ctx;
  const json = (comment: Comment): Record<string, unknown> => commentJson(urls, state, app, comment);

  /** The comment `{comment_id}` of the repository in the path. */
  const findComment = (req: RouteRequest): ReturnType<typeof requireRepository> & { comment: Comment } => {
    const access = requireRepository(ctx, req);
    const comment = state.getComment(intParam(req.params.comment_id));
    if (!comment || comment.repository !== access.repository) throw notFound();
    return { ...access, comment };
  };

  router
    .add("GET", "/repos/{owner}/{repo}/issues/{number}/comments", (req, res) => {
      const { repository } = requireRepository(ctx, req);
      const issue = state.getIssue(repository.fullName, intParam(req.params.number));
      if (!issue) throw notFound();
      const comments = state.comments(repository.fullName, issue.number);
      const { page, headers } = paginate(comments, req.query, selfUrl(ctx, req));
      sendJson(res, 200, page.map(json), headers);
    })
    .add("POST", "/repos/{owner}/{repo}/issues/{number}/comments", async (req, res) => {
      const { caller, repository } = requireRepository(ctx, req);
      const issue = state.getIssue(repository.fullName, intParam(req.params.number));
      if (!issue) throw notFound();
      const body = commentBody(req);
      const { comment, replies } = await createComment(
        ctx,
        issue,
        caller.actor,
        body,
        caller.kind === "installation",
      );
      const location = `${urls.api}/repos/${repository.fullName}/issues/comments/${comment.id}`;
      sendJson(res, 201, json(comment), { location });
      emitCreated(ctx, [comment, ...replies]);
    })
    .add("GET", "/repos/{owner}/{repo}/issues/comments/{comment_id}", (req, res) => {
      const { comment } = findComment(req);
      sendJson(res, 200, json(comment));
    })
    .add("PATCH", "/repos/{owner}/{repo}/issues/comments/{comment_id}", (req, res) => {
      const { caller, comment } = findComment(req);
      const body = commentBody(req);
      const previous = comment.body;
      state.updateComment(comment, body);
      sendJson(res, 200, json(comment));
      if (
        ctx.apiEvents &&
        previous !== body &&
        subscribed(ctx, comment.repository.fullName, "issue_comment")
      ) {
        ctx.webhooks.enqueue(
          "issue_comment",
          issueCommentPayload(ctx, "edited", comment, {
            sender: caller.actor,
            changes: { body: { from: previous } },
          }),
        );
      }
    })
    .add("DELETE", "/repos/{owner}/{repo}/issues/comments/{comment_id}", (req, res) => {
      const { caller, comment } = findComment(req);
      const payload =
        ctx.apiEvents && subscribed(ctx, comment.repository.fullName, "issue_comment")
          ? issueCommentPayload(ctx, "deleted", comment, { sender: caller.actor })
          : null;
      state.deleteComment(comment);
      sendEmpty(res, 204);
      if (payload) ctx.webhooks.enqueue("issue_comment", payload);
    })
    .add("GET", "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", (req, res) => {
      const { comment } = findComment(req);
      const content = req.query.get("content");
      const reactions = state.reactions(comment.id).filter((r) => content === null || r.content === content);
      const { page, headers } = paginate(reactions, req.query, selfUrl(ctx, req));
      sendJson(
        res,
        200,
        page.map((r) => reactionJson(urls, r)),
        headers,
      );
    })
    .add("POST", "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", (req, res) => {
      const { caller, comment } = findComment(req);
      const content = bodyFields(req.body).content;
      if (typeof content !== "string" || !(REACTION_CONTENTS as readonly string[]).includes(content)) {
        throw validationFailed({
          resource: "Reaction",
          code: content === undefined ? "missing_field" : "invalid",
          field: "content",
          ...(content === undefined ? {} : { value: content }),
        });
      }
      const { reaction, created } = state.react(comment, caller.actor, content as ReactionContent);
      sendJson(res, created ? 201 : 200, reactionJson(urls, reaction));
    })
    .add(
      "DELETE",
      "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions/{reaction_id}",
      (req, res) => {
        const { comment } = findComment(req);
        if (!state.removeReaction(comment.id, intParam(req.params.reaction_id))) throw notFound();
        sendEmpty(res, 204);
      },
    );
}
