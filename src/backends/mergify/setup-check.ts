import pLimit from "p-limit";
import { fail, MOST_REPOSITORIES, pass, reason, type SetupLine, skip } from "../../core/setup-line.js";
import type { Repo } from "../../repo.js";
import type { MergeQueueClient } from "./client.js";
import { isMergeQueueError, MergeQueueErrorCode } from "./errors.js";

/**
 * The merge-queue token reads each subscribed repository: its queue (what commands read) and its event
 * log (what the notifier reads). A token scoped to the queue alone may read the first and get 403 on the
 * second. Part of the setup check's merge-queue lines (src/backends/setup-check.ts).
 */

/** Repositories read at once (two requests each), to stay well within the merge queue's rate limits. */
const AT_ONCE = 4;
const TOKEN_FIX =
  "give the merge-queue API key (MERGE_QUEUE_API_TOKEN) access to this repository in Mergify's dashboard";

export async function checkMergeQueueToken(
  client: MergeQueueClient,
  repositories: readonly Repo[] | Error,
): Promise<SetupLine[]> {
  const check = "merge-queue token";
  if (repositories instanceof Error)
    return [skip(check, `the subscribed repositories cannot be listed (${repositories.message})`)];
  if (repositories.length === 0)
    return [
      pass(check, "no repository is subscribed yet: nothing to read (/mq subscribe owner/repo in a channel)"),
    ];
  const limit = pLimit(AT_ONCE);
  const lines = await Promise.all(
    repositories.slice(0, MOST_REPOSITORIES).map((r) => limit(() => readOne(client, r))),
  );
  const rest = repositories.length - MOST_REPOSITORIES;
  return rest > 0 ? [...lines, skip(check, `${rest} more subscribed repositories not checked`)] : lines;
}

async function readOne(client: MergeQueueClient, repo: Repo): Promise<SetupLine> {
  const check = `merge-queue token: ${repo.fullName}`;
  try {
    await client.getStatus(repo);
  } catch (error) {
    return explain(check, error, "its queue");
  }
  try {
    await client.getEventsPage(repo, { perPage: 1, receivedFrom: new Date(Date.now() - 60_000) });
  } catch (error) {
    if (isMergeQueueError(error, MergeQueueErrorCode.Forbidden))
      return fail(
        check,
        `reads the queue but not the event log (${error.status ?? 403}): the notifier cannot follow this repository`,
        "use a key that may read the repository's event log (an application key with access to the repository, not one scoped to the queue)",
      );
    return explain(check, error, "its event log");
  }
  return pass(check, "reads the queue and the event log");
}

function explain(check: string, error: unknown, what: string): SetupLine {
  if (!isMergeQueueError(error))
    return fail(check, `cannot read ${what} (${reason(error)})`, "run npm run doctor again");
  const said = error.detail ? `: ${error.detail.slice(0, 200)}` : "";
  switch (error.code) {
    case MergeQueueErrorCode.Forbidden:
      return error.status === 401
        ? fail(
            check,
            `the merge queue does not accept the token (401${said})`,
            "set MERGE_QUEUE_API_TOKEN to a valid API key (Mergify's dashboard → API keys)",
          )
        : fail(check, `the token may not read ${what} (${error.status ?? 403}${said})`, TOKEN_FIX);
    case MergeQueueErrorCode.NotFound:
      return fail(
        check,
        `the merge queue does not know this repository (404${said})`,
        "check that Mergify is installed on the repository and that MERGE_QUEUE_API_URL is its API (https://api.mergify.com/v1)",
      );
    case MergeQueueErrorCode.Timeout:
    case MergeQueueErrorCode.Unavailable:
    case MergeQueueErrorCode.RateLimited:
      return fail(
        check,
        `the merge queue did not answer (${error.status ?? error.code})`,
        "check MERGE_QUEUE_API_URL and the network, then run npm run doctor again",
      );
    default:
      return fail(check, `reading ${what} failed (${error.code}${said})`, "check MERGE_QUEUE_API_URL");
  }
}
