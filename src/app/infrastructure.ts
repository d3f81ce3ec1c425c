import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { QueueHappening } from "../backends/github/queue-events.js";
import type { MergedPull } from "../core/merged-pulls.js";
import type { QueueEvent } from "../core/queue.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics.js";
import type { Repo } from "../repo.js";
import { InFlight } from "../server/in-flight.js";
import { githubUrls } from "../settings/read-settings.js";
import type { Store } from "../store/index.js";
import { WorkRunner } from "../work/runner.js";
import type { Config } from "./config.js";
import { Hub } from "./hub.js";
import type { YardmasterOptions } from "./options.js";

/** What the composition root builds before any feature, and hands each the part it needs. */
export interface Infrastructure {
  config: Config;
  options: YardmasterOptions;
  logger: Logger;
  metrics: Metrics;
  store: Store;
  /** This process, as the holder of claims and leases in the store shared with other replicas. */
  owner: string;
  /** The clock of the merge queue's time (docs/architecture.md, "Time"): `options.now`, or the system's. */
  now: () => Date;
  /** This replica's runner of durable work (src/work): every kind registers with it, and it stops last. */
  work: WorkRunner;
  /** GitHub's web and API addresses (github.com, or GHE_HOST's). */
  urls: { apiUrl: string; webUrl: string };
  /** Requests and the work surfaces go on doing after answering: a graceful stop waits for them. */
  inFlight: InFlight;
  /** What webhooks left to do once answered (counted in `inFlight` too). */
  webhookWork: InFlight;
  trackWebhookWork(work: Promise<unknown>): void;
  /** Aborted when the stop begins. */
  stopping: AbortController;
  /** A repository's queue may have moved (GitHub's events, a timed pause's end, a freeze): read it soon. */
  rings: Hub<[repository: Repo]>;
  /**
   * GitHub's own merge queue said something happened (its webhooks, read by the GitHub surface): heard by
   * its backend, which pushes them to the notifier as queue events (src/backends/github/pushed-events.ts).
   */
  happenings: Hub<[happening: QueueHappening, deliveryId: string]>;
  /** A queue event Yardmaster itself made happen (the gate's pauses): pushed to the notifier the same way. */
  announcements: Hub<[repository: Repo, event: QueueEvent]>;
  /**
   * GitHub said a pull request was merged (its `closed` webhook, read by the GitHub surface): heard by
   * src/outside-merges, which judges whether it skipped its queue.
   */
  merges: Hub<[merge: MergedPull, deliveryId: string]>;
}

/** Everything but the metrics and the store, which the root opens first (the store can fail). */
export function infrastructure(
  config: Config,
  options: YardmasterOptions,
  opened: { metrics: Metrics; store: Store },
): Infrastructure {
  const inFlight = new InFlight();
  const webhookWork = new InFlight();
  const owner = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const now = options.now ?? (() => new Date());
  return {
    config,
    options,
    logger: options.logger,
    ...opened,
    owner,
    now,
    work: new WorkRunner({
      store: opened.store,
      owner,
      now,
      logger: options.logger.child({ name: "work" }),
      metrics: opened.metrics,
      // As often as the poller looked before (a repository due on another replica's schedule, a lapsed
      // claim nobody here knew of); tests that move the clock shorten it.
      safetyMs:
        options.workSafetyMs ??
        Math.min(1_000, config.pollIntervalSeconds * 1000, options.scheduledUnpauseIntervalMs ?? 1_000),
    }),
    urls: githubUrls(config.githubHost),
    inFlight,
    webhookWork,
    trackWebhookWork: (work) => {
      inFlight.track(webhookWork.track(work));
    },
    stopping: new AbortController(),
    rings: new Hub(),
    happenings: new Hub(),
    announcements: new Hub(),
    merges: new Hub(),
  };
}
