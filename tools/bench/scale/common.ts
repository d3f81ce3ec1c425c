// What the scale benchmark's parts share: subscriptions, Slack posts by event, metric counts, waiting.

import type { MetricValueWithName } from "prom-client";
import type { Metrics } from "../../../src/metrics.js";
import { Repo } from "../../../src/repo.js";
import { METADATA_EVENT_TYPE } from "../../../src/slack/slack-poster.js";
import type { Store } from "../../../src/store/index.js";
import type { RecordedCall } from "../../stand-ins/slack/index.js";

export const OWNER = "bench";

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function repoName(prefix: string, i: number, width = 4): string {
  return `${OWNER}/${prefix}-${String(i + 1).padStart(width, "0")}`;
}

export async function subscribe(
  store: Store,
  channelId: string,
  repository: string,
  groups: string[],
  createdAt: Date,
): Promise<void> {
  await store.putSubscription({
    channelId,
    teamId: "T0001",
    repository: Repo.from(repository),
    branchGlob: null,
    groups,
    createdBy: "bench",
    createdAt,
  });
}

/** A counter's values by one label (e.g. yardmaster_notifier_log_requests_total by reason). */
export async function countsBy(
  metrics: Metrics,
  name: string,
  label: string,
): Promise<Record<string, number>> {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  const out: Record<string, number> = {};
  for (const value of (metric?.values ?? []) as MetricValueWithName<string>[]) {
    const key = String(value.labels[label] ?? "");
    out[key] = (out[key] ?? 0) + value.value;
  }
  return out;
}

export function total(counts: Record<string, number>): number {
  return Object.values(counts).reduce((sum, v) => sum + v, 0);
}

/** "interval 240, new 1" (largest first), or "none". */
export function split(counts: Record<string, number>, per = 1, digits = 0): string {
  const entries = Object.entries(counts)
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1]);
  return entries.length === 0
    ? "none"
    : entries.map(([k, v]) => `${k} ${(v / per).toFixed(digits)}`).join(", ");
}

/** Successful chat.postMessage calls carrying Yardmaster's metadata: event id, channel, when (Date.now()). */
export function notices(calls: readonly RecordedCall[]): { eventId: number; channel: string; at: number }[] {
  const out: { eventId: number; channel: string; at: number }[] = [];
  for (const call of calls) {
    if (call.method !== "chat.postMessage" || call.httpStatus !== 200 || call.response.ok !== true) continue;
    const metadata = call.args.metadata as
      | { event_type?: string; event_payload?: { event_id?: unknown } }
      | undefined;
    if (metadata?.event_type !== METADATA_EVENT_TYPE) continue;
    out.push({
      eventId: Number(metadata.event_payload?.event_id),
      channel: String(call.args.channel),
      at: call.at,
    });
  }
  return out;
}

/** Waits until `done()` or `timeoutMs`; true when done. */
export async function until(
  done: () => boolean | Promise<boolean>,
  timeoutMs: number,
  stepMs = 50,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await done()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(stepMs);
  }
}
