import type { FailureDetails } from "../core/check-failures.js";
import type { QueueEventOf } from "../core/queue.js";
import type { Repo } from "../repo.js";
import { shieldLine } from "../shield/words.js";
import { failureBlocks } from "../wording/check-failures.js";
import { markdownFormat } from "../wording/markdown.js";
import { clip, formatTime } from "../wording/words.js";
import type { GitHubWrites } from "./github-writes.js";
import type { Octokit } from "./octokit-gateway.js";
import { MAX_COMMENT_LENGTH } from "./render-markdown.js";
import { SUMMARY_MARKER, type SummaryClaims, upsertSummaryComment } from "./summary-comment.js";

/**
 * A removal for failed checks in the pull request's summary comment (docs/notifications.md, "Why a check
 * failed"): Yardmaster's one comment on it, rewritten by each command and by such a removal, shows why it
 * left, each failed check's conclusion, title, the first lines of its summary and its first failure
 * annotations, as GitHub Markdown (escaped: no mention, links only to GitHub and the run's own CI host).
 */

/** The summary comment's text for a removal. */
export function renderRemovalSummary(
  input: {
    appSlug: string;
    event: QueueEventOf<"left">;
    details: FailureDetails | null;
    githubWebUrl: string;
  },
  marker = SUMMARY_MARKER,
): string {
  const f = markdownFormat(input.appSlug);
  const { event } = input;
  const queue = event.queue ? ` ${f.code(event.queue)}` : "";
  const why = event.reason ? `: ${f.escape(event.reason)}` : "";
  const header = `**Yardmaster** · ❌ left the merge queue${queue} without merging${why} · ${formatTime(event.at)}`;
  const blocks = input.details
    ? failureBlocks(input.details, f, input.githubWebUrl)
    : [
        event.failedChecks
          .slice(0, 10)
          .map(
            (c) =>
              `- ${c.url ? f.link(c.url, c.name) : f.escape(c.name)}${c.state ? ` (${f.escape(c.state)})` : ""}`,
          )
          .join("\n"),
      ];
  // What the flake shield did of it (src/shield), said here too: this text replaces the summary's.
  const shielded = shieldLine(event, f);
  const again = shielded || `Queue it again once fixed: ${f.code(`${f.invocation} queue`)}.`;
  const text = `${marker}\n${header}\n\n${blocks.join("\n\n")}\n\n${again}\n`;
  return text.length <= MAX_COMMENT_LENGTH ? text : `${clip(text, MAX_COMMENT_LENGTH - 40)}\n`;
}

export interface RemovalSummaryDeps {
  octokitFor(repo: Repo): Promise<Octokit>;
  writes: GitHubWrites;
  appSlug: string;
  claims: SummaryClaims;
  githubWebUrl: string;
}

/**
 * Writes a removal's summary comment (created, or the existing one edited), through the app's write
 * queue at its shared pace, one per pull request across replicas (summary-comment.ts).
 */
export function removalSummaryWriter(
  deps: RemovalSummaryDeps,
): (repository: Repo, event: QueueEventOf<"left">, details: FailureDetails | null) => Promise<void> {
  return async (repository, event, details) => {
    const pull = event.pull;
    if (pull === null) return;
    const octokit = await deps.octokitFor(repository);
    const body = renderRemovalSummary({
      appSlug: deps.appSlug,
      event,
      details,
      githubWebUrl: deps.githubWebUrl,
    });
    // Every writer of the summary takes its turn per pull request (upsertSummaryComment).
    await upsertSummaryComment(
      octokit,
      deps.writes,
      repository,
      pull,
      `${deps.appSlug}[bot]`,
      body,
      deps.claims,
    );
  };
}
