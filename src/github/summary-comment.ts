import type { Repo } from "../repo.js";

import type { Octokit } from "./octokit-gateway.js";

/** Hidden in the rendered comment; how the summary is found again. */
export const SUMMARY_MARKER = "<!-- yardmaster:summary -->";

/**
 * Edits the app's summary comment on an issue or pull request in place, or creates it the first time.
 * Only a comment written by the app itself counts, so a person quoting the marker changes nothing.
 */
export async function upsertSummaryComment(
  octokit: Octokit,
  repo: Repo,
  issueNumber: number,
  botLogin: string,
  body: string,
): Promise<{ id: number; created: boolean }> {
  const params = { owner: repo.owner, repo: repo.name, issue_number: issueNumber, per_page: 100 };
  for await (const page of octokit.paginate.iterator(octokit.rest.issues.listComments, params)) {
    const mine = page.data.find(
      (c) => c.user?.login.toLowerCase() === botLogin.toLowerCase() && c.body?.includes(SUMMARY_MARKER),
    );
    if (mine) {
      await octokit.rest.issues.updateComment({
        owner: repo.owner,
        repo: repo.name,
        comment_id: mine.id,
        body,
      });
      return { id: mine.id, created: false };
    }
  }
  const { data } = await octokit.rest.issues.createComment({
    owner: repo.owner,
    repo: repo.name,
    issue_number: issueNumber,
    body,
  });
  return { id: data.id, created: true };
}
