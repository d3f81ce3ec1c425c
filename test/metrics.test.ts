import { describe, expect, it } from "vitest";
import { createMetrics } from "../src/metrics.js";

describe("metrics", () => {
  it("exposes each figure with its help, type and labels in Prometheus text", async () => {
    const metrics = createMetrics();
    metrics.notificationFailures.inc({ stage: "poll", reason: "timeout" });
    metrics.pollerLag.observe(7);
    metrics.mergeQueueLatency.observe(0.02, { route: "/repos/{owner}/{repository}/logs", method: "GET" });
    metrics.pollerLastTick.set(1_767_261_600);
    const text = await metrics.registry.metrics();
    expect(text).toContain("# HELP yardmaster_notification_failures_total Notification or poll failures");
    expect(text).toContain("# TYPE yardmaster_notification_failures_total counter");
    expect(text).toContain('yardmaster_notification_failures_total{reason="timeout",stage="poll"} 1\n');
    expect(text).toContain("# TYPE yardmaster_notification_lag_seconds histogram");
    expect(text).toContain('yardmaster_notification_lag_seconds_bucket{le="5"} 0\n');
    expect(text).toContain('yardmaster_notification_lag_seconds_bucket{le="15"} 1\n');
    expect(text).toContain("yardmaster_notification_lag_seconds_count 1\n");
    expect(text).toMatch(
      /yardmaster_merge_queue_request_duration_seconds_count\{method="GET",route="\/repos\/\{owner\}\/\{repository\}\/logs"\} 1\n/,
    );
    expect(text).toContain("# TYPE yardmaster_poller_last_success_timestamp_seconds gauge");
    expect(text).toContain("yardmaster_poller_last_success_timestamp_seconds 1767261600\n");
  });

  it("keeps two instances in one process apart", async () => {
    const a = createMetrics();
    const b = createMetrics();
    a.commands.inc({ surface: "slack", command: "status", outcome: "success" });
    expect(await a.registry.metrics()).toContain(
      'yardmaster_commands_total{command="status",outcome="success",surface="slack"} 1\n',
    );
    expect(await b.registry.metrics()).not.toContain("yardmaster_commands_total{");
  });
});
