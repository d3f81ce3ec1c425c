import type { Repo } from "../repo.js";
import type { Text } from "../wording/description.js";
import { markdownFormat } from "../wording/markdown.js";
import { formatTime } from "../wording/words.js";
import type { GitHubWrites } from "./github-writes.js";
import type { Installations } from "./installations.js";
import { MAX_COMMENT_LENGTH } from "./render-markdown.js";
import { KeyedLock, SUMMARY_MARKER, type SummaryClaims, upsertSummaryComment } from "./summary-comment.js";

export interface SummaryNotesDeps {
  installations: Pick<Installations, "rest">;
  writes: GitHubWrites;
  /** One summary per pull request across replicas (the store). */
  claims: SummaryClaims;
  appSlug: string;
  /** The clock the note's time is read on. */
  now: () => Date;
}

/**
 * What Yardmaster did by itself on a pull request, said in its one summary comment (the one its commands
 * answer in, src/github/summary-comment.ts): the flake shield's re-queue (src/shield). The note replaces
 * the comment's text, as a command's answer does, as the repository's installation, through the app's
 * write queue.
 */
export function summaryNotes(
  deps: SummaryNotesDeps,
): (repo: Repo, pull: number, text: Text) => Promise<void> {
  const lock = new KeyedLock();
  const f = markdownFormat(deps.appSlug);
  return async (repo, pull, text) => {
    const header = `**Yardmaster** · flake shield · ${formatTime(deps.now().toISOString())}`;
    const body = `${SUMMARY_MARKER}\n${header}\n\n${text(f)}\n`.slice(0, MAX_COMMENT_LENGTH);
    const octokit = await deps.installations.rest(repo);
    await lock.run(`${repo.key}#${pull}`, () =>
      upsertSummaryComment(octokit, deps.writes, repo, pull, `${deps.appSlug}[bot]`, body, deps.claims),
    );
  };
}
