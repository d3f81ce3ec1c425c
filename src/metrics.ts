import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { VERSION } from "./version.js";

/**
 * Every figure /metrics serves (the README's "Operating it" lists them), on prom-client. Each
 * Yardmaster has its own registry (never prom-client's global one), so that several instances in one
 * process (tests, replicas) do not count into each other.
 */
type Labels<L extends string> = Record<L, string>;

// prom-client writes labels in the order a caller wrote them; sorted, /metrics reads the same whoever counts.
function sorted<L extends string>(labels: Labels<L>): Labels<L> {
  const keys = Object.keys(labels);
  // Most callers write them in order already: counting a merge-queue request makes no new object.
  if (keys.every((key, i) => i === 0 || (keys[i - 1] as string) < key)) return labels;
  return Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1))) as Labels<L>;
}

/**
 * A counter counted here and handed to prom-client when /metrics is read: a count is one Map entry's
 * addition (a poller counts several per repository read; prom-client checks and hashes the labels of each).
 */
function counter<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[]) {
  const pending = new Map<string, { labels: Labels<L>; by: number }>();
  new Counter<L>({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      for (const { labels, by } of pending.values()) this.inc(labels, by);
      pending.clear();
    },
  });
  return {
    inc: (labels: Labels<L>, by = 1) => {
      if (!(by >= 0 && Number.isFinite(by)))
        throw new TypeError(`a counter only goes up, by a finite number: ${by}`);
      let key = "";
      for (const label of labelNames) key += `${labels[label]}\u0000`;
      const counted = pending.get(key);
      if (counted) counted.by += by;
      else pending.set(key, { labels: sorted(labels), by });
    },
  };
}

function histogram<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
  buckets: number[],
) {
  const metric = new Histogram<L>({ name, help, labelNames, buckets, registers: [registry] });
  return {
    observe: (value: number, labels?: Labels<L>) =>
      labels ? metric.observe(sorted(labels), value) : metric.observe(value),
  };
}

function gauge<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[]) {
  const metric = new Gauge<L>({ name, help, labelNames, registers: [registry] });
  return {
    set: (labels: Labels<L>, value: number) => metric.set(sorted(labels), value),
    /** Forgets every label set (a figure recomputed from scratch). */
    reset: () => metric.reset(),
  };
}

const SECONDS_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** How long a scrape waits for the store's answer before it reports the store down. */
const STORE_PROBE_TIMEOUT_MS = 5_000;
const LAG_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 900, 3600];

export function createMetrics() {
  const registry = new Registry();
  const processAndStore = processAndStoreMetrics(registry);
  const notifierGauges = notifierStateGauges(registry);
  // Registered (and listed by /metrics) in this order: the process and store, the gauges, then the rest.
  return {
    registry,
    ...commandAndQueueApiMetrics(registry),
    ...notifierEventMetrics(registry),
    ...notifierWorkMetrics(registry),
    ...durationAndRateLimitMetrics(registry),
    ...workMetrics(registry),
    ...notifierGauges,
    ...processAndStore,
  };
}

/** The process's own figures, the release that serves, and whether the store answers. */
function processAndStoreMetrics(registry: Registry) {
  // The process's own figures (process_resident_memory_bytes, nodejs_eventloop_lag_seconds, ...).
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: "yardmaster_build_info",
    help: "1, labelled with the release that serves (package.json's version).",
    labelNames: ["version"],
    registers: [registry],
  }).set({ version: VERSION }, 1);
  return {
    /** What `yardmaster_store_up` asks at each scrape: the store's ping (as /healthz asks it). */
    storeProbe: storeUpGauge(registry),
  };
}

/** Whether this replica's notifier runs, its last tick, and the age of its oldest pending notice. */
function notifierStateGauges(registry: Registry) {
  const pollerRunning = new Gauge({
    name: "yardmaster_poller_running",
    help: "1 while this replica's notifier runs its loop (reads due repositories, delivers notices); 0 otherwise.",
    registers: [registry],
  });
  const lastTick = new Gauge({
    name: "yardmaster_poller_last_success_timestamp_seconds",
    help: "Unix time of the poller's last successful tick.",
    registers: [registry],
  });
  const oldestPending = new Gauge({
    name: "yardmaster_outbox_oldest_pending_age_seconds",
    help: "Age of the oldest notification not yet posted (since it was claimed); 0 when none.",
    registers: [registry],
  });
  return {
    pollerRunning: { set: (running: boolean) => pollerRunning.set(running ? 1 : 0) },
    pollerLastTick: { set: (value: number) => lastTick.set(value) },
    outboxOldestAge: { set: (value: number) => oldestPending.set(value) },
  };
}

/** Commands handled, and the calls to the merge queues' APIs and webhooks. */
function commandAndQueueApiMetrics(registry: Registry) {
  return {
    commands: counter(
      registry,
      "yardmaster_commands_total",
      "Commands handled, by surface, command and outcome.",
      ["surface", "command", "outcome"],
    ),
    mergeQueueCalls: counter(
      registry,
      "yardmaster_merge_queue_requests_total",
      "Merge-queue API requests, by method, route and status.",
      ["method", "route", "status"],
    ),
    mergeQueueLatency: histogram(
      registry,
      "yardmaster_merge_queue_request_duration_seconds",
      "Merge-queue API request latency, by method and route.",
      ["method", "route"],
      SECONDS_BUCKETS,
    ),
    githubQueueCalls: counter(
      registry,
      "yardmaster_github_merge_queue_requests_total",
      "GraphQL calls to GitHub's own merge queue, by operation and outcome (ok, or why it failed).",
      ["operation", "outcome"],
    ),
    githubQueueLatency: histogram(
      registry,
      "yardmaster_github_merge_queue_request_duration_seconds",
      "Latency of GraphQL calls to GitHub's own merge queue, by operation and outcome.",
      ["operation", "outcome"],
      SECONDS_BUCKETS,
    ),
    githubQueueWebhooks: counter(
      registry,
      "yardmaster_github_queue_webhooks_total",
      "Webhooks of GitHub's own merge queue read by the notifier, by what they said and whether they became a notice.",
      ["kind", "outcome"],
    ),
  };
}

/** The notifier: events read and skipped, notices sent or failed, and how late. */
function notifierEventMetrics(registry: Registry) {
  return {
    eventsPolled: counter(
      registry,
      "yardmaster_events_polled_total",
      "Events read from merge-queue logs, by type.",
      ["type"],
    ),
    eventsSkipped: counter(registry, "yardmaster_events_skipped_total", "Events skipped, by reason.", [
      "reason",
    ]),
    notificationsSent: counter(
      registry,
      "yardmaster_notifications_sent_total",
      "Slack notifications sent, by kind.",
      ["kind"],
    ),
    notificationFailures: counter(
      registry,
      "yardmaster_notification_failures_total",
      "Notification or poll failures, by stage and reason.",
      ["stage", "reason"],
    ),
    pollerLag: histogram(
      registry,
      "yardmaster_notification_lag_seconds",
      "Time from an event's received_at to its Slack post.",
      [],
      LAG_BUCKETS,
    ),
  };
}

/** The notifier: why logs are read, timed unpauses, Slack's rate limits, the outbox. */
function notifierWorkMetrics(registry: Registry) {
  return {
    logRequests: counter(
      registry,
      "yardmaster_notifier_log_requests_total",
      "Merge-queue event-log requests of the notifier, by why the repository was read (new, interval, idle, doorbell, retry).",
      ["reason"],
    ),
    doorbellRings: counter(
      registry,
      "yardmaster_notifier_doorbell_total",
      "GitHub events on subscribed repositories that asked for an early read (the doorbell).",
      [],
    ),
    mergesJudged: counter(
      registry,
      "yardmaster_merges_judged_total",
      "Pull requests merged into a repository a channel follows with health, by verdict (queue, outside, no-queue, unknown).",
      ["verdict"],
    ),
    scheduledUnpauses: counter(
      registry,
      "yardmaster_scheduled_unpauses_total",
      "Timed pauses whose end came, by outcome (unpaused, not-paused, paused-otherwise, replaced, failed).",
      ["outcome"],
    ),
    slackRateLimited: counter(
      registry,
      "yardmaster_slack_rate_limited_total",
      "Slack answers 429 (rate limited) to the notifier, by channel and method.",
      ["channel", "method"],
    ),
    outboxPending: gauge(
      registry,
      "yardmaster_outbox_pending",
      "Notifications claimed and not yet posted, by channel (channels with none are left out).",
      ["channel"],
    ),
  };
}

/** How long commands take, GitHub's rate limits, each repository's reads. */
function durationAndRateLimitMetrics(registry: Registry) {
  return {
    commandDuration: histogram(
      registry,
      "yardmaster_command_duration_seconds",
      "Time a command took, from asking the permission it needs to its outcome, by surface and command.",
      ["surface", "command"],
      SECONDS_BUCKETS,
    ),
    githubRateLimited: counter(
      registry,
      "yardmaster_github_rate_limited_total",
      "GitHub's rate-limit answers (403 or 429: secondary limits, or the primary one) to the app's writes, by status.",
      ["status"],
    ),
    repositoryReads: counter(
      registry,
      "yardmaster_notifier_repository_reads_total",
      "The notifier's reads of a repository's merge-queue event log, by repository and outcome (ok, failed).",
      ["repository", "outcome"],
    ),
  };
}

/** Durable work (src/work): its runs, and the items that keep failing. */
function workMetrics(registry: Registry) {
  return {
    workRuns: counter(
      registry,
      "yardmaster_work_runs_total",
      "Runs of durable work (src/work) on this replica, by kind (poll, unpause, ...) and outcome (ok, failed).",
      ["kind", "outcome"],
    ),
    workFailing: gauge(
      registry,
      "yardmaster_work_failing",
      "Durable work items whose latest run on this replica failed: kept, and retried with backoff; by kind.",
      ["kind"],
    ),
  };
}

/** `yardmaster_store_up`: 1 when the store answered its ping at this scrape, 0 when not (or in 5 s). */
function storeUpGauge(registry: Registry) {
  let probe: (() => Promise<boolean>) | undefined;
  new Gauge({
    name: "yardmaster_store_up",
    help: "1 when the store answers a real query and a write transaction at this scrape (as /healthz asks), 0 otherwise.",
    registers: [registry],
    async collect() {
      if (!probe) return;
      const ping = probe();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), STORE_PROBE_TIMEOUT_MS);
      });
      const up = await Promise.race([ping.catch(() => false), late]).finally(() => clearTimeout(timer));
      this.set(up ? 1 : 0);
    },
  });
  return {
    set: (ping: () => Promise<boolean>) => {
      probe = ping;
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
