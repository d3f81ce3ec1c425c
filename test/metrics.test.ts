import { readFileSync } from "node:fs";
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

  it("names the release it runs, package.json's version, in yardmaster_build_info", async () => {
    const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    const text = await createMetrics().registry.metrics();
    expect(text).toContain(`yardmaster_build_info{version="${version}"} 1\n`);
  });

  it("asks the store at each scrape whether it answers: yardmaster_store_up 1, then 0 once it fails", async () => {
    const metrics = createMetrics();
    let answers: () => Promise<boolean> = async () => true;
    metrics.storeProbe.set(() => answers());
    expect(await metrics.registry.metrics()).toContain("\nyardmaster_store_up 1\n");
    answers = async () => false;
    expect(await metrics.registry.metrics()).toContain("\nyardmaster_store_up 0\n");
    answers = () => Promise.reject(new Error("connection refused"));
    expect(await metrics.registry.metrics()).toContain("\nyardmaster_store_up 0\n");
    answers = async () => true;
    expect(await metrics.registry.metrics()).toContain("\nyardmaster_store_up 1\n");
  });

  it("serves the process's own figures: memory and event-loop lag", async () => {
    const text = await createMetrics().registry.metrics();
    expect(text).toMatch(/\nprocess_resident_memory_bytes \d+/);
    expect(text).toContain("# TYPE nodejs_eventloop_lag_seconds gauge");
  });

  it("counts reads per repository and outcome, rate limits by status, and whether the poller runs", async () => {
    const metrics = createMetrics();
    metrics.repositoryReads.inc({ repository: "acme/widgets", outcome: "failed" });
    metrics.githubRateLimited.inc({ status: "403" });
    metrics.commandDuration.observe(0.3, { surface: "github", command: "queue" });
    metrics.pollerRunning.set(true);
    const text = await metrics.registry.metrics();
    expect(text).toContain(
      'yardmaster_notifier_repository_reads_total{outcome="failed",repository="acme/widgets"} 1\n',
    );
    expect(text).toContain('yardmaster_github_rate_limited_total{status="403"} 1\n');
    expect(text).toContain(
      'yardmaster_command_duration_seconds_bucket{le="0.5",command="queue",surface="github"} 1\n',
    );
    expect(text).toContain("\nyardmaster_poller_running 1\n");
    metrics.pollerRunning.set(false);
    expect(await metrics.registry.metrics()).toContain("\nyardmaster_poller_running 0\n");
  });
});
