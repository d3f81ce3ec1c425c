/**
 * A small Prometheus registry: counters, gauges and histograms with labels, rendered in the text
 * exposition format for GET /metrics. No dependency, no global state: the server creates one.
 */
type Labels = Record<string, string>;

const key = (labels: Labels) =>
  Object.keys(labels)
    .sort()
    .map(
      (k) => `${k}="${String(labels[k]).replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`,
    )
    .join(",");

abstract class Metric {
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: "counter" | "gauge" | "histogram",
  ) {}
  abstract lines(): string[];
}

export class Counter extends Metric {
  private values = new Map<string, number>();
  constructor(name: string, help: string) {
    super(name, help, "counter");
  }
  inc(labels: Labels = {}, by = 1): void {
    const k = key(labels);
    this.values.set(k, (this.values.get(k) ?? 0) + by);
  }
  get(labels: Labels = {}): number {
    return this.values.get(key(labels)) ?? 0;
  }
  lines(): string[] {
    return [...this.values].map(([k, v]) => `${this.name}${k ? `{${k}}` : ""} ${v}`);
  }
}

export class Gauge extends Metric {
  private values = new Map<string, number>();
  constructor(name: string, help: string) {
    super(name, help, "gauge");
  }
  set(value: number, labels: Labels = {}): void {
    this.values.set(key(labels), value);
  }
  get(labels: Labels = {}): number | undefined {
    return this.values.get(key(labels));
  }
  lines(): string[] {
    return [...this.values].map(([k, v]) => `${this.name}${k ? `{${k}}` : ""} ${v}`);
  }
}

export class Histogram extends Metric {
  private series = new Map<string, { counts: number[]; sum: number; count: number }>();
  constructor(
    name: string,
    help: string,
    readonly buckets: readonly number[],
  ) {
    super(name, help, "histogram");
  }
  observe(value: number, labels: Labels = {}): void {
    const k = key(labels);
    let s = this.series.get(k);
    if (!s) {
      s = { counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(k, s);
    }
    this.buckets.forEach((b, i) => {
      if (value <= b) s.counts[i] = (s.counts[i] ?? 0) + 1;
    });
    s.sum += value;
    s.count += 1;
  }
  count(labels: Labels = {}): number {
    return this.series.get(key(labels))?.count ?? 0;
  }
  lines(): string[] {
    const out: string[] = [];
    for (const [k, s] of this.series) {
      const sep = k ? `${k},` : "";
      this.buckets.forEach((b, i) => {
        out.push(`${this.name}_bucket{${sep}le="${b}"} ${s.counts[i]}`);
      });
      out.push(`${this.name}_bucket{${sep}le="+Inf"} ${s.count}`);
      out.push(`${this.name}_sum${k ? `{${k}}` : ""} ${s.sum}`);
      out.push(`${this.name}_count${k ? `{${k}}` : ""} ${s.count}`);
    }
    return out;
  }
}

const SECONDS_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const LAG_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 900, 3600];

/** Every figure PRODUCT.md section 6 asks /metrics for, in one place. */
export function createMetrics() {
  const registry = {
    commands: new Counter("yardmaster_commands_total", "Commands handled, by surface, command and outcome."),
    mergeQueueCalls: new Counter(
      "yardmaster_merge_queue_requests_total",
      "Merge-queue API requests, by method, route and status.",
    ),
    mergeQueueLatency: new Histogram(
      "yardmaster_merge_queue_request_duration_seconds",
      "Merge-queue API request latency, by method and route.",
      SECONDS_BUCKETS,
    ),
    eventsPolled: new Counter(
      "yardmaster_events_polled_total",
      "Events read from merge-queue logs, by type.",
    ),
    eventsSkipped: new Counter("yardmaster_events_skipped_total", "Events skipped, by reason."),
    notificationsSent: new Counter(
      "yardmaster_notifications_sent_total",
      "Slack notifications sent, by kind.",
    ),
    notificationFailures: new Counter(
      "yardmaster_notification_failures_total",
      "Notification or poll failures, by stage and reason.",
    ),
    pollerLag: new Histogram(
      "yardmaster_notification_lag_seconds",
      "Time from an event's received_at to its Slack post.",
      LAG_BUCKETS,
    ),
    pollerLastTick: new Gauge(
      "yardmaster_poller_last_success_timestamp_seconds",
      "Unix time of the poller's last successful tick.",
    ),
  };
  return {
    ...registry,
    render(): string {
      const parts: string[] = [];
      for (const m of Object.values(registry)) {
        parts.push(`# HELP ${m.name} ${m.help}`, `# TYPE ${m.name} ${m.type}`, ...m.lines());
      }
      return `${parts.join("\n")}\n`;
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
