import type { Digests } from "../digests/digests.js";
import type { FreezeRunner } from "../freezes/runner.js";
import type { GitHubWrites } from "../github/github-writes.js";
import type { HealthEvaluator } from "../health/evaluator.js";
import type { Metrics } from "../metrics.js";
import type { Deliverer } from "../notifier/deliverer.js";
import type { Poller } from "../notifier/poller.js";
import type { OutsideMerges } from "../outside-merges/watch.js";
import type { Store } from "../store/index.js";
import type { ScheduledUnpauser } from "../timed-pauses/runner.js";
import type { Config } from "./config.js";

/** How a stop ended: `abandoned` requests and commands were still running at its deadline (0: none). */
export interface CloseReport {
  abandoned: number;
}

export interface Yardmaster {
  config: Config;
  metrics: Metrics;
  store: Store;
  appSlug: string | null;
  /** The app's GitHub write queue; null when the GitHub surface is off. */
  githubWrites: GitHubWrites | null;
  /** The notifier's poller and deliverer; null when Slack is off (nowhere to notify). */
  poller: Poller | null;
  deliverer: Deliverer | null;
  /** Weekly digests; null when Slack is off. */
  digests: Digests | null;
  /** Ends timed pauses when their time comes. */
  scheduledUnpauser: ScheduledUnpauser;
  /** Applies freeze windows (src/freezes). */
  freezeRunner: FreezeRunner;
  /** The queue's health alerts (src/health); null when Slack is off (nowhere to say them). */
  health: HealthEvaluator | null;
  /** Pull requests merged without going through their queue (src/outside-merges); null when Slack is off. */
  outsideMerges: OutsideMerges | null;
  /**
   * Resolves once the work that webhooks answered on this replica left to do is done: comment commands
   * (run after their webhook's answer) and pushed notices' deliveries.
   */
  webhookWorkDone(): Promise<void>;
  /** `metricsUrl`: where /metrics is served (on METRICS_PORT when set, else on the main port). */
  listen(): Promise<{ url: string; port: number; metricsUrl: string }>;
  /**
   * Stops: no new connection or request is accepted; requests in flight, commands still running after
   * their answer and the poller's tick get `timeoutMs` (default 0) to finish, then are abandoned; the
   * store is closed. Calling it again returns the same stop.
   */
  close(options?: { timeoutMs?: number }): Promise<CloseReport>;
}
