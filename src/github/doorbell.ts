import type { Probot } from "probot";
import { Repo } from "../repo.js";

/**
 * The GitHub events that announce merge-queue activity on a repository (the merge queue acts through
 * GitHub: check runs, statuses, pull requests opened, closed and merged). app.yml subscribes the app to
 * them.
 */
export const ACTIVITY_EVENTS = ["check_run", "check_suite", "pull_request", "status"] as const;
/**
 * Of those, the ones every queued pull request causes (its queue check run; its merge or its leaving):
 * an installation that does not receive both is not trusted to announce activity.
 */
export const ANNOUNCING_EVENTS = ["check_run", "pull_request"] as const;

/**
 * Rings the notifier's doorbell (docs/notifications.md): any of ACTIVITY_EVENTS on a repository asks for
 * an early read of its merge-queue log. The event itself is not trusted for anything else: the log says
 * what happened. Signature checked by Probot before this runs; a delivery redelivered rings again, which
 * costs at most one read.
 */
export function registerDoorbell(app: Probot, onActivity: (repository: Repo) => Promise<void>): void {
  app.on([...ACTIVITY_EVENTS], async (context) => {
    const repository = (context.payload as { repository?: { owner?: { login?: unknown }; name?: unknown } })
      .repository;
    const owner = repository?.owner?.login;
    const name = repository?.name;
    if (typeof owner !== "string" || typeof name !== "string") return;
    let repo: Repo;
    try {
      repo = Repo.of(owner, name);
    } catch {
      return;
    }
    await onActivity(repo).catch((error: unknown) =>
      context.log.warn({ err: error, repository: repo.fullName }, "could not ring the notifier's doorbell"),
    );
  });
}
