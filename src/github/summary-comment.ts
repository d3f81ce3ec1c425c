import type { Repo } from "../repo.js";
import { errorStatus, type GitHubWrites } from "./github-writes.js";
import type { Octokit } from "./octokit-gateway.js";

/** Hidden in the rendered comment; how the summary is found again. */
export const SUMMARY_MARKER = "<!-- yardmaster:summary -->";

/**
 * Runs one task at a time per key, in the order they came: two commands on one pull request write its
 * summary one after the other, so the second finds (and edits) what the first created.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    const result = before.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await result;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

/**
 * Edits the app's summary comment on an issue or pull request in place, or creates it the first time.
 * Only a comment written by the app itself counts, so a person quoting the marker changes nothing.
 * The edit or creation is a write of the answer's priority; a creation tried again (GitHub answered
 * 5xx, and may have created it after all) first looks for the summary again, so it is never doubled.
 */
export async function upsertSummaryComment(
  octokit: Octokit,
  writes: GitHubWrites,
  repo: Repo,
  issueNumber: number,
  botLogin: string,
  body: string,
): Promise<{ id: number; created: boolean }> {
  const where = `${repo.fullName}#${issueNumber}`;
  const find = async (): Promise<number | undefined> => {
    const params = { owner: repo.owner, repo: repo.name, issue_number: issueNumber, per_page: 100 };
    for await (const page of octokit.paginate.iterator(octokit.rest.issues.listComments, params)) {
      const mine = page.data.find(
        (c) => c.user?.login.toLowerCase() === botLogin.toLowerCase() && c.body?.includes(SUMMARY_MARKER),
      );
      if (mine) return mine.id;
    }
    return undefined;
  };
  const edit = (id: number) =>
    writes.run({
      kind: "edit",
      priority: "answer",
      what: `summary comment on ${where} (edit)`,
      send: async (request) => {
        await octokit.rest.issues.updateComment({
          owner: repo.owner,
          repo: repo.name,
          comment_id: id,
          body,
          request,
        });
        return { id, created: false };
      },
    });

  const existing = await find();
  if (existing !== undefined) {
    try {
      return await edit(existing);
    } catch (error) {
      // Deleted since it was found: write it again.
      if (errorStatus(error) !== 404) throw error;
    }
  }
  return writes.run({
    kind: "comment",
    priority: "answer",
    what: `summary comment on ${where}`,
    send: async (request, attempt) => {
      const again = attempt > 1 ? await find() : undefined;
      if (again !== undefined) {
        await octokit.rest.issues.updateComment({
          owner: repo.owner,
          repo: repo.name,
          comment_id: again,
          body,
          request,
        });
        return { id: again, created: false };
      }
      const { data } = await octokit.rest.issues.createComment({
        owner: repo.owner,
        repo: repo.name,
        issue_number: issueNumber,
        body,
        request,
      });
      return { id: data.id, created: true };
    },
  });
}
