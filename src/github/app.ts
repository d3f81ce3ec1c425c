import type { ApplicationFunction, Context } from "probot";
import type { Actor, CommentPlace } from "../commands/command.js";
import { parseGitHubComment } from "../commands/parse.js";
import { type CommandOutcome, type RunDeps, refuse, runCommand } from "../commands/run.js";
import type { DeliveryLog } from "../delivery-log.js";
import { Repo } from "../repo.js";
import { markdownFormat } from "./markdown.js";
import { octokitGateway } from "./octokit-gateway.js";
import { renderSummary } from "./render-markdown.js";
import { SUMMARY_MARKER, upsertSummaryComment } from "./summary-comment.js";

export interface GitHubSurfaceDeps extends Omit<RunDeps, "github"> {
  /** The app's slug, read from GitHub at start (GET /app). */
  appSlug: string;
  deliveries: DeliveryLog;
  /** GitHub's web address, for links in answers; github.com when not given. */
  githubWebUrl?: string;
}

type CommentContext = Context<"issue_comment.created">;

/**
 * The GitHub surface (docs/commands.md): a comment in, a command out, Markdown back. Reactions
 * say it was seen (👀) and how it ended (👍 / 😕); one summary comment per thread carries the answer.
 */
export function githubApp(deps: GitHubSurfaceDeps): ApplicationFunction {
  return (app) => {
    app.on("issue_comment.created", async (context) => {
      await handleComment(context, deps);
    });
  };
}

export async function handleComment(context: CommentContext, deps: GitHubSurfaceDeps): Promise<void> {
  const { comment, issue, repository } = context.payload;
  const author = comment.user;
  if (!author || author.type === "Bot" || author.login.endsWith("[bot]")) return;
  const place: CommentPlace = {
    repo: Repo.of(repository.owner.login, repository.name),
    number: issue.number,
    isPullRequest: Boolean(issue.pull_request),
  };
  const parsed = parseGitHubComment(comment.body, deps.appSlug, place);
  if (parsed.kind === "ignored") return;
  if (!(await deps.deliveries.claim(context.id))) {
    context.log.info({ delivery: context.id }, "delivery already handled; ignored");
    return;
  }

  const log = context.log.child({
    delivery: context.id,
    repository: repository.full_name,
    issue: issue.number,
  });
  const octokit = context.octokit;
  const react = async (content: "eyes" | "+1" | "confused") => {
    try {
      await octokit.rest.reactions.createForIssueComment({
        owner: place.repo.owner,
        repo: place.repo.name,
        comment_id: comment.id,
        content,
      });
    } catch (error) {
      log.warn({ err: error, content }, "could not add a reaction");
    }
  };
  await react("eyes");

  const actor: Actor = { surface: "github", githubLogin: author.login, display: author.login };
  const github = octokitGateway(async () => octokit);
  const outcome: CommandOutcome =
    parsed.kind === "refused"
      ? refuse(parsed.error, actor, { ...deps, logger: log })
      : await runCommand(parsed.command, actor, { ...deps, github, logger: log });

  const f = markdownFormat(deps.appSlug);
  const body = renderSummary(
    {
      marker: SUMMARY_MARKER,
      typed: parsed.typed,
      author: actor.display,
      commentUrl: comment.html_url,
      outcome,
      at: new Date(),
      ...(deps.githubWebUrl ? { githubWebUrl: deps.githubWebUrl } : {}),
    },
    f,
  );
  try {
    await upsertSummaryComment(octokit, place.repo, place.number, `${deps.appSlug}[bot]`, body);
  } catch (error) {
    log.error({ err: error }, "could not write the summary comment");
  }
  await react(outcome.ok ? "+1" : "confused");
}
