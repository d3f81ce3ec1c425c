import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { everyExpression, selectors } from "../deploy/promql.js";
import { startWorld, subscribeChannel, type World } from "../helpers/e2e.js";

/**
 * Every metric deploy/prometheus/alerts.yml and deploy/grafana/yardmaster.json name is one that
 * /metrics of a running Yardmaster serves, matched only on labels it has: the world of tools/world.ts,
 * exercised (a comment command, a Slack command, a notifier pass that posts) until the figures exist.
 */
let world: World;
const REPO = "acme/widgets";
const CHANNEL = "C0OPS";
/** Labels Prometheus adds to every series it scrapes. */
const TARGET_LABELS = ["instance", "job"];

beforeAll(async () => {
  world = await startWorld();
  world.github.state.addRepository(REPO);
  world.github.state.setPermission(REPO, "alice", "write");
  world.github.state.addPullRequest({
    repository: REPO,
    number: 101,
    author: "alice",
    title: "Cogs",
    base: "main",
  });
  await subscribeChannel(world, CHANNEL, [REPO]);
  world.sim.clock.advance(1_000);
  world.sim.state.relayCommand(REPO, {
    body: "@mergifyio queue",
    pull_request: { number: 101, title: "Cogs", base_ref: "main", author: { id: 1, login: "alice" } },
  });
  await world.github.deliverIssueComment({
    repository: REPO,
    number: 101,
    body: "@yardmaster status",
    author: "alice",
  });
  await world.yardmaster.poller?.tick();
});
afterAll(async () => {
  await world?.close();
});

/** The metric families /metrics declares (`# TYPE`), with the sample names each serves. */
function families(text: string): Map<string, string> {
  const byName = new Map<string, string>();
  for (const [, family = "", type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const names =
      type === "histogram"
        ? [`${family}_bucket`, `${family}_sum`, `${family}_count`]
        : type === "summary"
          ? [family, `${family}_sum`, `${family}_count`]
          : [family];
    for (const name of names) byName.set(name, family);
  }
  return byName;
}

describe("the alerts' and the dashboard's metrics", () => {
  it("are all served by /metrics of a running server, on labels they have", async () => {
    const response = await fetch(`${world.url}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    const served = families(text);
    // Exercised: the figures the alerts lean on have samples, not only declarations.
    for (const sample of [
      /^yardmaster_commands_total\{.*surface="github".*\} 1$/m,
      /^yardmaster_command_duration_seconds_count\{.*\} 1$/m,
      /^yardmaster_notifications_sent_total\{.*\} [1-9]\d*$/m,
      /^yardmaster_notifier_repository_reads_total\{outcome="ok",repository="acme\/widgets"\} 1$/m,
      /^yardmaster_outbox_oldest_pending_age_seconds 0$/m,
      /^yardmaster_store_up 1$/m,
      /^yardmaster_poller_last_success_timestamp_seconds [1-9]/m,
      /^process_resident_memory_bytes [1-9]/m,
      // The longest the event loop waited since the last scrape (docs/operations.md).
      /^nodejs_eventloop_lag_max_seconds \d/m,
    ])
      expect(text).toMatch(sample);

    const registry = world.yardmaster.metrics.registry;
    const missing: string[] = [];
    for (const { where, expr } of everyExpression()) {
      for (const { metric, labels } of selectors(expr)) {
        const family = served.get(metric);
        if (!family) {
          missing.push(`${where}: ${metric}`);
          continue;
        }
        const known = [
          ...((registry.getSingleMetric(family) as { labelNames?: string[] } | undefined)?.labelNames ?? []),
          ...TARGET_LABELS,
          ...(metric.endsWith("_bucket") ? ["le"] : []),
        ];
        for (const label of labels) if (!known.includes(label)) missing.push(`${where}: ${metric}{${label}}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
