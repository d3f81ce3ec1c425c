import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorld, type World } from "../helpers/e2e.js";

/**
 * METRICS_PORT (docs/security.md, "The metrics port"): /metrics is served on that port alone, and the
 * port GitHub and Slack reach answers it 404 while its /healthz keeps its status and version. Asked from
 * outside, over HTTP, of a running server.
 */
let world: World;

beforeAll(async () => {
  world = await startWorld({ METRICS_PORT: "0" });
});
afterAll(async () => {
  await world?.close();
});

describe("with METRICS_PORT", () => {
  it("the main port answers /metrics 404, and keeps /healthz with its version", async () => {
    const metrics = await fetch(`${world.url}/metrics`);
    expect(metrics.status).toBe(404);
    expect(await metrics.text()).not.toContain("yardmaster_");
    const health = await fetch(`${world.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ok: true, version: expect.any(String), store: "reachable" });
  });

  it("the metrics port serves /metrics, and nothing else", async () => {
    expect(new URL(world.metricsUrl).port).not.toBe(new URL(world.url).port);
    const metrics = await fetch(world.metricsUrl);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get("content-type")).toContain("text/plain");
    expect(await metrics.text()).toMatch(/^yardmaster_store_up 1$/m);
    const origin = new URL(world.metricsUrl).origin;
    expect((await fetch(`${origin}/healthz`)).status).toBe(404);
    expect((await fetch(`${origin}/api/github/webhooks`, { method: "POST", body: "{}" })).status).toBe(413);
  });
});

describe("without METRICS_PORT", () => {
  it("serves /metrics on the main port, as before", async () => {
    const plain = await startWorld();
    try {
      expect(plain.metricsUrl).toBe(`${plain.url}/metrics`);
      const metrics = await fetch(`${plain.url}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toMatch(/^yardmaster_store_up 1$/m);
    } finally {
      await plain.close();
    }
  });
});
