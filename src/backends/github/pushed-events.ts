import type { QueueEventPushes } from "../../core/pushed-events.js";
import type { QueueEvent } from "../../core/queue.js";
import type { Metrics } from "../../metrics.js";
import type { Repo } from "../../repo.js";
import { GitHubQueueEvents, type GitHubQueueEventsDeps, type QueueHappening } from "./queue-events.js";

/** Somewhere to hear something from (the composition root's hubs, src/app/hub.ts). */
interface Heard<A extends unknown[]> {
  listen(listener: (...args: A) => unknown): void;
}

export interface GitHubPushesDeps extends GitHubQueueEventsDeps {
  /** GitHub's merge-queue webhooks, as the GitHub surface reads them (queue-webhooks.ts). */
  happenings: Heard<[happening: QueueHappening, deliveryId: string]>;
  /** Queue events Yardmaster itself made of GitHub's queue (the gate's pauses and resumes, gate/). */
  announcements: Heard<[repository: Repo, event: QueueEvent]>;
  metrics?: Pick<Metrics, "githubQueueWebhooks">;
}

/**
 * GitHub's merge queue's events as it pushes them (src/core/pushed-events.ts): each webhook turned into
 * at most one queue event (queue-events.ts), and the gate's announcements as they are. Nothing is read
 * until someone listens (the notifier, once Slack is configured); each webhook is read once, however
 * many listen.
 */
export function githubQueuePushes(deps: GitHubPushesDeps): QueueEventPushes {
  const events = new GitHubQueueEvents(deps);
  const listeners: ((repository: Repo, event: QueueEvent) => Promise<unknown>)[] = [];
  const tell = (repository: Repo, event: QueueEvent) =>
    Promise.all(listeners.map((listener) => listener(repository, event)));
  return {
    listen(listener) {
      listeners.push(listener);
      if (listeners.length > 1) return;
      deps.happenings.listen(async (happening, deliveryId) => {
        const event = await events.toEvent(happening, deliveryId);
        deps.metrics?.githubQueueWebhooks.inc({ kind: happening.kind, outcome: event ? "notice" : "none" });
        if (event) await tell(happening.repository, event);
      });
      deps.announcements.listen(tell);
    },
  };
}
