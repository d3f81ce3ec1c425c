import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { alertRules, dashboard, everyExpression, selectors } from "./promql.js";

/**
 * deploy/prometheus/alerts.yml and deploy/grafana/yardmaster.json: every expression parses with
 * Prometheus' own PromQL parser, every alert says what to do and links its runbook in docs/operations.md,
 * and the dashboard has the panels an operator looks for. That each metric they name is one /metrics
 * serves is test/e2e/deploy-metrics.e2e.test.ts's (it needs a running server).
 */
const OPERATIONS = readFileSync("docs/operations.md", "utf8");

/** GitHub's anchor of a Markdown heading. */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, "")
    .replace(/\s/g, "-");
const ANCHORS = new Set([...OPERATIONS.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => anchor(m[1] ?? "")));

describe("PromQL parsing", () => {
  it("refuses an expression Prometheus would refuse, and finds the metrics and labels of one it reads", () => {
    expect(() => selectors("sum(rate(yardmaster_commands_total[5m]) >")).toThrow();
    expect(() => selectors("yardmaster_commands_total{outcome=}")).toThrow();
    expect(
      selectors('sum by (x) (rate(a_total{outcome="failed"}[5m])) / on () b and time() - max(c{job!~"y"})'),
    ).toEqual([
      { metric: "a_total", labels: ["outcome"] },
      { metric: "b", labels: [] },
      { metric: "c", labels: ["job"] },
    ]);
  });

  it("reads every expression of the alerts and the dashboard, each naming a metric", () => {
    const all = everyExpression();
    expect(all.length).toBeGreaterThan(20);
    for (const { where, expr } of all) {
      let found: ReturnType<typeof selectors> = [];
      expect(() => {
        found = selectors(expr);
      }, where).not.toThrow();
      expect(found.length, where).toBeGreaterThan(0);
    }
  });
});

describe("the alerts", () => {
  const rules = alertRules();

  it("cover what the platform team is paged for", () => {
    const metricsOf = (name: string) =>
      selectors(rules.find((r) => r.rule.alert === name)?.rule.expr ?? "").map((s) => s.metric);
    expect(metricsOf("YardmasterNoticesNotDelivered")).toContain(
      "yardmaster_outbox_oldest_pending_age_seconds",
    );
    expect(metricsOf("YardmasterMergeQueueReadsFailing")).toContain(
      "yardmaster_notifier_repository_reads_total",
    );
    expect(metricsOf("YardmasterSlackRateLimited")).toContain("yardmaster_slack_rate_limited_total");
    expect(metricsOf("YardmasterGitHubRateLimited")).toContain("yardmaster_github_rate_limited_total");
    expect(metricsOf("YardmasterStoreUnhealthy")).toContain("yardmaster_store_up");
    expect(metricsOf("YardmasterNoReplicaPolling")).toContain("yardmaster_poller_running");
    expect(metricsOf("YardmasterPollerStalled")).toContain(
      "yardmaster_poller_last_success_timestamp_seconds",
    );
    expect(metricsOf("YardmasterCommandsFailing")).toContain("yardmaster_commands_total");
    expect(new Set(rules.map((r) => r.rule.alert)).size).toBe(rules.length);
  });

  it("each have a severity, a wait, a summary, a description of what to do, and a runbook section that exists", () => {
    for (const { rule } of rules) {
      expect(rule.for, rule.alert).toMatch(/^\d+[smh]$/);
      expect(["warning", "critical"], rule.alert).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary?.length, rule.alert).toBeGreaterThan(10);
      expect(rule.annotations?.description?.length, rule.alert).toBeGreaterThan(80);
      const url = rule.annotations?.runbook_url ?? "";
      const match = /\/docs\/operations\.md#([a-z0-9-]+)$/.exec(url);
      expect(match, `${rule.alert}: ${url}`).not.toBeNull();
      expect(ANCHORS, `${rule.alert}: docs/operations.md has no section #${match?.[1]}`).toContain(
        match?.[1],
      );
    }
  });
});

describe("the dashboard", () => {
  it("shows commands, notices, the outbox, merge-queue reads, rate limits, replicas and the process", () => {
    const board = dashboard();
    expect(board.uid).toBe("yardmaster");
    const byTitle = new Map(
      board.panels.map((p) => [
        p.title,
        (p.targets ?? []).flatMap((t) =>
          selectors(t.expr.replaceAll("$__rate_interval", "5m")).map((s) => s.metric),
        ),
      ]),
    );
    const wanted: [string, string][] = [
      ["Commands by surface and outcome", "yardmaster_commands_total"],
      ["Command latency", "yardmaster_command_duration_seconds_bucket"],
      ["Notices posted", "yardmaster_notifications_sent_total"],
      ["Event-to-post lag", "yardmaster_notification_lag_seconds_bucket"],
      ["Outbox depth", "yardmaster_outbox_pending"],
      ["Merge-queue reads by reason", "yardmaster_notifier_log_requests_total"],
      ["Merge-queue errors", "yardmaster_merge_queue_requests_total"],
      ["Slack and GitHub rate limits met", "yardmaster_slack_rate_limited_total"],
      ["Slack and GitHub rate limits met", "yardmaster_github_rate_limited_total"],
      ["Replicas polling", "yardmaster_poller_running"],
      ["Process memory", "process_resident_memory_bytes"],
      ["Event-loop lag", "nodejs_eventloop_lag_p99_seconds"],
      ["Event-loop lag", "nodejs_eventloop_lag_max_seconds"],
    ];
    for (const [title, metric] of wanted) expect(byTitle.get(title), title).toContain(metric);
    const ids = board.panels.map((p) => (p as { id?: number }).id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
