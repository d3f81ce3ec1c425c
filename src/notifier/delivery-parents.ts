import type { StoredEvents } from "../core/pushed-events.js";
import type { Repo } from "../repo.js";
import type { PendingNotification } from "../store/index.js";
import { type ChatHolds, DeliveryError, DeliveryErrorCode } from "./chat.js";
import type { DelivererDeps } from "./deliverer-deps.js";
import { threaded } from "./delivery-posting.js";
import type { ThreadState } from "./types.js";

/** What editing a channel's thread parents uses of the deliverer's pass. */
export interface ParentsPass {
  deps: Pick<DelivererDeps, "store" | "poster" | "render" | "logger" | "githubWebUrl">;
  holds: ChatHolds;
  now(): Date;
  /** A 429: holds what it names. */
  rateLimited(channel: string, e: DeliveryError): Promise<void>;
}

/**
 * Edits each stale thread parent of the channel once, with its latest state (under the channel's
 * lease, so never twice at once), unless the thread has replies still to post (`pending`): then after
 * the last of them, so that a pull request's burst of events (a backlog drained at Slack's pace) edits
 * its parent once, not once per reply. Held or failed, the parent stays stale for a later pass.
 */
export async function editStaleParents(
  pass: ParentsPass,
  channel: string,
  renew: () => Promise<boolean>,
  pending: ReadonlySet<string>,
): Promise<void> {
  const { store, poster, render, logger } = pass.deps;
  if (await pass.holds.until({ call: "edit" }, pass.now())) return;
  for (const thread of await store.listStaleThreads(channel)) {
    if (pending.has(threadKey(thread.repository, thread.pullRequest))) continue;
    if (!(await renew())) return;
    const ctx = { repo: thread.repository, githubWebUrl: pass.deps.githubWebUrl, now: pass.now() };
    try {
      await poster.update({
        channel,
        ts: thread.parentTs,
        message: render.parent(thread.state as ThreadState, ctx),
      });
    } catch (error) {
      const e = error instanceof DeliveryError ? error : undefined;
      if (e?.code === DeliveryErrorCode.RateLimited) {
        await pass.rateLimited(channel, e);
        return;
      }
      // Gone, or no longer editable: no later try can edit it.
      if (e?.code !== DeliveryErrorCode.MessageGone) {
        logger.warn({ err: error, channel }, "could not edit a thread parent: edited later");
        return;
      }
      logger.warn({ err: error, channel }, "thread parent cannot be edited: left as it is");
    }
    await store.markThreadParentEdited(thread);
  }
}

const threadKey = (repository: Repo, pullRequest: number) => `${repository.key}#${pullRequest}`;

/** The threads that rows still to post will reply in (`stored` reads a row's event back). */
export function threadsOf(rows: readonly PendingNotification[], stored?: StoredEvents): Set<string> {
  const replies = rows.filter((row) => threaded(row, stored));
  return new Set(replies.map((row) => threadKey(row.repository, row.pullRequest)));
}
