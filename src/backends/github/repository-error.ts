import { QueueError, QueueErrorCode } from "../../core/queue-error.js";
import type { Repo } from "../../repo.js";

/**
 * GitHub's 404 and 403 on a repository itself (`GET /repos/{owner}/{repo}`, the app's installation on
 * it) as the closed error codes, so both surfaces answer with what to do (src/commands/describe.ts);
 * any other error is returned as it is.
 */
export function repositoryError(repo: Repo, error: unknown): unknown {
  if (error instanceof QueueError) return error;
  const status = (error as { status?: unknown } | null)?.status;
  if (status === 404)
    return new QueueError(
      QueueErrorCode.RepositoryNotFound,
      `GitHub does not know ${repo.fullName}, or the GitHub App is not installed on it`,
      { status, cause: error },
    );
  if (status === 403)
    return new QueueError(
      QueueErrorCode.RepositoryForbidden,
      `GitHub refused the GitHub App access to ${repo.fullName}`,
      { status, cause: error },
    );
  return error;
}
