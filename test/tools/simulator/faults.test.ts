import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Api, start } from "./helpers.js";

let api: Api;
const STATUS = "/repos/octo/app/merge-queue/status";

beforeEach(async () => {
  api = await start();
  api.sim.state.addRepository("octo/app");
  api.sim.state.addRepository("octo/other");
});

afterEach(async () => {
  await api.sim.close();
});

describe("faults", () => {
  it("adds latency", async () => {
    api.sim.faults.set("octo/app", { latencyMs: 60 });
    const started = performance.now();
    const response = await api.get(STATUS);
    expect(response.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
  });

  it("answers 5xx with the configured status and detail for the next N requests", async () => {
    api.sim.faults.set("octo/app", { serverErrors: { count: 2, status: 503, detail: "maintenance" } });
    for (let i = 0; i < 2; i++) {
      const response = await api.get(STATUS);
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ detail: "maintenance" });
    }
    expect((await api.get(STATUS)).status).toBe(200);
    api.sim.faults.set("octo/app", { serverErrors: { count: 1 } });
    expect((await api.get(STATUS)).status).toBe(500);
  });

  it("answers 429 with Retry-After", async () => {
    api.sim.faults.set("octo/app", { rateLimit: { count: 1, retryAfterSeconds: 7 } });
    const response = await api.get(STATUS);
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("7");
    expect(await response.json()).toEqual({ detail: expect.any(String) });
    expect((await api.get(STATUS)).status).toBe(200);
  });

  it("answers a 2xx with a body that is not JSON", async () => {
    api.sim.faults.set("octo/app", { malformed: { count: 1, kind: "not_json" } });
    const response = await api.get(STATUS);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(() => JSON.parse(text)).toThrow();
    expect((await api.get(STATUS)).status).toBe(200);
  });

  it("answers a 2xx with JSON missing a required field", async () => {
    api.sim.faults.set("octo/app", { malformed: { count: 2, kind: "missing_field" } });
    const status = (await (await api.get(STATUS)).json()) as Record<string, unknown>;
    expect(status).not.toHaveProperty("batches");
    expect(status).toHaveProperty("waiting_pull_requests");
    const pause = await api.send("PUT", "/repos/octo/app/merge-queue/pause", { reason: "x" });
    expect(pause.status).toBe(200);
    expect(await pause.json()).not.toHaveProperty("paused");
  });

  it("drops the connection without a response", async () => {
    api.sim.faults.set("octo/app", { drop: { count: 1 } });
    await expect(api.get(STATUS)).rejects.toThrow();
    expect((await api.get(STATUS)).status).toBe(200);
  });

  it("forces a status with a detail for the next N requests", async () => {
    api.sim.faults.set("octo/app", {
      forced: { count: 1, status: 409, detail: "Conflict with a running batch" },
    });
    const response = await api.get("/repos/octo/app/logs");
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({ detail: "Conflict with a running batch" });
    expect((await api.get("/repos/octo/app/logs")).status).toBe(200);
  });

  it("answers 403 permanently until cleared", async () => {
    api.sim.faults.set("octo/app", { forbidden: true });
    for (let i = 0; i < 3; i++) expect((await api.get(STATUS)).status).toBe(403);
    expect((await api.get("/repos/octo/other/merge-queue/status")).status).toBe(200);
    api.sim.faults.clear("octo/app");
    expect((await api.get(STATUS)).status).toBe(200);
  });

  it("applies modes in order and keeps counts per repository", async () => {
    api.sim.faults.set("octo/app", {
      drop: { count: 1 },
      serverErrors: { count: 1, status: 502 },
      rateLimit: { count: 1 },
    });
    await expect(api.get(STATUS)).rejects.toThrow();
    expect((await api.get(STATUS)).status).toBe(502);
    expect((await api.get(STATUS)).status).toBe(429);
    expect((await api.get(STATUS)).status).toBe(200);
    expect(api.sim.faults.get("octo/app")).toMatchObject({ drop: { count: 0 }, rateLimit: { count: 0 } });
  });

  it("is configured through the control endpoint", async () => {
    const put = await api.control("PUT", "/__sim/repos/octo/app/faults", {
      serverErrors: { count: 1, status: 500, detail: "boom" },
      latencyMs: 1,
    });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({
      serverErrors: { count: 1, status: 500, detail: "boom" },
      latencyMs: 1,
    });
    // Control endpoints are never faulted.
    expect((await api.control("GET", "/__sim/repos/octo/app/faults")).status).toBe(200);
    expect((await api.get(STATUS)).status).toBe(500);
    expect(await (await api.control("GET", "/__sim/repos/octo/app/faults")).json()).toMatchObject({
      serverErrors: { count: 0 },
    });
    await api.control("PUT", "/__sim/repos/octo/app/faults", { forbidden: true });
    expect((await api.get(STATUS)).status).toBe(403);
    expect((await api.control("DELETE", "/__sim/repos/octo/app/faults")).status).toBe(204);
    expect((await api.get(STATUS)).status).toBe(200);
    const bad = await api.control("PUT", "/__sim/repos/octo/app/faults", {
      drop: { count: -1 },
      teleport: true,
    });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { detail: { msg: string }[] }).detail.map((item) => item.msg)).toEqual([
      "unknown fault: teleport",
      "drop.count: a whole number >= 0",
    ]);
  });
});
