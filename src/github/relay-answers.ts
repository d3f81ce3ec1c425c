import type { Probot } from "probot";
import { type RelayName, type RelayResult, relayTurnedDown } from "../commands/relay.js";
import type { RelayFollower } from "../relays/follower.js";
import { Repo } from "../repo.js";
import { markdownFormat } from "../wording/markdown.js";
import type { GitHubWrites } from "./github-writes.js";
import type { Octokit } from "./octokit-gateway.js";
import { renderSummary } from "./render-markdown.js";
import { SUMMARY_MARKER, type SummaryClaims, upsertSummaryComment } from "./summary-comment.js";

/**
 * The merge queue's answers to relayed commands on the GitHub surface (docs/commands.md, "Following the
 * merge queue's answer"): its bot's comments, created or edited, go to the follower (never run as
 * commands); and a relay asked in a comment is shown again, answer included, in the thread's summary
 * comment, with 😕 instead of 👍 on the command when the merge queue turned it down.
 */

export interface RelayAnswersDeps {
  follower: RelayFollower;
  /** The merge queue's bot (MERGE_QUEUE_BOT_LOGIN). */
  botLogin: string;
}

/** Where a relay asked in a comment was answered: what showing it again needs. */
export interface GitHubPresentation {
  installationId: number;
  repository: string;
  number: number;
  typed: string;
  author: string;
  commentId: number;
  commentUrl: string;
  at: string;
}

interface PresenterDeps {
  appSlug: string;
  writes: GitHubWrites;
  githubWebUrl?: string;
  summaryClaims?: SummaryClaims;
}

type AnswerPayload = {
  comment: {
    id: number;
    body: string;
    html_url: string;
    created_at: string;
    updated_at: string;
    user: { login: string } | null;
  };
  issue: { number: number; pull_request?: unknown };
  repository: { name: string; owner: { login: string } };
};

/** Registers the handler of the merge-queue bot's comments, and the GitHub surface's presenter. */
export function registerRelayAnswers(app: Probot, relays: RelayAnswersDeps, deps: PresenterDeps): void {
  const bot = relays.botLogin.toLowerCase();
  app.on(["issue_comment.created", "issue_comment.edited"], async (context) => {
    const { comment, issue, repository } = context.payload as unknown as AnswerPayload;
    if (comment.user?.login.toLowerCase() !== bot || !issue.pull_request) return;
    await relays.follower.onComment({
      repository: Repo.of(repository.owner.login, repository.name),
      pull: issue.number,
      commentId: comment.id,
      body: comment.body ?? "",
      url: comment.html_url,
      createdAt: new Date(comment.created_at),
      updatedAt: new Date(comment.updated_at),
    });
  });
  relays.follower.presenters.github = async (result, presentation) => {
    const where = presentation as GitHubPresentation;
    const octokit = (await app.auth(where.installationId)) as unknown as Octokit;
    await showInSummary(octokit, result, where, deps);
  };
}

async function showInSummary(
  octokit: Octokit,
  result: RelayResult<RelayName>,
  where: GitHubPresentation,
  deps: PresenterDeps,
): Promise<void> {
  const repo = Repo.from(where.repository);
  const body = renderSummary(
    {
      marker: SUMMARY_MARKER,
      typed: where.typed,
      author: where.author,
      commentUrl: where.commentUrl,
      outcome: { ok: true, result },
      at: new Date(where.at),
      ...(deps.githubWebUrl ? { githubWebUrl: deps.githubWebUrl } : {}),
    },
    markdownFormat(deps.appSlug),
  );
  await upsertSummaryComment(
    octokit,
    deps.writes,
    repo,
    where.number,
    `${deps.appSlug}[bot]`,
    body,
    deps.summaryClaims,
  );
  if (relayTurnedDown(result)) await turnDown(octokit, repo, where.commentId, deps);
}

/** 😕 on the command comment, and the app's 👍 taken off it. */
async function turnDown(octokit: Octokit, repo: Repo, commentId: number, deps: PresenterDeps): Promise<void> {
  const where = { owner: repo.owner, repo: repo.name, comment_id: commentId };
  await deps.writes.run({
    kind: "reaction",
    priority: "outcome",
    what: `confused reaction on comment ${commentId} in ${repo.fullName}`,
    send: (request) =>
      octokit.rest.reactions.createForIssueComment({ ...where, content: "confused", request }),
  });
  const { data } = await octokit.rest.reactions.listForIssueComment({
    ...where,
    content: "+1",
    per_page: 100,
  });
  const mine = data.find((r) => r.user?.login.toLowerCase() === `${deps.appSlug}[bot]`.toLowerCase());
  if (!mine) return;
  await deps.writes.run({
    kind: "delete",
    priority: "outcome",
    what: `removal of reaction ${mine.id} on comment ${commentId} in ${repo.fullName}`,
    send: (request) =>
      octokit.rest.reactions.deleteForIssueComment({ ...where, reaction_id: mine.id, request }),
  });
}
